import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Qt.labs.qmlmodels
import Burrow

// One message of the conversation: Markdown blocks (prose and code), who
// wrote it, its state, and its actions (copy; edit and resend on a user
// message; regenerate on the last reply).
Item {
    id: root

    required property int index
    required property int author
    // The message's Markdown blocks (MessageBlocks). The whole text is not a
    // property here: a streaming reply's text is read only when it is copied
    // or edited, so the view never holds it.
    required property MessageBlocks blocks
    required property int state
    required property string error
    required property string stats
    required property bool inContext
    required property bool memoryStartsHere
    required property bool isLast
    required property double messageId
    // The reply's reasoning (shown collapsed above the answer) and how long it took.
    required property string reasoning
    required property double reasoningMs
    // The reply ended because the context was full.
    required property bool contextFull
    // The reply's tool calls (ToolRunner), each shown as a card.
    required property var tools
    required property ChatController chat

    readonly property bool isUser: author === Chat.User
    // (The blocks go before the row when the list is cleared: none then.)
    readonly property int blockCount: root.blocks !== null ? root.blocks.count : 0
    function fullText() { return root.chat.conversation.messages.textAt(root.index) }
    property bool editing: false

    signal editRequested(int row, string text)

    implicitHeight: column.implicitHeight + 12

    Component {
        id: reasoningComponent
        ReasoningBlock {}
    }
    Binding {
        target: reasoningLoader.item
        property: "reasoning"
        value: root.reasoning
        when: reasoningLoader.item !== null
    }
    Binding {
        target: reasoningLoader.item
        property: "reasoningMs"
        value: root.reasoningMs
        when: reasoningLoader.item !== null
    }
    Binding {
        target: reasoningLoader.item
        property: "reasoningNow"
        value: root.state === Chat.Streaming && root.blockCount === 0
        when: reasoningLoader.item !== null
    }

    ColumnLayout {
        id: column
        anchors.left: parent.left
        anchors.right: parent.right
        anchors.top: parent.top
        anchors.margins: 6
        spacing: 4

        // Where the model's memory begins: older messages are left out of the prompt.
        RowLayout {
            objectName: "memoryMarker"
            visible: root.memoryStartsHere
            Layout.fillWidth: true
            Rectangle { Layout.fillWidth: true; height: 1; color: palette.mid }
            Label {
                text: qsTr("The model remembers from here; older messages no longer fit its context")
                opacity: 0.7
                font.pixelSize: 11
            }
            Rectangle { Layout.fillWidth: true; height: 1; color: palette.mid }
        }

        Rectangle {
            Layout.fillWidth: true
            Layout.leftMargin: root.isUser ? 48 : 0
            implicitHeight: body.implicitHeight + 16
            radius: 6
            color: root.isUser ? Qt.rgba(palette.highlight.r, palette.highlight.g, palette.highlight.b, 0.12)
                               : "transparent"
            border.color: root.isUser ? "transparent" : Qt.rgba(palette.text.r, palette.text.g, palette.text.b, 0.08)
            opacity: root.inContext ? 1 : 0.55

            ColumnLayout {
                id: body
                anchors.fill: parent
                anchors.margins: 8
                spacing: 6

                RowLayout {
                    Layout.fillWidth: true
                    Label {
                        text: root.isUser ? qsTr("You") : qsTr("Model")
                        font.bold: true
                    }
                    Label {
                        objectName: "messageState"
                        visible: text !== ""
                        opacity: 0.7
                        text: root.state === Chat.Stopped ? qsTr("stopped")
                            : root.state === Chat.Interrupted ? qsTr("interrupted")
                            : root.state === Chat.Failed ? qsTr("failed")
                            : root.state === Chat.Streaming ? qsTr("writing…") : ""
                    }
                    Item { Layout.fillWidth: true }
                    Label {
                        objectName: "messageStats"
                        text: root.stats !== "" || root.isUser ? root.stats
                            : (root.messageId > 0 && root.state !== Chat.Streaming ? qsTr("Details") : "")
                        opacity: 0.6
                        font.pixelSize: 11
                        // What wrote the reply (model, settings, tokens, speed), from the store.
                        HoverHandler { id: statsHover }
                        ToolTip.visible: statsHover.hovered && ToolTip.text !== ""
                        ToolTip.delay: 400
                        ToolTip.text: statsHover.hovered && !root.isUser ? root.chat.replyDetails(root.messageId) : ""
                    }
                    ToolButton {
                        text: qsTr("Copy")
                        visible: root.blockCount > 0
                        Accessible.name: qsTr("Copy this message")
                        onClicked: root.chat.copyToClipboard(root.fullText())
                    }
                    ToolButton {
                        objectName: "editButton"
                        text: qsTr("Edit")
                        visible: root.isUser && !root.editing
                        enabled: !root.chat.reply.active
                        Accessible.name: qsTr("Edit and resend this message")
                        onClicked: {
                            editor.text = root.fullText()
                            root.editing = true
                            editor.forceActiveFocus()
                        }
                    }
                    ToolButton {
                        objectName: "regenerateButton"
                        text: qsTr("Regenerate")
                        visible: !root.isUser && root.isLast && root.state !== Chat.Streaming
                        enabled: root.chat.canRegenerate
                        Accessible.name: qsTr("Write this reply again")
                        onClicked: root.chat.regenerate()
                    }
                }

                Label {
                    objectName: "waitingLabel"
                    visible: root.state === Chat.Streaming && root.blockCount === 0 && root.reasoning === ""
                    text: qsTr("Thinking…")
                    opacity: 0.6
                }

                // The reasoning, collapsed above the answer (made only for a
                // reply that has some; its values are bound below).
                Loader {
                    id: reasoningLoader
                    Layout.fillWidth: true
                    active: !root.isUser && root.reasoning !== ""
                    visible: active
                    sourceComponent: reasoningComponent
                }

                // One delegate per block, by its kind (MessageBlocks: "code",
                // "text" Markdown, "plain" as written). While a reply streams
                // only the last block changes (and new ones are added): the
                // blocks before it are never rebuilt.
                Column {
                    Layout.fillWidth: true
                    visible: !root.editing
                    spacing: 0
                    Repeater {
                        model: root.blocks
                        delegate: DelegateChooser {
                            role: "kind"
                            DelegateChoice {
                                roleValue: "code"
                                CodePart {}
                            }
                            DelegateChoice {
                                ProseBlock {}
                            }
                        }
                        // Copy takes the whole code box, of which a part may be only a piece.
                        onItemAdded: (index, item) => {
                            const part = item as CodePart
                            if (part !== null)
                                part.copyRequested.connect(row => root.chat.copyToClipboard(root.blocks.codeAt(row)))
                        }
                    }
                }

                // One card per tool call; the buttons act on this message's row.
                Repeater {
                    model: root.tools
                    delegate: ToolCard {
                        required property var modelData
                        required property int index
                        Layout.fillWidth: true
                        call: modelData
                        callIndex: index
                    }
                    onItemAdded: (index, item) => {
                        const card = item as ToolCard
                        if (card !== null) {
                            card.row = Qt.binding(() => root.index)
                            card.chat = root.chat
                        }
                    }
                }

                Label {
                    visible: root.state === Chat.Failed && root.error !== ""
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    color: Theme.negativeText
                    text: root.error
                }

                Label {
                    objectName: "contextFullMark"
                    visible: root.contextFull
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    opacity: 0.8
                    font.italic: true
                    text: !root.chat.models.hasModel || root.chat.models.model.canShiftContext
                          ? qsTr("The context is full: the reply ends here. A larger context, or \"Shift\" in "
                                 + "this chat's settings, lets the next reply go on.")
                          : qsTr("The context is full: the reply ends here. This model cannot shift its context; "
                                 + "a larger context or a new chat gives the next reply room.")
                }

                ColumnLayout {
                    visible: root.editing
                    Layout.fillWidth: true
                    TextArea {
                        id: editor
                        objectName: "messageEditor"
                        Layout.fillWidth: true
                        wrapMode: TextEdit.Wrap
                        Accessible.name: qsTr("Edited message")
                        Keys.onEscapePressed: root.editing = false
                    }
                    RowLayout {
                        Button {
                            text: qsTr("Send again")
                            enabled: editor.text.trim() !== "" && !root.chat.reply.active
                            Accessible.name: qsTr("Send the edited message")
                            onClicked: {
                                root.editing = false
                                root.editRequested(root.index, editor.text)
                            }
                        }
                        Button {
                            text: qsTr("Cancel")
                            Accessible.name: qsTr("Cancel editing")
                            onClicked: root.editing = false
                        }
                    }
                }
            }
        }
    }
}
