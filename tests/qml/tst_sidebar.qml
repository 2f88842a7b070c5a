import QtQuick
import QtQuick.Controls
import QtTest
import Burrow

// The conversation sidebar on a throw-away (in-memory) store: order and day
// sections, selection (one chat, and several with Ctrl/Shift+click and the
// keyboard, exported together), new chat, search, rename, delete with Undo.
TestCase {
    id: testCase
    name: "ConversationSidebar"
    width: 360
    height: 640
    visible: true
    when: windowShown

    Component {
        id: setup
        Item {
            property alias store: storeObject
            property alias sidebar: sidebarObject
            width: 360
            height: 640
            ConversationStore {
                id: storeObject
                databasePath: ":memory:"
            }
            ConversationSidebar {
                id: sidebarObject
                anchors.fill: parent
                store: storeObject
            }
        }
    }

    Component {
        id: spyComponent
        SignalSpy {}
    }

    function make(titles) {
        const root = createTemporaryObject(setup, testCase)
        verify(root)
        verify(root.store.ready)
        const ids = []
        for (const t of titles || []) {
            const id = root.store.createConversation(t)
            root.store.appendMessage(id, Chat.User, "about " + t)
            ids.push(id)
        }
        return { root: root, ids: ids }
    }

    function list(root) { return findChild(root.sidebar, "conversationList") }

    function rowItem(root, row) {
        const view = list(root)
        view.forceLayout()
        const item = view.itemAtIndex(row)
        verify(item, "no delegate for row " + row)
        return item
    }

    function titles(root) {
        const out = []
        const view = list(root)
        view.forceLayout()
        for (let i = 0; i < view.count; ++i)
            out.push(findChild(rowItem(root, i), "title").text)
        return out
    }

    function test_newestFirstWithSections() {
        const t = make(["Soup", "Trip", "Taxes"])
        compare(list(t.root).count, 3)
        compare(titles(t.root), ["Taxes", "Trip", "Soup"])
        compare(t.root.sidebar.model.data(t.root.sidebar.model.index(0, 0), ConversationListModel.SectionRole), "Today")
        compare(list(t.root).section.property, "section")
        verify(!findChild(t.root.sidebar, "emptyList").visible)
    }

    function test_emptyState() {
        const t = make([])
        compare(list(t.root).count, 0)
        verify(findChild(t.root.sidebar, "emptyList").visible)
    }

    function test_clickSelects() {
        const t = make(["A", "B"])
        const spy = createTemporaryObject(spyComponent, testCase,
                                          { target: t.root.sidebar, signalName: "conversationSelected" })
        mouseClick(rowItem(t.root, 1))
        compare(spy.count, 1)
        compare(spy.signalArguments[0][0], t.ids[0])
        t.root.sidebar.currentId = t.ids[0]
        verify(rowItem(t.root, 1).highlighted)
        verify(!rowItem(t.root, 0).highlighted)
    }

    function test_newChat() {
        const t = make(["A"])
        const spy = createTemporaryObject(spyComponent, testCase,
                                          { target: t.root.sidebar, signalName: "newConversationRequested" })
        mouseClick(findChild(t.root.sidebar, "newChatButton"))
        compare(spy.count, 1)
        // What the window's New chat action (Ctrl+N, tst_chatcontroller) calls.
        t.root.sidebar.newConversation()
        compare(spy.count, 2)
        // A chat the app creates appears at the top, untitled.
        t.root.store.createConversation("")
        compare(findChild(rowItem(t.root, 0), "title").text, "New chat")
    }

    function test_search() {
        const t = make(["Soup", "Trip"])
        t.root.store.appendMessage(t.ids[0], Chat.User, "Lentils or beans?")
        const field = findChild(t.root.sidebar, "searchField")
        field.forceActiveFocus()
        for (const c of "lentil")
            keyClick(c)
        compare(list(t.root).count, 1)
        compare(titles(t.root), ["Soup"])
        const snippet = findChild(rowItem(t.root, 0), "snippet")
        verify(snippet.visible)
        verify(snippet.text.indexOf("<b>Lentil</b>") >= 0, "snippet: " + snippet.text)

        field.text = "no such words"
        compare(list(t.root).count, 0)
        const empty = findChild(t.root.sidebar, "emptyList")
        verify(empty.visible)
        keyClick(Qt.Key_Escape)
        compare(field.text, "")
        compare(list(t.root).count, 2)
    }

    function test_rename() {
        const t = make(["Old name"])
        const item = rowItem(t.root, 0)
        t.root.sidebar.startRename(0)
        const field = findChild(item, "renameField")
        verify(field.visible)
        verify(field.activeFocus)
        field.selectAll()
        for (const c of "Fresh")
            keyClick(c)
        keyClick(Qt.Key_Return)
        compare(t.root.store.conversationMap(t.ids[0]).title, "Fresh")
        compare(titles(t.root), ["Fresh"])

        // Escape keeps the name.
        t.root.sidebar.startRename(0)
        keyClick("X")
        keyClick(Qt.Key_Escape)
        compare(t.root.store.conversationMap(t.ids[0]).title, "Fresh")
    }

    function test_deleteAndUndo() {
        const t = make(["Keep", "Remove"])
        t.root.sidebar.currentId = t.ids[1]
        const spy = createTemporaryObject(spyComponent, testCase,
                                          { target: t.root.sidebar, signalName: "conversationSelected" })
        const undoBar = findChild(t.root.sidebar, "undoBar")
        verify(!undoBar.visible)
        t.root.sidebar.deleteConversation(t.ids[1])
        compare(titles(t.root), ["Keep"])
        verify(undoBar.visible)
        compare(spy.count, 1)
        compare(spy.signalArguments[0][0], t.ids[0])  // the current chat went away: the next one

        mouseClick(findChild(t.root.sidebar, "undoButton"))
        compare(titles(t.root), ["Remove", "Keep"])
        verify(!undoBar.visible)
        compare(spy.count, 2)
        compare(spy.signalArguments[1][0], t.ids[1])

        // The offer ends after a while; the chat stays in the trash.
        t.root.sidebar.undoSeconds = 0.05
        t.root.sidebar.deleteConversation(t.ids[0])
        tryVerify(() => !undoBar.visible, 5000)
        compare(titles(t.root), ["Remove"])
    }

    function test_keyboard() {
        const t = make(["A", "B", "C"])
        const spy = createTemporaryObject(spyComponent, testCase,
                                          { target: t.root.sidebar, signalName: "conversationSelected" })
        const view = list(t.root)
        view.forceActiveFocus()
        view.currentIndex = 0
        keyClick(Qt.Key_Down)
        compare(view.currentIndex, 1)
        keyClick(Qt.Key_Return)
        compare(spy.count, 1)
        compare(spy.signalArguments[0][0], t.ids[1])  // rows: C, B, A

        keyClick(Qt.Key_F2)
        const field = findChild(rowItem(t.root, 1), "renameField")
        verify(field.visible)
        keyClick(Qt.Key_Escape)
        verify(view.activeFocus, "the keys go back to the list")
        keyClick(Qt.Key_Delete)
        compare(titles(t.root), ["C", "A"])
        verify(findChild(t.root.sidebar, "undoBar").visible)
    }

    function test_multiSelectionByMouse() {
        const t = make(["A", "B", "C", "D"])   // rows: D, C, B, A
        const sidebar = t.root.sidebar
        sidebar.currentId = t.ids[3]           // D is shown
        compare(sidebar.selectionCount, 1)
        verify(rowItem(t.root, 0).highlighted)
        const opened = createTemporaryObject(spyComponent, testCase,
                                             { target: sidebar, signalName: "conversationSelected" })

        // Ctrl+click adds a chat without opening it; again removes it.
        mouseClick(rowItem(t.root, 2), 20, 10, Qt.LeftButton, Qt.ControlModifier)
        compare(sidebar.selectedIds, [t.ids[3], t.ids[1]])
        verify(rowItem(t.root, 2).highlighted)
        verify(rowItem(t.root, 2).Accessible.selected)
        verify(!rowItem(t.root, 1).highlighted)
        compare(opened.count, 0)
        mouseClick(rowItem(t.root, 2), 20, 10, Qt.LeftButton, Qt.ControlModifier)
        compare(sidebar.selectedIds, [t.ids[3]])

        // Shift+click: from the last Ctrl+clicked chat (B) down to A, plus the current one.
        mouseClick(rowItem(t.root, 3), 20, 10, Qt.LeftButton, Qt.ShiftModifier)
        compare(sidebar.selectedIds, [t.ids[3], t.ids[1], t.ids[0]])
        verify(!rowItem(t.root, 1).highlighted)
        // Escape keeps the current chat; Shift+click then ranges from it.
        keyClick(Qt.Key_Escape)
        compare(sidebar.selectedIds, [t.ids[3]])
        mouseClick(rowItem(t.root, 3), 20, 10, Qt.LeftButton, Qt.ShiftModifier)
        compare(sidebar.selectionCount, 4)
        for (let row = 0; row < 4; ++row)
            verify(rowItem(t.root, row).highlighted, "row " + row)
        compare(opened.count, 0)

        // The context menu (right-click) offers to export exactly those.
        const exported = createTemporaryObject(spyComponent, testCase,
                                               { target: sidebar, signalName: "exportRequested" })
        mouseClick(rowItem(t.root, 1), 20, 10, Qt.RightButton)
        const action = findChild(rowItem(t.root, 1), "exportSelectionAction")
        tryVerify(() => action.visible)
        compare(action.text, "Export selected conversations (4)…")
        compare(sidebar.selectionCount, 4)   // right-click does not change the selection
        const menu = findChild(rowItem(t.root, 1), "conversationMenu")
        tryVerify(() => menu.opened)
        wait(Qt.styleHints.mouseDoubleClickInterval + 50)   // a separate click, not a double-click
        mouseClick(action)
        compare(exported.count, 1)
        compare(exported.signalArguments[0][0], [t.ids[3], t.ids[2], t.ids[1], t.ids[0]])

        // A plain click opens one chat; the app makes it current and the selection is that chat.
        mouseClick(rowItem(t.root, 1))
        compare(opened.count, 1)
        compare(opened.signalArguments[0][0], t.ids[2])
        sidebar.currentId = t.ids[2]
        compare(sidebar.selectedIds, [t.ids[2]])
        mouseClick(rowItem(t.root, 1), 20, 10, Qt.RightButton)
        tryVerify(() => findChild(rowItem(t.root, 1), "deleteAction").visible)
        verify(!findChild(rowItem(t.root, 1), "exportSelectionAction").visible)
        keyClick(Qt.Key_Escape)
    }

    function test_multiSelectionByKeyboard() {
        const t = make(["A", "B", "C"])        // rows: C, B, A
        const sidebar = t.root.sidebar
        sidebar.currentId = t.ids[2]
        const view = list(t.root)
        view.forceActiveFocus()
        view.currentIndex = 0
        keyClick(Qt.Key_A, Qt.ControlModifier)
        compare(sidebar.selectionCount, 3)
        keyClick(Qt.Key_Escape)
        compare(sidebar.selectedIds, [t.ids[2]])
        keyClick(Qt.Key_Down, Qt.ShiftModifier)
        keyClick(Qt.Key_Down, Qt.ShiftModifier)
        compare(view.currentIndex, 2)
        compare(sidebar.selectionCount, 3)
        keyClick(Qt.Key_Space, Qt.ControlModifier)   // A out again
        compare(sidebar.selectedIds, [t.ids[2], t.ids[1]])
    }

    function test_selectionAfterDeleteAndSearch() {
        const t = make(["A", "B", "C"])        // rows: C, B, A
        const sidebar = t.root.sidebar
        sidebar.currentId = t.ids[2]
        sidebar.model.toggle(t.ids[0])
        sidebar.model.toggle(t.ids[1])
        compare(sidebar.selectionCount, 3)
        // One chat deleted (with Undo, as before): it leaves the selection.
        sidebar.deleteConversation(t.ids[1])
        compare(titles(t.root), ["C", "A"])
        verify(findChild(t.root.sidebar, "undoBar").visible)
        compare(sidebar.selectedIds, [t.ids[2], t.ids[0]])
        mouseClick(findChild(t.root.sidebar, "undoButton"))
        compare(titles(t.root), ["C", "B", "A"])
        compare(sidebar.selectedIds, [t.ids[2], t.ids[0]])   // B is back, not selected again
        // Searching starts the selection again from the current chat.
        const field = findChild(sidebar, "searchField")
        field.text = "about"
        compare(sidebar.selectedIds, [t.ids[2]])
    }

    function test_deleteSelectionAndUndo() {
        const t = make(["A", "B", "C", "D"])   // rows: D, C, B, A
        const sidebar = t.root.sidebar
        sidebar.currentId = t.ids[2]           // C shown, B added
        sidebar.model.toggle(t.ids[1])
        const opened = createTemporaryObject(spyComponent, testCase,
                                             { target: sidebar, signalName: "conversationSelected" })
        const view = list(t.root)
        view.forceActiveFocus()
        view.currentIndex = 1
        keyClick(Qt.Key_Delete)
        compare(titles(t.root), ["D", "A"])
        verify(findChild(sidebar, "undoBar").visible)
        verify(findChild(sidebar, "undoLabel").text.indexOf("2") >= 0, findChild(sidebar, "undoLabel").text)
        compare(opened.count, 1)
        compare(opened.signalArguments[0][0], t.ids[0])   // the next row that stays: A

        mouseClick(findChild(sidebar, "undoButton"))
        compare(titles(t.root), ["D", "C", "B", "A"])
        compare(opened.count, 2)
        compare(opened.signalArguments[1][0], t.ids[2])   // C is shown again
        verify(!findChild(sidebar, "undoBar").visible)

        // Delete on a row outside the selection deletes that row alone.
        sidebar.model.toggle(t.ids[1])
        compare(sidebar.selectionCount, 2)
        view.forceActiveFocus()
        view.currentIndex = 0
        keyClick(Qt.Key_Delete)
        compare(titles(t.root), ["C", "B", "A"])
        compare(findChild(sidebar, "undoLabel").text, "Chat deleted.")
        compare(sidebar.selectionCount, 2)
    }

    function test_generatingMark() {
        const t = make(["A", "B"])
        t.root.sidebar.generatingId = t.ids[0]
        verify(findChild(rowItem(t.root, 1), "generatingIndicator").visible)
        verify(!findChild(rowItem(t.root, 0), "generatingIndicator").visible)
    }

    // Several chats write at once: each is marked, and only while it writes.
    function test_generatingMarksSeveral() {
        const t = make(["A", "B", "C"])
        t.root.sidebar.generatingIds = [t.ids[0], t.ids[2]]
        verify(findChild(rowItem(t.root, 2), "generatingIndicator").visible)
        verify(!findChild(rowItem(t.root, 1), "generatingIndicator").visible)
        verify(findChild(rowItem(t.root, 0), "generatingIndicator").visible)
        t.root.sidebar.generatingIds = [t.ids[2]]
        verify(!findChild(rowItem(t.root, 2), "generatingIndicator").visible)
        verify(findChild(rowItem(t.root, 0), "generatingIndicator").visible)
    }
}
