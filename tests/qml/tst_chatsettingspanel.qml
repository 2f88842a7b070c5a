import QtQuick
import QtQuick.Controls
import QtTest
import Burrow

// The per-chat settings panel: refused values show their reason next to the
// field, changed values are marked and can be reset, all edits reach the
// ChatSettings object.
TestCase {
    id: testCase
    name: "ChatSettingsPanel"
    width: 480
    height: 900
    visible: true
    when: windowShown

    Component {
        id: setup
        Item {
            property alias defaults: defaultsObject
            property alias settings: settingsObject
            property alias panel: panelObject
            width: 480
            height: 900
            ChatSettings { id: defaultsObject }
            ChatSettings { id: settingsObject; defaults: defaultsObject }
            ChatSettingsPanel {
                id: panelObject
                anchors.fill: parent
                settings: settingsObject
            }
        }
    }

    function make() {
        const root = createTemporaryObject(setup, testCase)
        verify(root)
        return root
    }

    function child(root, name) {
        const item = findChild(root.panel, name)
        verify(item, "missing " + name)
        return item
    }

    function typeInto(field, text) {
        field.forceActiveFocus()
        field.selectAll()
        keyClick(Qt.Key_Delete)
        for (let i = 0; i < text.length; ++i)
            keyClick(text[i])
        keyClick(Qt.Key_Return)
    }

    // Thinking and Reasoning effort are shown only when the model's template
    // reads them (the app sets showThinking / showReasoningEffort from the
    // model card); what they set reaches the settings.
    function test_reasoningRowsOnlyWhenTheTemplateReadsThem() {
        const root = make()
        verify(!child(root, "row_thinking").visible)
        verify(!child(root, "row_reasoningEffort").visible)
        root.panel.showThinking = true
        verify(child(root, "row_thinking").visible)
        verify(!child(root, "row_reasoningEffort").visible)
        const toggle = child(root, "field_thinking")
        verify(toggle.checked)
        mouseClick(toggle)
        compare(root.settings.thinking, false)
        verify(child(root, "changed_thinking").visible)
        mouseClick(child(root, "reset_thinking"))
        compare(root.settings.thinking, true)
        verify(toggle.checked)

        root.panel.showThinking = false
        root.panel.showReasoningEffort = true
        verify(!child(root, "row_thinking").visible)
        verify(child(root, "row_reasoningEffort").visible)
        const box = child(root, "field_reasoningEffort")
        compare(box.currentValue, "medium")
        root.settings.reasoningEffort = "high"
        compare(box.currentValue, "high")
        verify(child(root, "changed_reasoningEffort").visible)
        verify(!root.settings.setValue("reasoningEffort", "extreme"))
        compare(root.settings.reasoningEffort, "high")
    }

    // When the context is full: Stop (the default) or Shift, from its list;
    // a model that cannot shift says so under it.
    function test_contextPolicy() {
        const root = make()
        const box = child(root, "field_contextPolicy")
        compare(box.currentValue, "stop")
        box.activated(1)   // what choosing "Shift" in the list does
        compare(root.settings.contextPolicy, "shift")
        verify(child(root, "changed_contextPolicy").visible)
        verify(child(root, "hint_contextPolicy").text.indexOf("shift:") >= 0)
        root.panel.canShiftContext = false
        verify(child(root, "hint_contextPolicy").text.indexOf("cannot shift") >= 0)
        verify(!root.settings.setValue("contextPolicy", "wrap"))
        compare(root.settings.contextPolicy, "shift")
    }

    function test_showsValues() {
        const root = make()
        compare(child(root, "field_temperature").text, "0.8")
        compare(child(root, "field_topK").text, "40")
        compare(child(root, "field_contextSize").text, "0")   // Automatic
        verify(child(root, "field_randomSeed").checked)
        verify(!child(root, "field_seed").enabled)
        verify(!child(root, "changed_temperature").visible)
        verify(!child(root, "error_temperature").visible)
        verify(!child(root, "resetAll").enabled)
        verify(child(root, "scopeNote").text.indexOf("next reply") >= 0)
    }

    function test_refusedValueShowsReason_data() {
        return [
            { tag: "top-p above 1", field: "topP", text: "1.5", reason: "Top-p" },
            { tag: "top-p zero", field: "topP", text: "0", reason: "greater than 0" },
            { tag: "negative temperature", field: "temperature", text: "-1", reason: "negative" },
            { tag: "top-k negative", field: "topK", text: "-3", reason: "Top-k" },
            { tag: "min-p above 1", field: "minP", text: "2", reason: "Min-p" },
            { tag: "repeat penalty zero", field: "repeatPenalty", text: "0", reason: "repeat penalty" },
            { tag: "repeat window", field: "repeatLastN", text: "-5", reason: "repeat window" },
            { tag: "reply length zero", field: "maxTokens", text: "0", reason: "at least 1 token" },
            { tag: "tiny context", field: "contextSize", text: "10", reason: "at least 64" },
            { tag: "not a number", field: "temperature", text: "hot", reason: "number" },
        ]
    }
    function test_refusedValueShowsReason(data) {
        const root = make()
        const before = root.settings[data.field]
        const input = child(root, "field_" + data.field)
        typeInto(input, data.text)
        compare(root.settings[data.field], before, "the old value stays")
        const error = child(root, "error_" + data.field)
        verify(error.visible, "the reason is shown")
        verify(error.text.indexOf(data.reason) >= 0, error.text)
        compare(input.text, data.text, "what the user typed stays to be corrected")

        // A valid value clears the reason.
        typeInto(input, data.field === "contextSize" ? "2048" : "1")
        verify(!error.visible)
    }

    function test_contextBeyondTheModel() {
        const root = make()
        root.settings.trainedContext = 2048
        const input = child(root, "field_contextSize")
        typeInto(input, "8192")
        compare(root.settings.contextSize, 0)  // refused: unchanged (Automatic)
        const error = child(root, "error_contextSize")
        verify(error.visible)
        verify(error.text.indexOf("2048") >= 0, error.text)
        root.settings.trainedContext = 0
        root.settings.memoryContextLimit = 3000
        typeInto(input, "3500")
        verify(error.text.indexOf("3000") >= 0, error.text)
        typeInto(input, "2048")
        compare(root.settings.contextSize, 2048)
        verify(!error.visible)
    }

    // The hint under the context size: the trained length, and the memory
    // limit only when it is the smaller (a recurrent model's cache can hold
    // far more than it was trained for); numbers in the locale's digits.
    function test_contextHint() {
        const root = make()
        const hint = child(root, "hint_contextSize")
        const count = (n) => Number(n).toLocaleString(Qt.locale(), "f", 0)
        root.settings.trainedContext = 32768
        root.settings.memoryContextLimit = 1048576
        const ends = (text) => verify(hint.text.endsWith(" " + text), hint.text)
        ends("This model: trained for " + count(32768) + ".")
        root.settings.memoryContextLimit = 12000
        ends("This model: trained for " + count(32768) + ", about " + count(12000) + " fit in memory.")
        root.settings.trainedContext = 0
        ends("This model: about " + count(12000) + " fit in memory.")
    }

    function test_changedIsMarkedAndReset() {
        const root = make()
        const input = child(root, "field_topP")
        const marker = child(root, "changed_topP")
        const reset = child(root, "reset_topP")
        typeInto(input, "0.5")
        compare(root.settings.topP, 0.5)
        verify(marker.visible)
        verify(reset.visible)
        verify(child(root, "resetAll").enabled)
        mouseClick(reset)
        compare(root.settings.topP, 0.95)
        compare(input.text, "0.95")
        verify(!marker.visible)
        verify(!reset.visible)

        // Against the chat's defaults, not the built-in values.
        root.defaults.temperature = 0.2
        verify(child(root, "changed_temperature").visible)
        mouseClick(child(root, "reset_temperature"))
        compare(root.settings.temperature, 0.2)
        verify(!child(root, "changed_temperature").visible)
    }

    // Every row's editors sit above its hint, none over it (seen in a real
    // window: the seed row's check box over its hint line).
    function test_editorsDoNotCoverTheHints_data() {
        return [{tag: "seed", editors: ["field_randomSeed", "field_seed"]},
                {tag: "temperature", editors: ["field_temperature"]},
                {tag: "contextSize", editors: ["field_contextSize"]}]
    }
    function test_editorsDoNotCoverTheHints(data) {
        const root = make()
        root.width = 420   // the drawer's width in the window
        const hint = child(root, "hint_" + data.tag)
        verify(hint.visible)
        waitForRendering(root.panel)
        const hintTop = hint.mapToItem(root, 0, 0).y
        for (const name of data.editors) {
            const editor = child(root, name)
            const bottom = editor.mapToItem(root, 0, editor.height).y
            verify(bottom <= hintTop + 0.5, name + " ends at " + bottom + ", the hint starts at " + hintTop)
        }
    }

    function test_seed() {
        const root = make()
        const random = child(root, "field_randomSeed")
        const seed = child(root, "field_seed")
        mouseClick(random)
        verify(!root.settings.randomSeed)
        verify(seed.enabled)
        verify(child(root, "changed_seed").visible)
        typeInto(seed, "1234")
        compare(root.settings.seed, 1234)
        typeInto(seed, "-1")
        compare(root.settings.seed, 1234)
        verify(child(root, "error_seed").visible)
        mouseClick(child(root, "reset_seed"))
        verify(root.settings.randomSeed)
        verify(!seed.enabled)
    }

    function test_systemPrompt() {
        const root = make()
        const area = child(root, "field_systemPrompt")
        area.forceActiveFocus()
        for (const c of "Be brief.")
            keyClick(c)
        child(root, "field_temperature").forceActiveFocus()  // leaving the field commits it
        compare(root.settings.systemPrompt, "Be brief.")
        verify(child(root, "changed_systemPrompt").visible)
        mouseClick(child(root, "reset_systemPrompt"))
        compare(root.settings.systemPrompt, "")
        compare(area.text, "")
    }

    // The chat format combo: "Automatic" first, then the known formats; a
    // choice reaches the settings, is marked and can be reset; the hint says
    // what "Automatic" does for the loaded model.
    function test_chatFormat() {
        const root = make()
        const combo = child(root, "field_chatFormat")
        const hint = child(root, "hint_chatFormat")
        compare(combo.count, root.settings.chatFormats.length)
        compare(combo.currentIndex, 0)
        compare(combo.displayText, "Automatic (from the model)")
        compare(combo.Accessible.name, "Chat format")
        verify(!child(root, "changed_chatFormat").visible)
        // No model loaded: what Automatic does in general.
        verify(hint.text.indexOf("own chat template") >= 0, hint.text)
        verify(hint.text.indexOf("plain text") >= 0, hint.text)
        // A model loaded: the model card's sentence (ModelCard.chatFormatText;
        // tst_chatformat checks that it follows the engine's decision).
        root.panel.automaticFormat = "ChatML, from the chat tokens in its vocabulary (it has no chat template)"
        verify(hint.text.indexOf("Automatic uses ChatML, from the chat tokens") >= 0, hint.text)
        root.panel.automaticFormat = "its own chat template"
        verify(hint.text.indexOf("Automatic uses its own chat template") >= 0, hint.text)
        verify(root.settings.chatFormats.length > 1, "the engine's chat formats are missing: only \"auto\"")

        combo.forceActiveFocus()
        keyClick(Qt.Key_Down)   // the next choice: the first built-in format
        compare(root.settings.chatFormat, root.settings.chatFormats[1])
        compare(combo.displayText, "ChatML")
        verify(child(root, "changed_chatFormat").visible)
        const reset = child(root, "reset_chatFormat")
        verify(reset.visible)

        // Set elsewhere (another chat's settings): the combo follows.
        root.settings.chatFormat = "phi3"
        compare(combo.displayText, "Phi-3")
        mouseClick(reset)
        compare(root.settings.chatFormat, "auto")
        compare(combo.currentIndex, 0)
        verify(!reset.visible)

        // Against the chat's defaults.
        root.defaults.chatFormat = "gemma"
        verify(child(root, "changed_chatFormat").visible)
        mouseClick(child(root, "resetAll"))
        compare(root.settings.chatFormat, "gemma")
        compare(combo.displayText, "Gemma")
    }

    function test_resetAll() {
        const root = make()
        root.settings.topK = 3
        root.settings.minP = 0.3
        root.settings.systemPrompt = "x"
        compare(root.settings.changedFields.length, 3)
        const button = child(root, "resetAll")
        verify(button.enabled)
        mouseClick(button)
        compare(root.settings.changedFields.length, 0)
        compare(child(root, "field_topK").text, "40")
    }

    function test_closeSignal() {
        const root = make()
        const spy = createTemporaryObject(spyComponent, testCase, { target: root.panel })
        mouseClick(child(root, "closeSettings"))
        compare(spy.count, 1)
    }

    Component {
        id: spyComponent
        SignalSpy { signalName: "closeRequested" }
    }
}
