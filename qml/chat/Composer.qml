import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Where the user writes: Enter sends, Shift+Enter starts a new line, Tab
// moves on to the next control (Esc stopping a reply is the window's Stop
// action). Without a model it says how
// to get one; for a model that continues text (no chat format) it says so.
Pane {
    id: root
    objectName: "composer"

    property bool hasModel: false
    property bool busy: false          // a model is loading
    property bool generating: false
    // Automatic gives the loaded model plain text to continue (ModelCard.continuesText).
    property bool continuesText: false
    property alias text: input.text

    // A chat was just deleted and Undo is offered: Ctrl+Z here brings it back
    // (the text field would otherwise take Ctrl+Z for its own typing).
    property bool undoDeletePending: false

    signal sendRequested(string text)
    signal stopRequested()
    signal undoDeleteRequested()

    readonly property bool canSend: hasModel && !busy && !generating && input.text.trim().length > 0

    function send() {
        if (canSend)
            sendRequested(input.text)
    }
    function clear() { input.clear() }
    function focusInput() { input.forceActiveFocus() }

    padding: 8

    RowLayout {
        anchors.fill: parent
        spacing: 8

        ScrollView {
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(Math.max(input.implicitHeight, 40), 180)
            background: Rectangle {
                color: palette.base
                radius: 4
                border.color: input.activeFocus ? palette.highlight : palette.mid
            }

            TextArea {
                id: input
                objectName: "composerInput"
                wrapMode: TextEdit.Wrap
                focus: true
                placeholderText: !root.hasModel
                    ? qsTr("No model yet: drop a .gguf file on this window or press Ctrl+O to open one.")
                    : root.continuesText
                        ? qsTr("Write the beginning of a text; the model continues it. Enter sends, Shift+Enter adds a line.")
                        : qsTr("Message the model. Enter sends, Shift+Enter adds a line.")
                Accessible.name: qsTr("Message")
                Accessible.description: placeholderText

                // Tab and Shift+Tab move the focus on, as in other chat apps
                // (a message rarely wants a tab character; Shift+Enter adds a line).
                Keys.onTabPressed: (event) => {
                    input.nextItemInFocusChain(true).forceActiveFocus(Qt.TabFocusReason)
                    event.accepted = true
                }
                Keys.onBacktabPressed: (event) => {
                    input.nextItemInFocusChain(false).forceActiveFocus(Qt.BacktabFocusReason)
                    event.accepted = true
                }
                Keys.onPressed: (event) => {
                    if (event.matches(StandardKey.Undo) && root.undoDeletePending) {
                        event.accepted = true
                        root.undoDeleteRequested()
                    } else if (event.key === Qt.Key_Return || event.key === Qt.Key_Enter) {
                        event.accepted = true
                        if (event.modifiers & Qt.ShiftModifier) {
                            // A plain "\n" (TextArea's own would be a line separator, U+2028).
                            input.remove(input.selectionStart, input.selectionEnd)
                            input.insert(input.cursorPosition, "\n")
                        } else {
                            root.send()
                        }
                    }
                }
            }
        }
        Button {
            objectName: "composerButton"
            Layout.alignment: Qt.AlignBottom
            text: root.generating ? qsTr("Stop") : qsTr("Send")
            enabled: root.generating || root.canSend
            Accessible.name: root.generating ? qsTr("Stop the reply") : qsTr("Send the message")
            onClicked: root.generating ? root.stopRequested() : root.send()
        }
    }
}
