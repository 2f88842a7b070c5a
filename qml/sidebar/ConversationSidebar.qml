import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// The list of conversations: newest first, grouped by day, with search,
// new (the button; Ctrl+N is the window's New chat action, which calls
// newConversation()), rename and delete with Undo, and a selection of several
// chats (Ctrl+click, Shift+click, Ctrl+A) to export. The app decides what
// "new", "select" and "export" do (conversationSelected /
// newConversationRequested / exportRequested).
Pane {
    id: root
    objectName: "conversationSidebar"
    padding: 0

    required property ConversationStore store
    // The conversation shown in the chat (highlighted). -1: none.
    property double currentId: -1
    // The conversation whose reply is generating (-1: none): marked in the list.
    property alias generatingId: conversations.generatingId
    // Every conversation whose reply is being written (ids): each marked in the list.
    property alias generatingIds: conversations.generatingIds
    readonly property alias model: conversations
    readonly property alias searchText: searchField.text
    // The conversations last deleted (one Delete), while Undo is offered.
    property var pendingUndoIds: []
    // The last of them (-1: none).
    readonly property double pendingUndoId: pendingUndoIds.length > 0 ? pendingUndoIds[pendingUndoIds.length - 1] : -1
    property int undoSeconds: 8

    signal conversationSelected(double conversationId)
    signal newConversationRequested()
    // Export the conversations `ids` (the selection, in list order).
    signal exportRequested(var ids)

    // The selected conversations (the current one included) and how many.
    readonly property var selectedIds: conversations.selectedIds
    readonly property int selectionCount: conversations.selectionCount

    function exportSelection() {
        if (conversations.selectionCount > 0)
            root.exportRequested(Array.from(conversations.selectedIds))
    }

    // The window's Find action (Ctrl+F).
    function focusSearch() {
        searchField.forceActiveFocus()
        searchField.selectAll()
    }

    function newConversation() {
        searchField.text = ""
        root.newConversationRequested()
    }

    function deleteConversation(conversationId) {
        root.deleteConversations([conversationId])
    }

    // Deletes the conversations `ids` at once; one Undo brings them all back.
    // When the shown chat is among them, the one now in its row is shown.
    function deleteConversations(list) {
        const ids = Array.from(list)   // a copy: the selection changes as chats go
        // The chat to show if the current one goes: the next row that stays, else the one before.
        const currentRow = conversations.indexOf(root.currentId)
        let next = -1
        for (let row = currentRow; currentRow >= 0 && row < conversations.count && next < 0; ++row)
            next = ids.indexOf(conversations.idAt(row)) < 0 ? conversations.idAt(row) : -1
        for (let row = currentRow - 1; row >= 0 && next < 0; --row)
            next = ids.indexOf(conversations.idAt(row)) < 0 ? conversations.idAt(row) : -1
        const removed = []
        for (const id of ids) {
            if (root.store.remove(id))
                removed.push(id)
        }
        if (removed.length === 0)
            return
        root.pendingUndoIds = removed
        undoTimer.restart()
        if (removed.indexOf(root.currentId) >= 0)
            root.conversationSelected(next)
    }

    // Delete key / menu: the selection when the row is part of a selection of
    // several, else that row alone.
    function deleteRow(row) {
        const id = conversations.idAt(row)
        if (conversations.selectionCount > 1 && conversations.isSelected(id))
            root.deleteConversations(conversations.selectedIds)
        else if (id >= 0)
            root.deleteConversation(id)
    }

    function undoDelete() {
        if (root.pendingUndoIds.length === 0)
            return
        const ids = root.pendingUndoIds
        const shown = ids.indexOf(root.currentId) >= 0 ? root.currentId : ids[ids.length - 1]
        root.pendingUndoIds = []
        undoTimer.stop()
        let restored = false
        for (const id of ids) {
            if (root.store.undoRemove(id))
                restored = true
        }
        if (restored)
            root.conversationSelected(shown)
    }

    function startRename(row) {
        const item = list.itemAtIndex(row)
        if (item)
            item.editing = true
    }

    ConversationListModel {
        id: conversations
        store: root.store
        searchText: searchField.text
        currentId: root.currentId
    }

    Timer {
        id: undoTimer
        interval: root.undoSeconds * 1000
        onTriggered: root.pendingUndoIds = []
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 4

        Button {
            objectName: "newChatButton"
            Layout.fillWidth: true
            Layout.margins: 6
            text: qsTr("New chat")
            icon.name: "document-new"
            Accessible.name: qsTr("New chat")
            Accessible.description: qsTr("Start a new conversation (Ctrl+N)")
            onClicked: root.newConversation()
        }

        TextField {
            id: searchField
            objectName: "searchField"
            Layout.fillWidth: true
            Layout.leftMargin: 6
            Layout.rightMargin: 6
            placeholderText: qsTr("Search chats")
            Accessible.name: qsTr("Search chats")
            selectByMouse: true
            Keys.onEscapePressed: text = ""
            // Down goes to the results, the first one marked; Enter opens it.
            Keys.onDownPressed: {
                if (list.count > 0)
                    list.currentIndex = 0
                list.forceActiveFocus(Qt.TabFocusReason)
            }
            Keys.onReturnPressed: if (list.count > 0) root.conversationSelected(conversations.idAt(0))
            Keys.onEnterPressed: if (list.count > 0) root.conversationSelected(conversations.idAt(0))
        }

        Label {
            objectName: "storeProblem"
            Layout.fillWidth: true
            Layout.margins: 6
            visible: root.store.problem !== ""
            text: root.store.problem
            wrapMode: Text.Wrap
            color: Theme.negativeText
            Accessible.role: Accessible.AlertMessage
            Accessible.name: text
        }

        Item {
            Layout.fillWidth: true
            Layout.fillHeight: true

            ConversationList {
                id: list
                objectName: "conversationList"
                currentId: root.currentId
                selectionCount: root.selectionCount
                searchText: root.searchText
                onOpenRequested: (conversationId) => root.conversationSelected(conversationId)
                onToggleRequested: (conversationId) => conversations.toggle(conversationId)
                onRangeRequested: (conversationId) => conversations.selectRange(conversationId)
                onRenameRequested: (conversationId, title) => root.store.rename(conversationId, title)
                onDeleteRequested: (conversationId) => root.deleteConversation(conversationId)
                onDeleteSelectionRequested: root.deleteConversations(conversations.selectedIds)
                onExportSelectionRequested: root.exportSelection()
                anchors.fill: parent
                clip: true
                model: conversations
                keyNavigationEnabled: true
                activeFocusOnTab: true
                // The keyboard arrives on the chat shown (Tab), or on the
                // first row when none is.
                onActiveFocusChanged: {
                    if (activeFocus && currentIndex < 0 && count > 0)
                        currentIndex = Math.max(0, conversations.indexOf(root.currentId))
                }
                // Keyboard: arrows move, Enter opens, F2 renames, Delete deletes;
                // Ctrl+Space adds/removes the row, Shift+arrows select a range,
                // Ctrl+A selects all, Escape keeps only the current chat selected.
                Keys.onReturnPressed: if (currentIndex >= 0) root.conversationSelected(conversations.idAt(currentIndex))
                Keys.onEnterPressed: if (currentIndex >= 0) root.conversationSelected(conversations.idAt(currentIndex))
                Keys.onDeletePressed: if (currentIndex >= 0) root.deleteRow(currentIndex)
                Keys.onPressed: event => {
                    if (event.key === Qt.Key_F2 && currentIndex >= 0) {
                        root.startRename(currentIndex)
                        event.accepted = true
                    } else if (event.matches(StandardKey.SelectAll)) {
                        conversations.selectAll()
                        event.accepted = true
                    } else if ((event.key === Qt.Key_Up || event.key === Qt.Key_Down)
                               && (event.modifiers & Qt.ShiftModifier) && count > 0) {
                        currentIndex = Math.max(0, Math.min(count - 1, currentIndex + (event.key === Qt.Key_Up ? -1 : 1)))
                        conversations.selectRange(conversations.idAt(currentIndex))
                        event.accepted = true
                    } else if (event.key === Qt.Key_Escape && conversations.selectionCount > 1) {
                        conversations.clearSelection()
                        event.accepted = true
                    }
                }
                Accessible.role: Accessible.List
                Accessible.name: qsTr("Conversations")
                ScrollBar.vertical: ScrollBar {}

                // Day sections. (Set here, not in ConversationList: there Qt
                // 6.4 did not make the labels again when the words changed
                // with the language.)
                section.property: "section"
                section.criteria: ViewSection.FullString
                section.delegate: Label {
                    required property string section
                    width: ListView.view.width
                    text: section
                    padding: 6
                    topPadding: 10
                    font.bold: true
                    opacity: 0.7
                    Accessible.role: Accessible.Heading
                }

            }

            Label {
                objectName: "emptyList"
                anchors.centerIn: list
                width: list.width - 24
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                visible: conversations.count === 0
                opacity: 0.6
                text: searchField.text !== "" ? qsTr("No chat contains “%1”.").arg(searchField.text)
                                              : qsTr("No chats yet.")
            }
        }

        // Undo for the last delete.
        Rectangle {
            objectName: "undoBar"
            Layout.fillWidth: true
            implicitHeight: undoRow.implicitHeight + 8
            visible: root.pendingUndoId >= 0
            color: Theme.quietBackground
            Accessible.role: Accessible.AlertMessage
            Accessible.name: undoLabel.text
            RowLayout {
                id: undoRow
                anchors.fill: parent
                anchors.margins: 4
                Label {
                    id: undoLabel
                    objectName: "undoLabel"
                    Layout.fillWidth: true
                    text: root.pendingUndoIds.length > 1 ? qsTr("%n chat(s) deleted.", "", root.pendingUndoIds.length)
                                                         : qsTr("Chat deleted.")
                }
                Button {
                    objectName: "undoButton"
                    text: qsTr("Undo")
                    Accessible.name: qsTr("Undo delete")
                    onClicked: root.undoDelete()
                }
            }
        }
    }
}
