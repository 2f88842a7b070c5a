import QtQml.Models
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Burrow

// The chat window: drop a .gguf on it, read the card, load, window.chat.
ApplicationWindow {
    id: window
    objectName: "mainWindow"
    width: 1000
    height: 720
    minimumWidth: 480
    minimumHeight: 360
    visible: true
    title: window.chat.hasModel ? qsTr("%1 — Burrow").arg(window.chat.model.name) : qsTr("Burrow")

    readonly property ChatController chat: ChatController {
        defaults: DefaultSettings.settings
        // The conversation store opens and the last chat comes back.
        Component.onCompleted: startPersistence()
    }
    property bool sidebarOpen: true
    // Export/import of conversations and compressed models (burrow-archive).
    readonly property ArchiveService archives: ArchiveService {
        store: window.chat.store
        onModelReady: (path) => window.chat.openFile(path, window.unpackedConfirm)
    }
    // Whether a model unpacked from an archive shows its card first (drops
    // and the file dialog) or loads at once (the command line).
    property bool unpackedConfirm: true

    function localPath(url) {
        return decodeURIComponent(url.toString().replace(/^file:\/\//, ""))
    }
    // One compressed model (told by its content, or by its name when it cannot be read).
    function isArchive(urls) {
        return urls.length === 1 && window.archives.isArchiveFile(window.localPath(urls[0]))
    }
    // A drop or the file dialog: compressed models are unpacked first.
    function openUrls(urls) {
        if (window.isArchive(urls))
            window.unpackArchive(window.localPath(urls[0]), true)
        else
            window.chat.openUrls(urls)
    }
    // `burrow PATH`: the same way as a drop, but without the card unless memory is short.
    function openPath(path) {
        if (window.archives.isArchiveFile(path))
            window.unpackArchive(path, false)
        else
            window.chat.openFile(path, false)
    }
    function unpackArchive(path, confirm) {
        window.unpackedConfirm = confirm
        window.archives.importModel(path)
    }
    // Asks where to write the conversations `ids` (all when empty).
    function exportConversations(ids) {
        exportDialog.ids = Array.from(ids)   // a copy: the selection may change while the dialog is open
        exportDialog.open()
    }
    readonly property alias composer: composer

    function openModelDialog() { fileDialog.open() }

    function editAndResend(row, text) {
        if (window.chat.editDiscardsReplies(row)) {
            confirmEdit.row = row
            confirmEdit.text = text
            confirmEdit.open()
        } else {
            window.chat.editAndResend(row, text)
        }
    }

    menuBar: MenuBar {
        delegate: MenuBarItem {
            Accessible.name: menu ? menu.title.replace("&", "") : ""
        }
        Menu {
            title: qsTr("&File")
            MenuItem {
                text: qsTr("&Open model…")
                Accessible.name: qsTr("Open model")
                onTriggered: window.openModelDialog()
            }
            Menu {
                id: recentMenu
                title: qsTr("Recent models")
                enabled: window.chat.recentModels.paths.length > 0
                Instantiator {
                    model: window.chat.recentModels.paths
                    delegate: MenuItem {
                        id: recentItem
                        required property string modelData
                        text: modelData.substring(modelData.lastIndexOf("/") + 1)
                        Accessible.name: qsTr("Open recent model %1").arg(text)
                        onTriggered: window.chat.openFile(recentItem.modelData, false)
                    }
                    onObjectAdded: (index, object) => recentMenu.insertItem(index, object)
                    onObjectRemoved: (index, object) => recentMenu.removeItem(object)
                }
            }
            MenuSeparator {}
            MenuItem {
                text: qsTr("E&xport this conversation…")
                enabled: !window.archives.busy && window.chat.conversationId > 0
                Accessible.name: qsTr("Export this conversation to a zip file")
                onTriggered: window.exportConversations([window.chat.conversationId])
            }
            MenuItem {
                objectName: "exportSelectedMenuItem"
                // Shown while several chats are selected in the sidebar.
                visible: sidebar.selectionCount > 1
                height: visible ? implicitHeight : 0
                text: qsTr("Export se&lected conversations (%1)…").arg(sidebar.selectionCount)
                enabled: !window.archives.busy
                Accessible.name: qsTr("Export the %1 selected conversations to a zip file").arg(sidebar.selectionCount)
                onTriggered: window.exportConversations(sidebar.selectedIds)
            }
            MenuItem {
                text: qsTr("&Export all conversations…")
                enabled: !window.archives.busy
                Accessible.name: qsTr("Export all conversations to a zip file")
                onTriggered: window.exportConversations([])
            }
            MenuItem {
                text: qsTr("&Import conversations…")
                enabled: !window.archives.busy
                Accessible.name: qsTr("Import conversations from a Burrow export")
                onTriggered: importDialog.open()
            }
            MenuSeparator {}
            MenuItem {
                text: qsTr("&Quit")
                Accessible.name: qsTr("Quit Burrow")
                onTriggered: Qt.quit()
            }
        }
        Menu {
            title: qsTr("&Chat")
            MenuItem {
                text: qsTr("&New chat")
                Accessible.name: qsTr("Start a new chat")
                onTriggered: window.chat.newConversation()
            }
            MenuItem {
                text: qsTr("Chat s&ettings…")
                Accessible.name: qsTr("Settings of this chat")
                onTriggered: chatSettingsDrawer.open()
            }
            MenuSeparator {}
            MenuItem {
                text: qsTr("&Stop reply")
                enabled: window.chat.generating
                Accessible.name: qsTr("Stop the reply")
                onTriggered: window.chat.stop()
            }
            MenuItem {
                text: qsTr("&Regenerate reply")
                enabled: window.chat.canRegenerate
                Accessible.name: qsTr("Regenerate the last reply")
                onTriggered: window.chat.regenerate()
            }
            MenuItem {
                text: qsTr("C&lear conversation")
                enabled: window.chat.messages.count > 0
                Accessible.name: qsTr("Clear the conversation")
                onTriggered: window.chat.clearConversation()
            }
        }
        Menu {
            title: qsTr("&Settings")
            MenuItem {
                text: qsTr("Settings for &new chats…")
                Accessible.name: qsTr("Settings new chats start with")
                onTriggered: defaultSettingsDialog.open()
            }
            Menu {
                id: languageMenu
                objectName: "languageMenu"
                title: qsTr("&Language")
                // "" follows the system; each language is named in itself.
                Instantiator {
                    model: Language.available
                    delegate: MenuItem {
                        id: languageItem
                        required property var modelData
                        text: languageItem.modelData.code === "" ? qsTr("System language") : languageItem.modelData.name
                        checkable: true
                        checked: Language.choice === languageItem.modelData.code
                        Accessible.name: languageItem.text
                        onTriggered: {
                            Language.choice = languageItem.modelData.code
                            // A click toggles `checked`; bind it to the choice again.
                            languageItem.checked = Qt.binding(() => Language.choice === languageItem.modelData.code)
                        }
                    }
                    onObjectAdded: (index, object) => languageMenu.insertItem(index, object)
                    onObjectRemoved: (index, object) => languageMenu.removeItem(object)
                }
            }
        }
        Menu {
            title: qsTr("&Help")
            MenuItem {
                text: qsTr("&About Burrow")
                Accessible.name: qsTr("About Burrow")
                onTriggered: aboutDialog.open()
            }
        }
    }

    Shortcut {
        sequence: "Ctrl+O"
        onActivated: window.openModelDialog()
    }
    Shortcut {
        sequences: ["Ctrl+Return", "Ctrl+Enter"]
        onActivated: window.composer.send()
    }
    Shortcut {
        sequence: "Esc"
        enabled: window.chat.generating
        onActivated: window.chat.stop()
    }
    Shortcut {
        sequence: "Ctrl+Shift+R"
        onActivated: window.chat.regenerate()
    }
    Shortcut {
        sequence: "Ctrl+L"
        onActivated: window.composer.focusInput()
    }

    Shortcut {
        sequences: [StandardKey.New]
        enabled: !sidebar.visible
        onActivated: window.chat.newConversation()
    }

    ConversationSidebar {
        id: sidebar
        anchors.left: parent.left
        anchors.top: parent.top
        anchors.bottom: parent.bottom
        width: 260
        visible: window.sidebarOpen
        shortcutsEnabled: visible
        store: window.chat.store
        currentId: window.chat.conversationId
        generatingId: window.chat.generatingConversationId
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
            service: window.archives
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
            visible: window.chat.loading
            fileName: window.chat.loadingFileName
            progress: window.chat.loadProgress
        }
        Item {
            Layout.fillWidth: true
            Layout.fillHeight: true

            EmptyState {
                anchors.fill: parent
                visible: !window.chat.hasModel && window.chat.messages.count === 0
                recentPaths: window.chat.recentModels.paths
                onOpenRequested: window.openModelDialog()
                onRecentRequested: (path) => window.chat.openFile(path, false)
            }
            ChatView {
                id: chatView
                anchors.fill: parent
                visible: window.chat.hasModel || window.chat.messages.count > 0
                chat: window.chat
                onEditRequested: (row, text) => window.editAndResend(row, text)
            }
            BusyIndicator {
                anchors.centerIn: parent
                running: window.chat.inspecting
                visible: running
                Accessible.name: qsTr("Reading the model file")
            }
        }
        Composer {
            id: composer
            Layout.fillWidth: true
            hasModel: window.chat.hasModel
            busy: window.chat.loading
            generating: window.chat.generating
            plainText: window.chat.hasModel && !window.chat.model.hasChatTemplate
            onSendRequested: (text) => { if (window.chat.send(text)) window.composer.clear() }
            onStopRequested: window.chat.stop()
        }
        StatusLine {
            Layout.fillWidth: true
            modelName: window.chat.hasModel ? window.chat.model.name : ""
            generating: window.chat.generating
            promptProgress: window.chat.promptProgress
            tokensPerSecond: window.chat.tokensPerSecond
            lastReplyStats: window.chat.lastReplyStats
            contextUsed: window.chat.contextUsed
            contextSize: window.chat.contextSize
        }
    }

    DropArea {
        id: dropArea
        objectName: "dropArea"
        anchors.fill: parent
        onEntered: (drag) => {
            dropOverlay.refusal = window.isArchive(drag.urls) ? "" : window.chat.refusalFor(drag.urls)
            drag.accept(Qt.CopyAction)
        }
        onDropped: (drop) => {
            drop.accept(Qt.CopyAction)
            window.openUrls(drop.urls)
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
    }

    FileDialog {
        id: fileDialog
        title: qsTr("Open a model")
        nameFilters: [qsTr("GGUF models (*.gguf)"),
                      qsTr("Compressed models (*.zip *.tar.gz *.tgz *.tar.xz *.tar.zst *.gguf.gz *.gguf.xz *.gguf.zst)"),
                      qsTr("All files (*)")]
        onAccepted: window.openUrls([selectedFile])
    }
    FileDialog {
        id: exportDialog
        objectName: "exportDialog"
        // Conversation ids to export; empty: all of them.
        property var ids: []
        title: qsTr("Export conversations")
        fileMode: FileDialog.SaveFile
        defaultSuffix: "zip"
        nameFilters: [qsTr("Zip archives (*.zip)")]
        onAccepted: window.archives.exportConversations(exportDialog.ids, window.localPath(selectedFile))
    }
    FileDialog {
        id: importDialog
        title: qsTr("Import conversations")
        nameFilters: [qsTr("Burrow exports (*.zip)"), qsTr("All files (*)")]
        onAccepted: window.archives.importConversations(window.localPath(selectedFile))
    }

    // The shown chat's settings; changes are saved at once and apply to the next reply.
    Drawer {
        id: chatSettingsDrawer
        objectName: "chatSettingsDrawer"
        edge: Qt.RightEdge
        width: Math.min(420, window.width * 0.9)
        height: window.height
        ChatSettingsPanel {
            anchors.fill: parent
            settings: window.chat.settings
            defaultSettings: DefaultSettings
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
        ChatSettingsPanel {
            anchors.fill: parent
            settings: DefaultSettings.settings
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
        standardButtons: Dialog.Ok | Dialog.Cancel
        Label {
            text: qsTr("Sending the edited message replaces the messages after it.")
        }
        onAccepted: window.chat.editAndResend(row, text)
    }

    AboutDialog {
        id: aboutDialog
    }
}
