import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Burrow

// The chat window: the menus, the sidebar, the chat and its composer, the
// dialogs. State and actions are the ChatController's (app/chat/); what a
// file is and how it opens is ModelLoader's (app/models/).
ApplicationWindow {
    id: window
    objectName: "mainWindow"
    width: 1000
    height: 720
    minimumWidth: 480
    minimumHeight: 360
    visible: true
    title: window.chat.models.hasModel ? qsTr("%1 — Burrow").arg(window.chat.models.model.name) : qsTr("Burrow")

    readonly property ChatController chat: ChatController {
        defaults: DefaultSettings.settings
        // An imported chat finds its model here by file name and size.
        library: window.library
        // The conversation store opens and the last chat comes back.
        Component.onCompleted: startPersistence()
    }
    // The models on this computer (the library screen, the empty state's count).
    // Settings → Servers: OpenAI-compatible servers whose models the library lists.
    readonly property RemoteServers servers: RemoteServers {}
    readonly property ModelLibrary library: ModelLibrary {
        servers: window.servers
        recentModels: window.chat.models.recentModels
        contextSize: window.chat.conversation.settings.contextSize
        kvCacheType: window.chat.conversation.settings.kvCacheType
    }
    // What "Automatic" does for the loaded model, in words (C++'s tr():
    // read again when the language changes, Language.current).
    readonly property string automaticFormat: window.chat.models.hasModel && Language.current !== ""
                                              ? window.chat.models.model.chatFormatText : ""
    property bool sidebarOpen: true
    // The library screen is shown instead of the chat.
    property bool libraryShown: false
    readonly property alias composer: composer

    function openModelDialog() { fileDialog.open() }
    function showLibrary() {
        window.libraryShown = true
        window.library.rescan()
        libraryView.focusSearch()
    }
    function closeLibrary() {
        window.libraryShown = false
        window.focusComposer()
    }
    // File → Download a model…, the empty window's button (and the library's).
    function openDownloads() { downloadDialog.open() }
    // Where typing goes: the composer, at start, after a model loads, after
    // switching or creating a chat and after a dialog closes.
    function focusComposer() { composer.focusInput() }

    // Export `ids` (all conversations when empty): the save dialog opens in
    // the folder of the last export with a name filled in (ExportPaths).
    function exportConversations(ids) {
        exportDialog.ids = Array.from(ids)   // a copy: the selection may change while the dialog is open
        const title = ids.length === 1 && ids[0] === window.chat.conversation.conversationId
                    ? window.chat.conversation.title : ""
        exportDialog.currentFolder = ExportPaths.folder()
        exportDialog.selectedFile = ExportPaths.fileInFolder(ExportPaths.defaultName(ids.length, title))
        exportDialog.open()
        SaveField.prepare(window, exportDialog.acceptLabel)
    }
    function importConversations() {
        importDialog.currentFolder = ExportPaths.folder()
        importDialog.open()
    }
    function editAndResend(row, text) {
        if (window.chat.editDiscardsReplies(row)) {
            confirmEdit.row = row
            confirmEdit.text = text
            confirmEdit.open()
        } else {
            window.chat.editAndResend(row, text)
        }
    }

    Component.onCompleted: window.focusComposer()
    onActiveChanged: if (active && activeFocusItem === null) window.focusComposer()

    Connections {
        target: window.chat
        function onLoadFinished(ok) { if (ok) window.focusComposer() }
    }
    Connections {
        target: window.chat.conversation
        function onOpened() { window.focusComposer() }
    }

    AppActions {
        id: actions
        chat: window.chat
        sidebarShown: sidebar.visible
        onOpenModelRequested: window.openModelDialog()
        onLibraryRequested: window.showLibrary()
        onDownloadModelRequested: window.openDownloads()
        onAccessTokenRequested: accessTokenDialog.open()
        onNewChatRequested: {
            if (sidebar.visible)
                sidebar.newConversation()   // clears its search first
            else
                window.chat.newConversation()
            window.focusComposer()
        }
        onFindRequested: {
            window.sidebarOpen = true
            sidebar.focusSearch()
        }
        onChatSettingsRequested: chatSettingsDrawer.open()
        onDefaultSettingsRequested: defaultSettingsDialog.open()
        onLocalServerRequested: localServerDialog.open()
        onServersRequested: serversDialog.open()
        onToolsRequested: toolsDialog.open()
        onAboutRequested: aboutDialog.open()
        onSendRequested: window.composer.send()
        onFocusComposerRequested: window.focusComposer()
        undoDeleteAvailable: sidebar.pendingUndoId >= 0
        onUndoDeleteRequested: sidebar.undoDelete()
    }

    // The menus (common/AppMenuBar.qml), made again when the language
    // changes: Qt 6.4 drops the underline of an Alt letter whose label text
    // changes (QQuickText::setText clears the formats QQuickMnemonicLabel
    // has just set), so retranslated menus would show none.
    menuBar: Loader {
        id: menuBarLoader
        objectName: "menuBarLoader"
        function build() {
            menuBarLoader.source = ""
            menuBarLoader.setSource(Qt.resolvedUrl("common/AppMenuBar.qml"), { actions: actions, chat: window.chat })
        }
        Component.onCompleted: menuBarLoader.build()
    }
    Binding {
        target: menuBarLoader.item
        property: "selectedIds"
        value: sidebar.selectedIds
        when: menuBarLoader.item !== null
    }
    Connections {
        target: menuBarLoader.item as AppMenuBar
        function onExportRequested(ids) { window.exportConversations(ids) }
        function onImportRequested() { window.importConversations() }
    }
    // After the switch (not inside it: the language menu's own handler is running).
    Timer {
        id: menuBarRebuild
        interval: 0
        onTriggered: menuBarLoader.build()
    }
    Connections {
        target: Language
        function onChanged() { menuBarRebuild.restart() }
    }

    ConversationSidebar {
        id: sidebar
        anchors.left: parent.left
        anchors.top: parent.top
        anchors.bottom: parent.bottom
        width: 260
        visible: window.sidebarOpen
        store: window.chat.store
        currentId: window.chat.conversation.conversationId
        generatingIds: window.chat.generatingIds
        onConversationSelected: (conversationId) => window.chat.openConversation(conversationId)
        onNewConversationRequested: window.chat.newConversation()
        onExportRequested: (ids) => window.exportConversations(ids)
    }

    ColumnLayout {
        anchors.fill: parent
        anchors.leftMargin: sidebar.visible ? sidebar.width : 0
        spacing: 0

        Banner {
            Layout.fillWidth: true
            visible: window.chat.banner !== ""
            text: window.chat.banner
            onDismissed: window.chat.dismissBanner()
        }
        ArchiveBar {
            Layout.fillWidth: true
            service: window.chat.archives
        }
        ChatHeader {
            Layout.fillWidth: true
            chat: window.chat
            sidebarOpen: window.sidebarOpen
            onSidebarToggled: window.sidebarOpen = !window.sidebarOpen
            onSettingsRequested: chatSettingsDrawer.open()
        }
        LoadingBar {
            Layout.fillWidth: true
            visible: window.chat.models.loading
            fileName: window.chat.models.loadingFileName
            progress: window.chat.models.loadProgress
        }
        Item {
            Layout.fillWidth: true
            Layout.fillHeight: true

            EmptyState {
                anchors.fill: parent
                visible: !window.libraryShown && !window.chat.models.hasModel
                         && window.chat.conversation.messages.count === 0
                recentPaths: window.chat.models.recentModels.paths
                libraryCount: window.library.allModels.count
                onOpenRequested: window.openModelDialog()
                onLibraryRequested: window.showLibrary()
                onDownloadRequested: window.openDownloads()
                onRecentRequested: (path) => window.chat.models.openFile(path, false)
            }
            ChatView {
                id: chatView
                anchors.fill: parent
                visible: !window.libraryShown
                         && (window.chat.models.hasModel || window.chat.conversation.messages.count > 0)
                chat: window.chat
                onEditRequested: (row, text) => window.editAndResend(row, text)
            }
            ModelLibraryView {
                id: libraryView
                anchors.fill: parent
                visible: window.libraryShown
                models: window.library.models
                library: window.library
                onDownloadRequested: window.openDownloads()
                onOpenRequested: (path) => {
                    window.libraryShown = false
                    window.chat.models.openFile(path, false)
                }
                onCloseRequested: window.closeLibrary()
            }
            BusyIndicator {
                anchors.centerIn: parent
                running: window.chat.models.inspecting
                visible: running
                Accessible.name: qsTr("Reading the model file")
            }
        }
        Composer {
            id: composer
            Layout.fillWidth: true
            visible: !window.libraryShown
            hasModel: window.chat.models.hasModel
            busy: window.chat.models.loading
            generating: window.chat.reply.active
            continuesText: window.chat.models.hasModel && window.chat.models.model.continuesText
            onSendRequested: (text) => { if (window.chat.send(text)) window.composer.clear() }
            onStopRequested: window.chat.stop()
            undoDeletePending: actions.undoDeleteAvailable
            onUndoDeleteRequested: actions.undoDelete.trigger()
        }
        StatusLine {
            Layout.fillWidth: true
            visible: !window.libraryShown
            chat: window.chat
        }
    }

    DropArea {
        id: dropArea
        objectName: "dropArea"
        anchors.fill: parent
        onEntered: (drag) => {
            dropOverlay.refusal = window.chat.models.refusalFor(drag.urls)
            drag.accept(Qt.CopyAction)
        }
        onDropped: (drop) => {
            drop.accept(Qt.CopyAction)
            window.chat.models.openUrls(drop.urls)
        }
    }
    DropOverlay {
        id: dropOverlay
        anchors.fill: parent
        anchors.margins: 8
        visible: dropArea.containsDrag
    }

    ModelCardDialog {
        chat: window.chat
        onClosed: window.focusComposer()
    }

    // The file dialogs say how to type a path: Ctrl+L opens the location
    // field in Qt's own dialog and in the GTK and KDE ones alike.
    FileDialog {
        id: fileDialog
        objectName: "openModelDialog"
        title: qsTr("Open a model (Ctrl+L: type a path)")
        nameFilters: [qsTr("GGUF models (*.gguf)"),
                      qsTr("Compressed models (*.zip *.tar.gz *.tgz *.tar.xz *.tar.zst *.gguf.gz *.gguf.xz *.gguf.zst)"),
                      qsTr("All files (*)")]
        onAccepted: window.chat.models.openUrls([selectedFile])
        onRejected: window.focusComposer()
    }
    FileDialog {
        id: exportDialog
        objectName: "exportDialog"
        // Conversation ids to export; empty: all of them.
        property var ids: []
        title: qsTr("Export conversations (Ctrl+L: type a path)")
        fileMode: FileDialog.SaveFile
        acceptLabel: qsTr("Save")
        defaultSuffix: "zip"
        nameFilters: [qsTr("Zip archives (*.zip)")]
        onAccepted: {
            const path = ExportPaths.savePath(exportDialog.selectedFile, exportDialog.currentFolder)
            ExportPaths.remember(path)
            window.chat.archives.exportConversations(exportDialog.ids, path)
            window.focusComposer()
        }
        onRejected: window.focusComposer()
    }
    FileDialog {
        id: importDialog
        objectName: "importDialog"
        title: qsTr("Import conversations (Ctrl+L: type a path)")
        nameFilters: [qsTr("Burrow exports (*.zip)"), qsTr("All files (*)")]
        onAccepted: {
            const path = window.chat.archives.localPath(importDialog.selectedFile)
            ExportPaths.remember(path)
            window.chat.archives.importConversations(path)
            window.focusComposer()
        }
        onRejected: window.focusComposer()
    }

    // The shown chat's settings; changes are saved at once and apply to the next reply.
    Drawer {
        id: chatSettingsDrawer
        objectName: "chatSettingsDrawer"
        edge: Qt.RightEdge
        width: Math.min(420, window.width * 0.9)
        height: window.height
        onClosed: window.focusComposer()
        onAboutToShow: chatSettingsPanel.reload()
        ChatSettingsPanel {
            id: chatSettingsPanel
            anchors.fill: parent
            settings: window.chat.conversation.settings
            defaultSettings: DefaultSettings
            automaticFormat: window.automaticFormat
            showThinking: window.chat.models.hasModel && window.chat.models.model.readsEnableThinking
            showReasoningEffort: window.chat.models.hasModel && window.chat.models.model.readsReasoningEffort
            showTools: window.chat.tools.count > 0
            canShiftContext: !window.chat.models.hasModel || window.chat.models.model.canShiftContext
            onCloseRequested: chatSettingsDrawer.close()
        }
    }

    // The settings new chats start with (existing chats keep theirs).
    Dialog {
        id: defaultSettingsDialog
        objectName: "defaultSettingsDialog"
        title: qsTr("Settings for new chats")
        modal: true
        anchors.centerIn: parent
        width: Math.min(480, window.width * 0.9)
        height: window.height * 0.85
        standardButtons: Dialog.Close
        onClosed: window.focusComposer()
        onAboutToShow: defaultSettingsPanel.reload()
        ChatSettingsPanel {
            id: defaultSettingsPanel
            anchors.fill: parent
            forNewChats: true
            settings: DefaultSettings.settings
            automaticFormat: window.automaticFormat
            showThinking: window.chat.models.hasModel && window.chat.models.model.readsEnableThinking
            showReasoningEffort: window.chat.models.hasModel && window.chat.models.model.readsReasoningEffort
            onCloseRequested: defaultSettingsDialog.close()
        }
    }

    Dialog {
        id: confirmEdit
        objectName: "confirmEdit"
        property int row: -1
        property string text
        title: qsTr("Replace the replies?")
        modal: true
        anchors.centerIn: parent
        width: Math.min(440, window.width * 0.9)
        standardButtons: Dialog.Ok | Dialog.Cancel
        // Enter presses OK (the default button), Escape cancels.
        focus: true
        onClosed: window.focusComposer()
        Label {
            width: parent.width
            wrapMode: Text.Wrap
            text: qsTr("Sending the edited message replaces the messages after it.")
            focus: true
            Keys.onReturnPressed: confirmEdit.accept()
            Keys.onEnterPressed: confirmEdit.accept()
        }
        onAccepted: window.chat.editAndResend(row, text)
    }

    DownloadDialog {
        id: downloadDialog
        // A finished download opens like a recent model (the card only when memory is short).
        onOpenRequested: (path) => {
            downloadDialog.close()
            window.chat.models.openFile(path, false)
        }
        onTokenRequested: accessTokenDialog.open()
        onClosed: window.focusComposer()
    }
    AccessTokenDialog {
        id: accessTokenDialog
    }

    LocalServerDialog {
        id: localServerDialog
        server: window.chat.server
        onClosed: window.focusComposer()
    }

    ServersDialog {
        id: serversDialog
        servers: window.servers
        onClosed: window.focusComposer()
    }

    ToolsDialog {
        id: toolsDialog
        tools: window.chat.tools
        onClosed: window.focusComposer()
    }

    AboutDialog {
        id: aboutDialog
        onClosed: window.focusComposer()
    }
}
