import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// The settings of one chat (opened from the chat header). Each field shows
// whether it differs from the defaults for new chats, with a reset; a value
// that is refused keeps the old one and the reason appears under the field.
// Changes apply to the next reply.
Pane {
    id: root
    objectName: "chatSettingsPanel"

    // The chat's settings (its `defaults` are the ones for new chats).
    property ChatSettings settings
    // Show "Use for new chats" (the app passes DefaultSettings).
    property QtObject defaultSettings: null

    signal closeRequested()

    // Number fields, in panel order.
    readonly property var numberFields: [
        { name: "temperature", label: qsTr("Temperature"),
          hint: qsTr("0 always picks the most likely word; higher values give more varied replies.") },
        { name: "topP", label: qsTr("Top-p"),
          hint: qsTr("Keep the most likely words that together reach this probability (1: off).") },
        { name: "topK", label: qsTr("Top-k"),
          hint: qsTr("Keep only this many most likely words (0: off).") },
        { name: "minP", label: qsTr("Min-p"),
          hint: qsTr("Drop words less likely than this share of the most likely one (0: off).") },
        { name: "repeatPenalty", label: qsTr("Repeat penalty"),
          hint: qsTr("Above 1 makes repeating recent words less likely (1: off).") },
        { name: "repeatLastN", label: qsTr("Repeat window"),
          hint: qsTr("How many recent tokens the penalty looks at (-1: the whole context).") },
        { name: "maxTokens", label: qsTr("Maximum reply length"),
          hint: qsTr("In tokens (-1: until the model stops).") },
        { name: "contextSize", label: qsTr("Context size"),
          hint: qsTr("How many tokens of the conversation the model sees.") },
    ]

    // The chat format choices: "auto", then the built-in formats (their
    // names are the families' own, not translated).
    readonly property var formatLabels: ({
        chatml: "ChatML", llama2: "Llama 2", llama3: "Llama 3", gemma: "Gemma",
        phi3: "Phi-3", mistral: "Mistral", zephyr: "Zephyr"
    })
    function formatLabel(name) {
        if (name === "auto")
            return qsTr("Automatic (from the model)")
        return formatLabels[name] !== undefined ? formatLabels[name] : name
    }
    readonly property var formatChoices: (settings ? settings.chatFormats : ["auto"]).map(
        name => ({ value: name, text: formatLabel(name) }))
    function formatIndex() {
        if (!settings)
            return 0
        const index = formatChoices.findIndex(choice => choice.value === settings.chatFormat)
        return index >= 0 ? index : 0
    }
    // What "Automatic" does for the loaded model (settings.automaticChatFormat).
    function automaticFormatHint() {
        const picked = settings ? settings.automaticChatFormat : ""
        if (picked === "")
            return qsTr("Automatic uses the model's own chat template (plain text for a model without one). "
                        + "Choose a format if replies ramble or never stop.")
        if (picked === "plain")
            return qsTr("This model has no chat template: Automatic gives it the conversation as plain text.")
        if (picked === "template")
            return qsTr("Automatic uses this model's own chat template.")
        return qsTr("Automatic uses the %1 format for this model (its own template cannot be used).")
                   .arg(formatLabel(picked))
    }

    function contextHint() {
        if (!settings)
            return ""
        const parts = []
        if (settings.trainedContext > 0)
            parts.push(qsTr("trained for %1").arg(settings.trainedContext))
        if (settings.memoryContextLimit > 0)
            parts.push(qsTr("about %1 fit in memory").arg(settings.memoryContextLimit))
        return parts.length > 0 ? qsTr("This model: %1.").arg(parts.join(", ")) : ""
    }

    ScrollView {
        id: scroll
        anchors.fill: parent
        clip: true
        contentWidth: availableWidth

        ColumnLayout {
            width: scroll.availableWidth
            spacing: 10

            RowLayout {
                Layout.fillWidth: true
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
                text: qsTr("These settings belong to this chat only. Changes apply to the next reply. "
                           + "A dot marks a value that differs from the defaults for new chats.")
            }

            Repeater {
                model: root.numberFields
                delegate: ColumnLayout {
                    id: row
                    required property var modelData
                    readonly property string field: modelData.name
                    readonly property bool changed: root.settings !== null
                                                    && root.settings.changedFields.indexOf(field) >= 0
                    readonly property string error: root.settings && root.settings.errors[field]
                                                    ? root.settings.errors[field] : ""
                    Layout.fillWidth: true
                    spacing: 2

                    function restoreText() {
                        input.text = Qt.binding(() => root.settings ? String(root.settings[row.field]) : "")
                    }

                    RowLayout {
                        Layout.fillWidth: true
                        Label {
                            objectName: "changed_" + row.field
                            text: "●"
                            color: root.palette.highlight
                            visible: row.changed
                            Accessible.name: qsTr("Differs from the default")
                        }
                        Label {
                            Layout.fillWidth: true
                            text: row.modelData.label
                            font.bold: row.changed
                        }
                        TextField {
                            id: input
                            objectName: "field_" + row.field
                            Layout.preferredWidth: 110
                            horizontalAlignment: TextInput.AlignRight
                            inputMethodHints: Qt.ImhFormattedNumbersOnly
                            text: root.settings ? String(root.settings[row.field]) : ""
                            enabled: root.settings !== null
                            Accessible.name: row.modelData.label
                            Accessible.description: row.error !== "" ? row.error : row.modelData.hint
                            onEditingFinished: {
                                if (root.settings && root.settings.setValue(row.field, text))
                                    row.restoreText()
                            }
                        }
                        Button {
                            objectName: "reset_" + row.field
                            text: qsTr("Reset")
                            flat: true
                            visible: row.changed || row.error !== ""
                            Accessible.name: qsTr("Reset %1 to the default").arg(row.modelData.label)
                            ToolTip.visible: hovered
                            ToolTip.text: root.settings
                                          ? qsTr("Default: %1").arg(root.settings.defaultValue(row.field)) : ""
                            onClicked: {
                                root.settings.resetField(row.field)
                                row.restoreText()
                            }
                        }
                    }
                    Label {
                        objectName: "error_" + row.field
                        Layout.fillWidth: true
                        visible: row.error !== ""
                        text: row.error
                        color: "#c62828"
                        wrapMode: Text.Wrap
                        Accessible.role: Accessible.AlertMessage
                        Accessible.name: row.error
                    }
                    Label {
                        Layout.fillWidth: true
                        visible: row.error === ""
                        text: row.field === "contextSize" && root.contextHint() !== ""
                              ? row.modelData.hint + " " + root.contextHint() : row.modelData.hint
                        wrapMode: Text.Wrap
                        opacity: 0.6
                        font.pixelSize: 11
                    }
                }
            }

            // Seed: random for each reply, or fixed to repeat a reply exactly.
            ColumnLayout {
                id: seedRow
                Layout.fillWidth: true
                spacing: 2
                readonly property bool changed: root.settings !== null
                    && (root.settings.changedFields.indexOf("seed") >= 0
                        || root.settings.changedFields.indexOf("randomSeed") >= 0)
                readonly property string error: root.settings && root.settings.errors["seed"]
                                                ? root.settings.errors["seed"] : ""
                RowLayout {
                    Layout.fillWidth: true
                    Label {
                        objectName: "changed_seed"
                        text: "●"
                        color: root.palette.highlight
                        visible: seedRow.changed
                        Accessible.name: qsTr("Differs from the default")
                    }
                    CheckBox {
                        objectName: "field_randomSeed"
                        Layout.fillWidth: true
                        text: qsTr("Random seed")
                        font.bold: seedRow.changed
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
                        text: root.settings ? String(root.settings.seed) : ""
                        Accessible.name: qsTr("Seed")
                        onEditingFinished: {
                            if (root.settings && root.settings.setValue("seed", text))
                                text = Qt.binding(() => root.settings ? String(root.settings.seed) : "")
                        }
                    }
                    Button {
                        objectName: "reset_seed"
                        text: qsTr("Reset")
                        flat: true
                        visible: seedRow.changed || seedRow.error !== ""
                        Accessible.name: qsTr("Reset the seed to the default")
                        onClicked: {
                            root.settings.resetField("randomSeed")
                            root.settings.resetField("seed")
                            seedInput.text = Qt.binding(() => root.settings ? String(root.settings.seed) : "")
                        }
                    }
                }
                Label {
                    objectName: "error_seed"
                    Layout.fillWidth: true
                    visible: seedRow.error !== ""
                    text: seedRow.error
                    color: "#c62828"
                    wrapMode: Text.Wrap
                    Accessible.role: Accessible.AlertMessage
                    Accessible.name: seedRow.error
                }
            }

            // System prompt.
            RowLayout {
                Layout.fillWidth: true
                Label {
                    objectName: "changed_systemPrompt"
                    text: "●"
                    color: root.palette.highlight
                    visible: root.settings !== null && root.settings.changedFields.indexOf("systemPrompt") >= 0
                    Accessible.name: qsTr("Differs from the default")
                }
                Label {
                    Layout.fillWidth: true
                    text: qsTr("System prompt")
                }
                Button {
                    objectName: "reset_systemPrompt"
                    text: qsTr("Reset")
                    flat: true
                    visible: root.settings !== null && root.settings.changedFields.indexOf("systemPrompt") >= 0
                    Accessible.name: qsTr("Reset the system prompt to the default")
                    onClicked: {
                        root.settings.resetField("systemPrompt")
                        systemPrompt.text = Qt.binding(() => root.settings ? root.settings.systemPrompt : "")
                    }
                }
            }
            TextArea {
                id: systemPrompt
                objectName: "field_systemPrompt"
                Layout.fillWidth: true
                Layout.minimumHeight: 80
                wrapMode: TextEdit.Wrap
                placeholderText: qsTr("Instructions the model sees before the conversation")
                text: root.settings ? root.settings.systemPrompt : ""
                enabled: root.settings !== null
                Accessible.name: qsTr("System prompt")
                onEditingFinished: {
                    if (root.settings && root.settings.systemPrompt !== text) {
                        root.settings.systemPrompt = text
                        text = Qt.binding(() => root.settings ? root.settings.systemPrompt : "")
                    }
                }
            }

            // Chat format: the model's own template, or a known format instead.
            ColumnLayout {
                id: formatRow
                Layout.fillWidth: true
                spacing: 2
                readonly property bool changed: root.settings !== null
                                                && root.settings.changedFields.indexOf("chatFormat") >= 0
                readonly property string error: root.settings && root.settings.errors["chatFormat"]
                                                ? root.settings.errors["chatFormat"] : ""
                RowLayout {
                    Layout.fillWidth: true
                    Label {
                        objectName: "changed_chatFormat"
                        text: "●"
                        color: root.palette.highlight
                        visible: formatRow.changed
                        Accessible.name: qsTr("Differs from the default")
                    }
                    Label {
                        Layout.fillWidth: true
                        text: qsTr("Chat format")
                        font.bold: formatRow.changed
                    }
                    ComboBox {
                        id: formatBox
                        objectName: "field_chatFormat"
                        Layout.preferredWidth: 220
                        model: root.formatChoices
                        textRole: "text"
                        valueRole: "value"
                        currentIndex: root.formatIndex()
                        enabled: root.settings !== null
                        Accessible.name: qsTr("Chat format")
                        Accessible.description: formatRow.error !== "" ? formatRow.error : root.automaticFormatHint()
                        onActivated: index => {
                            if (root.settings)
                                root.settings.setValue("chatFormat", root.formatChoices[index].value)
                            currentIndex = Qt.binding(() => root.formatIndex())
                        }
                    }
                    Button {
                        objectName: "reset_chatFormat"
                        text: qsTr("Reset")
                        flat: true
                        visible: formatRow.changed || formatRow.error !== ""
                        Accessible.name: qsTr("Reset the chat format to the default")
                        onClicked: {
                            root.settings.resetField("chatFormat")
                            formatBox.currentIndex = Qt.binding(() => root.formatIndex())
                        }
                    }
                }
                Label {
                    objectName: "error_chatFormat"
                    Layout.fillWidth: true
                    visible: formatRow.error !== ""
                    text: formatRow.error
                    color: "#c62828"
                    wrapMode: Text.Wrap
                    Accessible.role: Accessible.AlertMessage
                    Accessible.name: formatRow.error
                }
                Label {
                    objectName: "hint_chatFormat"
                    Layout.fillWidth: true
                    visible: formatRow.error === ""
                    text: root.automaticFormatHint()
                    wrapMode: Text.Wrap
                    opacity: 0.6
                    font.pixelSize: 11
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
