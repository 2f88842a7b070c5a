import QtQuick
import QtQuick.Controls
import Burrow

// The window's menus, on the shared Actions (AppActions): a menu entry and
// its shortcut are the same Action.
MenuBar {
    id: root
    required property AppActions actions
    required property ChatController chat
    // Chats selected in the sidebar (Export selected is offered for 2 or more).
    property var selectedIds: []

    signal exportRequested(var ids)
    signal importRequested()

    delegate: MenuBarItem {
        Accessible.name: menu ? menu.title.replace("&", "") : ""
    }
    AppMenu {
        title: qsTr("&File")
        MenuItem {
            action: root.actions.openModel
            Accessible.name: qsTr("Open model")
        }
        MenuItem {
            objectName: "libraryMenuItem"
            action: root.actions.library
            Accessible.name: qsTr("Models on this computer")
        }
        MenuItem {
            objectName: "downloadModelMenuItem"
            action: root.actions.downloadModel
            Accessible.name: qsTr("Download a model from the Hugging Face hub")
        }
        Menu {
            id: recentMenu
            title: qsTr("Recent models")
            enabled: root.chat.models.recentModels.paths.length > 0
            // One entry per recent file; what it opens is connected here,
            // where the chat is in reach (a delegate sees only its own data).
            Instantiator {
                model: root.chat.models.recentModels.paths
                delegate: RecentModelItem {}
                onObjectAdded: (index, object) => {
                    const item = object as RecentModelItem
                    item.triggered.connect(() => root.chat.models.openFile(item.modelData, false))
                    recentMenu.insertItem(index, item)
                }
                onObjectRemoved: (index, object) => recentMenu.removeItem(object as MenuItem)
            }
        }
        MenuSeparator {}
        MenuItem {
            text: qsTr("E&xport this conversation…")
            enabled: !root.chat.archives.busy && root.chat.conversation.conversationId > 0
            Accessible.name: qsTr("Export this conversation to a zip file")
            onTriggered: root.exportRequested([root.chat.conversation.conversationId])
        }
        MenuItem {
            objectName: "exportSelectedMenuItem"
            // Shown while several chats are selected in the sidebar.
            visible: root.selectedIds.length > 1
            height: visible ? implicitHeight : 0
            text: qsTr("Export se&lected conversations (%1)…").arg(root.selectedIds.length)
            enabled: !root.chat.archives.busy
            Accessible.name: qsTr("Export the %1 selected conversations to a zip file").arg(root.selectedIds.length)
            onTriggered: root.exportRequested(root.selectedIds)
        }
        MenuItem {
            text: qsTr("&Export all conversations…")
            enabled: !root.chat.archives.busy
            Accessible.name: qsTr("Export all conversations to a zip file")
            onTriggered: root.exportRequested([])
        }
        MenuItem {
            text: qsTr("&Import conversations…")
            enabled: !root.chat.archives.busy
            Accessible.name: qsTr("Import conversations from a Burrow export")
            onTriggered: root.importRequested()
        }
        MenuSeparator {}
        MenuItem {
            action: root.actions.quit
            Accessible.name: qsTr("Quit Burrow")
        }
    }
    AppMenu {
        title: qsTr("&Chat")
        MenuItem {
            action: root.actions.newChat
            Accessible.name: qsTr("Start a new chat")
        }
        MenuItem {
            action: root.actions.chatSettings
            Accessible.name: qsTr("Settings of this chat")
        }
        MenuSeparator {}
        MenuItem {
            action: root.actions.stop
            Accessible.name: qsTr("Stop the reply")
        }
        MenuItem {
            action: root.actions.regenerate
            Accessible.name: qsTr("Regenerate the last reply")
        }
        MenuItem {
            action: root.actions.clear
            Accessible.name: qsTr("Clear the conversation")
        }
        MenuItem {
            objectName: "undoDeleteMenuItem"
            action: root.actions.undoDelete
            Accessible.name: qsTr("Bring back the chat just deleted")
        }
    }
    AppMenu {
        id: settingsMenu
        title: qsTr("&Settings")
        MenuItem {
            action: root.actions.defaultSettings
            Accessible.name: qsTr("Settings new chats start with")
        }
        MenuItem {
            objectName: "localServerMenuItem"
            action: root.actions.localServer
            Accessible.name: qsTr("Local server settings")
        }
        MenuItem {
            objectName: "serversMenuItem"
            action: root.actions.servers
            Accessible.name: qsTr("Servers whose models you can chat with")
        }
        MenuItem {
            objectName: "toolsMenuItem"
            action: root.actions.tools
            Accessible.name: qsTr("Tool servers the model may call")
        }
        MenuItem {
            objectName: "accessTokenMenuItem"
            action: root.actions.accessToken
            Accessible.name: qsTr("The Hugging Face access token for downloads")
        }
        LanguageMenu {}
    }
    AppMenu {
        title: qsTr("&Help")
        MenuItem {
            action: root.actions.about
            Accessible.name: qsTr("About Burrow")
        }
    }
}
