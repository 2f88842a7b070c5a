import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Burrow

// The settings of one chat (opened from the chat header). Each field shows
// whether it differs from the defaults for new chats, with a reset; a value
// that is refused keeps the old one and the reason appears under the field.
// Changes apply to the next reply. The fields, their labels and hints come
// from the settings field table (ChatSettings.fields).
Pane {
    id: root
    objectName: "chatSettingsPanel"

    // The chat's settings (its `defaults` are the ones for new chats).
    property ChatSettings settings
    // Show "Use for new chats" (the app passes DefaultSettings).
    property DefaultSettings defaultSettings: null
    // What "Automatic" does for the loaded model, in the model card's words
    // (ModelCard.chatFormatText; "" when no model is loaded).
    property string automaticFormat
    // The loaded model's template reads enable_thinking / reasoning_effort
    // (ModelCard.readsEnableThinking / readsReasoningEffort): only then are
    // Thinking and Reasoning effort shown.
    property bool showThinking: false
    // Settings → Tools has servers: the Tools switch is shown.
    property bool showTools: false
    property bool showReasoningEffort: false
    // The settings new chats start with (in the "Settings for new chats"
    // dialog, which has its own title and Close button), not one chat's.
    property bool forNewChats: false
    // The loaded model can shift a full context (ModelCard.canShiftContext:
    // not a model with recurrent layers, whose replies always stop there).
    property bool canShiftContext: true

    signal closeRequested()

    // Bumped by reload(): the fields' bindings read it, so they show the
    // stored values again.
    property int generation: 0
    // The stored values again, the reasons for refused input gone: called
    // when the panel opens and when the language changes, so a refused
    // value never stays in its field ("the field keeps its old value").
    function reload() {
        if (root.settings)
            root.settings.clearRefusals()
        root.generation++
    }
    Connections {
        target: Language
        function onChanged() { root.reload() }
    }

    readonly property var fields: settings ? settings.fields : []
    function fieldInfo(name) {
        const found = root.fields.find(f => f.name === name)
        return found !== undefined ? found : { name: name, label: "", hint: "" }
    }
    function labelOf(name) { return qsTranslate("ChatSettings", root.fieldInfo(name).label) }
    function hintOf(name) {
        const hint = root.fieldInfo(name).hint
        return hint !== "" ? qsTranslate("ChatSettings", hint) : ""
    }
    function valueText(name) { return root.generation >= 0 && root.settings ? String(root.settings[name]) : "" }

    // The labels are C++'s tr() ("Automatic (from the model)"): read again
    // when the language changes (Language.current).
    readonly property var formatChoices: (settings && Language.current !== "" ? settings.chatFormats : ["auto"]).map(
        name => ({ value: name, text: root.settings ? root.settings.chatFormatLabel(name) : name }))
    function formatIndex() {
        if (!settings)
            return 0
        const index = formatChoices.findIndex(choice => choice.value === settings.chatFormat)
        return index >= 0 ? index : 0
    }
    readonly property var effortChoices: [
        { value: "low", text: qsTr("Low") },
        { value: "medium", text: qsTr("Medium") },
        { value: "high", text: qsTr("High") }
    ]
    readonly property var kvChoices: [
        { value: "f16", text: qsTr("Full (16-bit)") },
        { value: "q8_0", text: qsTr("Compact (8-bit, half the memory)") }
    ]
    readonly property var policyChoices: [
        { value: "stop", text: qsTr("Stop the reply") },
        { value: "shift", text: qsTr("Shift: forget the oldest messages and go on") }
    ]
    // Speculative decoding: who guesses the tokens the model checks in one pass.
    readonly property var specChoices: [
        { value: "auto", text: qsTr("Automatic") },
        { value: "ngram", text: qsTr("Prompt lookup (n-gram)") },
        { value: "draft", text: qsTr("Draft model…") },
        { value: "off", text: qsTr("Off") }
    ]
    function specIndex() {
        const index = settings ? specChoices.findIndex(choice => choice.value === settings.speculative) : -1
        return index >= 0 ? index : 0
    }
    function specHint() {
        if (root.generation >= 0 && root.settings && root.settings.speculative === "draft" && root.settings.draftModel !== "")
            return qsTr("Drafted by %1 (its weights, beside the model's). Choose “Draft model…” again for another file.")
                       .arg(root.settings.draftModelText())
        return root.hintOf("speculative")
    }
    function policyIndex() {
        const index = settings ? policyChoices.findIndex(choice => choice.value === settings.contextPolicy) : -1
        return index >= 0 ? index : 0
    }
    function kvIndex() {
        const index = settings ? kvChoices.findIndex(choice => choice.value === settings.kvCacheType) : -1
        return index >= 0 ? index : 0
    }
    function effortIndex() {
        const index = settings ? effortChoices.findIndex(choice => choice.value === settings.reasoningEffort) : -1
        return index >= 0 ? index : 1
    }
    function automaticFormatHint() {
        if (root.automaticFormat === "")
            return qsTr("Automatic uses the model's own chat template, else the chat format its vocabulary shows, "
                        + "else plain text. Choose a format if replies ramble or never stop.")
        return qsTr("For this model, Automatic uses %1.").arg(root.automaticFormat)
    }
    function contextHint() {
        if (!settings)
            return ""
        const parts = []
        const count = (n) => Number(n).toLocaleString(Qt.locale(), "f", 0)   // 32,768
        const trained = settings.trainedContext, memory = settings.memoryContextLimit
        if (trained > 0)
            parts.push(qsTr("trained for %1").arg(count(trained)))
        // Memory matters only when it allows less than the model was trained
        // for (a recurrent model's small cache can hold far more).
        if (memory > 0 && (trained <= 0 || memory < trained))
            parts.push(qsTr("about %1 fit in memory").arg(count(memory)))
        return parts.length > 0 ? qsTr("This model: %1.").arg(parts.join(", ")) : ""
    }

    ScrollView {
        id: scroll
        anchors.fill: parent
        clip: true
        contentWidth: availableWidth
        // The scroll bar beside the fields, not over their right edge.
        rightPadding: scroll.ScrollBar.vertical.visible ? scroll.ScrollBar.vertical.width + 4 : 0

        ColumnLayout {
            width: scroll.availableWidth
            spacing: 10

            RowLayout {
                Layout.fillWidth: true
                visible: !root.forNewChats
                Label {
                    Layout.fillWidth: true
                    text: qsTr("Chat settings")
                    font.bold: true
                    font.pixelSize: 18
                    Accessible.role: Accessible.Heading
                }
                ToolButton {
                    objectName: "closeSettings"
                    text: "✕"
                    Accessible.name: qsTr("Close chat settings")
                    onClicked: root.closeRequested()
                }
            }
            Label {
                objectName: "scopeNote"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                opacity: 0.75
                text: root.forNewChats
                      ? qsTr("New chats start with these settings; the chats you have keep their own. "
                             + "A dot marks a value that differs from Burrow's built-in settings.")
                      : qsTr("These settings belong to this chat only. Changes apply to the next reply. "
                             + "A dot marks a value that differs from the defaults for new chats.")
            }

            // The number fields, in the table's order.
            Repeater {
                model: root.fields.filter(f => f.numberRow)
                delegate: NumberSettingRow {}
                // What a row needs of the panel, bound here where the panel is in reach.
                onItemAdded: (index, item) => {
                    const row = item as NumberSettingRow
                    row.settings = Qt.binding(() => root.settings)
                    row.generation = Qt.binding(() => root.generation)
                    row.extraHint = Qt.binding(() => row.field === "contextSize" ? root.contextHint() : "")
                }
            }

            // Seed: random for each reply, or fixed to repeat a reply exactly.
            SettingRow {
                id: seedRow
                settings: root.settings
                field: "seed"
                fields: ["randomSeed", "seed"]
                label: root.labelOf("seed")
                hint: root.settings && root.settings.randomSeed ? root.hintOf("randomSeed") : root.hintOf("seed")
                onReset: seedInput.text = Qt.binding(() => root.valueText("seed"))

                CheckBox {
                    objectName: "field_randomSeed"
                    text: root.labelOf("randomSeed")
                    checked: root.settings ? root.settings.randomSeed : true
                    enabled: root.settings !== null
                    onToggled: root.settings.randomSeed = checked
                }
                TextField {
                    id: seedInput
                    objectName: "field_seed"
                    Layout.preferredWidth: 110
                    horizontalAlignment: TextInput.AlignRight
                    enabled: root.settings !== null && !root.settings.randomSeed
                    text: root.valueText("seed")
                    Accessible.name: seedRow.label
                    onEditingFinished: {
                        if (root.settings && root.settings.setValue("seed", text))
                            text = Qt.binding(() => root.valueText("seed"))
                    }
                }
            }

            SettingRow {
                settings: root.settings
                field: "systemPrompt"
                label: root.labelOf("systemPrompt")
                onReset: systemPrompt.text = Qt.binding(() => root.settings ? root.settings.systemPrompt : "")
                wideEditor: TextArea {
                    id: systemPrompt
                    objectName: "field_systemPrompt"
                    Layout.fillWidth: true
                    Layout.minimumHeight: 80
                    wrapMode: TextEdit.Wrap
                    placeholderText: root.hintOf("systemPrompt")
                    text: root.generation >= 0 && root.settings ? root.settings.systemPrompt : ""
                    enabled: root.settings !== null
                    Accessible.name: root.labelOf("systemPrompt")
                    onEditingFinished: {
                        if (root.settings && root.settings.systemPrompt !== text) {
                            root.settings.systemPrompt = text
                            text = Qt.binding(() => root.settings ? root.settings.systemPrompt : "")
                        }
                    }
                }
            }

            // Chat format: the model's own template, or a known format instead.
            SettingRow {
                id: formatRow
                settings: root.settings
                field: "chatFormat"
                label: root.labelOf("chatFormat")
                hint: root.automaticFormatHint()
                onReset: formatBox.currentIndex = Qt.binding(() => root.formatIndex())

                ComboBox {
                    id: formatBox
                    objectName: "field_chatFormat"
                    Layout.preferredWidth: 220
                    model: root.formatChoices
                    textRole: "text"
                    valueRole: "value"
                    currentIndex: root.formatIndex()
                    enabled: root.settings !== null
                    Accessible.name: formatRow.label
                    Accessible.description: formatRow.error !== "" ? formatRow.error : formatRow.hint
                    onActivated: index => {
                        if (root.settings)
                            root.settings.setValue("chatFormat", root.formatChoices[index].value)
                        currentIndex = Qt.binding(() => root.formatIndex())
                    }
                }
            }

            // Thinking on or off (Qwen3's enable_thinking).
            SettingRow {
                id: thinkingRow
                objectName: "row_thinking"
                visible: root.showThinking
                settings: root.settings
                field: "thinking"
                label: root.labelOf("thinking")
                hint: root.hintOf("thinking")
                onReset: thinkingSwitch.checked = Qt.binding(() => root.settings ? root.settings.thinking : true)

                Switch {
                    id: thinkingSwitch
                    objectName: "field_thinking"
                    checked: root.settings ? root.settings.thinking : true
                    enabled: root.settings !== null
                    Accessible.name: thinkingRow.label
                    Accessible.description: thinkingRow.hint
                    onToggled: root.settings.thinking = checked
                }
            }

            // The tools of Settings → Tools in this chat.
            SettingRow {
                id: toolsRow
                objectName: "row_tools"
                visible: root.showTools
                settings: root.settings
                field: "tools"
                label: root.labelOf("tools")
                hint: root.hintOf("tools")
                onReset: toolsSwitch.checked = Qt.binding(() => root.settings ? root.settings.tools : true)

                Switch {
                    id: toolsSwitch
                    objectName: "field_tools"
                    checked: root.settings ? root.settings.tools : true
                    enabled: root.settings !== null
                    Accessible.name: toolsRow.label
                    Accessible.description: toolsRow.hint
                    onToggled: root.settings.tools = checked
                }
            }

            // Reasoning effort low / medium / high (gpt-oss's reasoning_effort).
            SettingRow {
                id: effortRow
                objectName: "row_reasoningEffort"
                visible: root.showReasoningEffort
                settings: root.settings
                field: "reasoningEffort"
                label: root.labelOf("reasoningEffort")
                hint: root.hintOf("reasoningEffort")
                onReset: effortBox.currentIndex = Qt.binding(() => root.effortIndex())

                ComboBox {
                    id: effortBox
                    objectName: "field_reasoningEffort"
                    Layout.preferredWidth: 140
                    model: root.effortChoices
                    textRole: "text"
                    valueRole: "value"
                    currentIndex: root.effortIndex()
                    enabled: root.settings !== null
                    Accessible.name: effortRow.label
                    Accessible.description: effortRow.error !== "" ? effortRow.error : effortRow.hint
                    onActivated: index => {
                        if (root.settings)
                            root.settings.setValue("reasoningEffort", root.effortChoices[index].value)
                        currentIndex = Qt.binding(() => root.effortIndex())
                    }
                }
            }

            // Context memory: the KV cache in F16 or Q8_0 (half the memory).
            SettingRow {
                id: kvRow
                objectName: "row_kvCacheType"
                settings: root.settings
                field: "kvCacheType"
                label: root.labelOf("kvCacheType")
                hint: root.hintOf("kvCacheType")
                onReset: kvBox.currentIndex = Qt.binding(() => root.kvIndex())

                ComboBox {
                    id: kvBox
                    objectName: "field_kvCacheType"
                    Layout.preferredWidth: 240
                    model: root.kvChoices
                    textRole: "text"
                    valueRole: "value"
                    currentIndex: root.kvIndex()
                    enabled: root.settings !== null
                    Accessible.name: kvRow.label
                    Accessible.description: kvRow.error !== "" ? kvRow.error : kvRow.hint
                    onActivated: index => {
                        if (root.settings)
                            root.settings.setValue("kvCacheType", root.kvChoices[index].value)
                        currentIndex = Qt.binding(() => root.kvIndex())
                    }
                }
            }

            // Speculative decoding: Automatic, prompt lookup, a draft model
            // (picked in a file dialog), off. Replies say the same either way.
            SettingRow {
                id: specRow
                objectName: "row_speculative"
                settings: root.settings
                field: "speculative"
                fields: ["speculative", "draftModel"]
                label: root.labelOf("speculative")
                hint: root.specHint()
                onReset: specBox.currentIndex = Qt.binding(() => root.specIndex())

                ComboBox {
                    id: specBox
                    objectName: "field_speculative"
                    Layout.preferredWidth: 240
                    model: root.specChoices
                    textRole: "text"
                    valueRole: "value"
                    currentIndex: root.specIndex()
                    enabled: root.settings !== null
                    Accessible.name: specRow.label
                    Accessible.description: specRow.error !== "" ? specRow.error : specRow.hint
                    onActivated: index => {
                        const value = root.specChoices[index].value
                        if (value === "draft")
                            draftDialog.open()
                        else if (root.settings)
                            root.settings.setValue("speculative", value)
                        currentIndex = Qt.binding(() => root.specIndex())
                    }
                }
            }
            FileDialog {
                id: draftDialog
                objectName: "draftModelDialog"
                title: qsTr("Choose a draft model (Ctrl+L: type a path)")
                nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
                onAccepted: {
                    if (root.settings)
                        root.settings.chooseDraftModel(draftDialog.selectedFile)
                }
            }

            // What a reply does when the context is full.
            SettingRow {
                id: policyRow
                objectName: "row_contextPolicy"
                settings: root.settings
                field: "contextPolicy"
                label: root.labelOf("contextPolicy")
                hint: root.canShiftContext ? root.hintOf("contextPolicy")
                                           : qsTr("This model cannot shift its context (it keeps a state of every "
                                                  + "token instead of keys and values): its replies stop when it is full.")
                onReset: policyBox.currentIndex = Qt.binding(() => root.policyIndex())

                ComboBox {
                    id: policyBox
                    objectName: "field_contextPolicy"
                    Layout.preferredWidth: 240
                    model: root.policyChoices
                    textRole: "text"
                    valueRole: "value"
                    currentIndex: root.policyIndex()
                    enabled: root.settings !== null
                    Accessible.name: policyRow.label
                    Accessible.description: policyRow.error !== "" ? policyRow.error : policyRow.hint
                    onActivated: index => {
                        if (root.settings)
                            root.settings.setValue("contextPolicy", root.policyChoices[index].value)
                        currentIndex = Qt.binding(() => root.policyIndex())
                    }
                }
            }

            RowLayout {
                Layout.fillWidth: true
                Button {
                    objectName: "resetAll"
                    text: qsTr("Reset all to defaults")
                    enabled: root.settings !== null && root.settings.changedFields.length > 0
                    onClicked: root.settings.resetAll()
                }
                Button {
                    objectName: "useForNewChats"
                    text: qsTr("Use for new chats")
                    visible: root.defaultSettings !== null
                    enabled: root.settings !== null && root.settings.valid
                    Accessible.description: qsTr("New chats will start with these settings")
                    onClicked: root.defaultSettings.takeFrom(root.settings)
                }
            }
        }
    }
}
