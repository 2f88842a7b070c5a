import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// The sidebar's list of chats (ConversationSidebar): day sections and one
// row per chat — its title (renamed in place), the snippet that matched a
// search, a dot while its reply is written, and its actions. A row reads the
// list's state and asks for what it does through ListView.view (this type):
// the sidebar answers the signals.
ListView {

    // The chat shown (-1: none), how many are selected, the search.
    property double currentId: -1
    property int selectionCount: 0
    property string searchText

    signal openRequested(double conversationId)
    signal toggleRequested(double conversationId)
    signal rangeRequested(double conversationId)
    signal renameRequested(double conversationId, string title)
    signal deleteRequested(double conversationId)
    signal deleteSelectionRequested()
    signal exportSelectionRequested()

    // A row reaches the list's state and asks for its actions
    // through ListView.view (a ConversationList).
    delegate: ItemDelegate {
        id: item
        readonly property ConversationList view: item.ListView.view as ConversationList
        required property int index
        required property double conversationId
        required property string displayTitle
        required property string snippet
        required property string snippetHtml
        required property bool generating
        required property bool selected
        property bool editing: false
        readonly property bool current: item.conversationId === item.view.currentId

        objectName: "conversation_" + index
        width: ListView.view.width
        highlighted: selected
        font.bold: item.current && item.view.selectionCount > 1
        Accessible.name: displayTitle + (generating ? ", " + qsTr("generating a reply") : "")
        Accessible.selectable: true
        Accessible.selected: selected

        // The list's current row has the keyboard focus: Space opens
        // the chat (a button's click), Ctrl+Space adds or removes it.
        Keys.onPressed: event => {
            if (event.key === Qt.Key_Space && (event.modifiers & Qt.ControlModifier)) {
                item.view.toggleRequested(item.conversationId)
                event.accepted = true
            }
        }
        onClicked: {
            item.view.currentIndex = item.index
            item.view.openRequested(item.conversationId)
        }
        onDoubleClicked: editing = true

        // Ctrl+click adds or removes the chat, Shift+click selects up to
        // it; right-click opens the actions. A plain left press goes
        // through to the delegate (open, double-click renames).
        MouseArea {
            objectName: "selectionArea"
            anchors.fill: parent
            z: 1
            enabled: !item.editing
            acceptedButtons: Qt.LeftButton | Qt.RightButton
            onPressed: mouse => {
                mouse.accepted = mouse.button === Qt.RightButton
                                 || (mouse.modifiers & (Qt.ControlModifier | Qt.ShiftModifier)) !== 0
            }
            onClicked: mouse => {
                item.ListView.view.currentIndex = item.index
                item.ListView.view.forceActiveFocus()   // Escape, Ctrl+A and Shift+arrows go on from here
                if (mouse.button === Qt.RightButton)
                    menu.popup()
                else if (mouse.modifiers & Qt.ShiftModifier)
                    item.view.rangeRequested(item.conversationId)
                else
                    item.view.toggleRequested(item.conversationId)
            }
        }

        // The keyboard's row: framed while the list has the focus
        // (the chat shown and the selection are highlighted).
        Rectangle {
            objectName: "focusFrame"
            anchors.fill: parent
            anchors.margins: 1
            z: 2
            color: "transparent"
            radius: 2
            border.width: 2
            border.color: item.highlighted ? item.palette.highlightedText : item.palette.highlight
            visible: item.ListView.isCurrentItem && item.ListView.view.activeFocus
        }

        // No ids inside: an id would make the deferred contentItem immediate.
        contentItem: ColumnLayout {
            spacing: 2
            RowLayout {
                Layout.fillWidth: true
                Label {
                    objectName: "title"
                    Layout.fillWidth: true
                    visible: !item.editing
                    text: item.displayTitle
                    elide: Text.ElideRight
                }
                TextField {
                    objectName: "renameField"
                    Layout.fillWidth: true
                    visible: item.editing
                    // Renaming starts: the field takes the keys; it
                    // ends: they go back to the list.
                    readonly property bool renaming: item.editing
                    onRenamingChanged: {
                        if (renaming) {
                            forceActiveFocus()
                        } else if (activeFocus) {
                            focus = false
                            item.ListView.view.forceActiveFocus()
                        }
                    }
                    text: item.displayTitle
                    Accessible.name: qsTr("New name for the chat")
                    onAccepted: {
                        if (text.trim() !== "")
                            item.view.renameRequested(item.conversationId, text)
                        item.editing = false
                    }
                    Keys.onEscapePressed: {
                        text = item.displayTitle
                        item.editing = false
                    }
                    onActiveFocusChanged: if (!activeFocus) item.editing = false
                }
                // A still dot, not a spinner: an endless animation
                // repaints the window every frame for the whole
                // reply, and that CPU is taken from the engine.
                Rectangle {
                    objectName: "generatingIndicator"
                    visible: item.generating
                    Layout.preferredWidth: 8
                    Layout.preferredHeight: 8
                    Layout.rightMargin: 4
                    radius: 4
                    // On a highlighted (selected) row the highlight colour would hide it.
                    color: item.highlighted ? palette.highlightedText : palette.highlight
                    Accessible.role: Accessible.Indicator
                    Accessible.name: qsTr("Writing a reply")
                }
                ToolButton {
                    objectName: "menuButton"
                    text: "⋯"
                    Accessible.name: qsTr("Actions for %1").arg(item.displayTitle)
                    onClicked: menu.popup()
                }
            }
            Label {
                objectName: "snippet"
                Layout.fillWidth: true
                visible: item.view.searchText !== "" && item.snippet !== ""
                text: item.snippetHtml
                textFormat: Text.StyledText
                elide: Text.ElideRight
                maximumLineCount: 2
                wrapMode: Text.Wrap
                opacity: 0.75
                font.pixelSize: 11
            }
        }

        Menu {
            id: menu
            objectName: "conversationMenu"
            MenuItem {
                objectName: "renameAction"
                text: qsTr("Rename")
                onTriggered: item.editing = true
            }
            MenuItem {
                objectName: "exportSelectionAction"
                visible: item.view.selectionCount > 1
                height: visible ? implicitHeight : 0
                text: qsTr("Export selected conversations (%1)…").arg(item.view.selectionCount)
                onTriggered: item.view.exportSelectionRequested()
            }
            MenuItem {
                objectName: "deleteAction"
                text: qsTr("Delete")
                onTriggered: item.view.deleteRequested(item.conversationId)
            }
            MenuItem {
                objectName: "deleteSelectionAction"
                visible: item.view.selectionCount > 1 && item.selected
                height: visible ? implicitHeight : 0
                text: qsTr("Delete selected conversations (%1)").arg(item.view.selectionCount)
                onTriggered: item.view.deleteSelectionRequested()
            }
        }
    }
}
