import QtQuick
import QtQuick.Controls
import Burrow

// Every command of the window that has a menu entry or a shortcut, once.
// The menu bar (AppMenuBar) and the rest of the window use these Actions,
// so each shortcut has exactly one owner; the window's own handlers (the
// dialogs it opens) are the signals.
Item {
    id: root
    required property ChatController chat
    // The sidebar is shown (New chat and Find go through it then).
    property bool sidebarShown: true

    signal openModelRequested()
    signal libraryRequested()
    signal downloadModelRequested()
    signal accessTokenRequested()
    signal newChatRequested()
    signal findRequested()
    signal chatSettingsRequested()
    signal defaultSettingsRequested()
    signal localServerRequested()
    signal serversRequested()
    signal toolsRequested()
    signal aboutRequested()
    signal sendRequested()
    signal focusComposerRequested()
    signal undoDeleteRequested()

    // A chat was just deleted and the sidebar offers Undo.
    property bool undoDeleteAvailable: false

    // The standard commands take the platform's keys (StandardKeys, C++:
    // QML's StandardKey enum is unknown to Qt 6.4's qmllint).
    readonly property Action openModel: Action {
        text: qsTr("&Open model…")
        shortcut: StandardKeys.open
        onTriggered: root.openModelRequested()
    }
    readonly property Action library: Action {
        text: qsTr("Model &library…")
        shortcut: "Ctrl+Shift+L"
        onTriggered: root.libraryRequested()
    }
    readonly property Action downloadModel: Action {
        text: qsTr("&Download a model…")
        onTriggered: root.downloadModelRequested()
    }
    readonly property Action accessToken: Action {
        text: qsTr("Hugging Face &access token…")
        onTriggered: root.accessTokenRequested()
    }
    readonly property Action quit: Action {
        text: qsTr("&Quit")
        shortcut: StandardKeys.quit
        onTriggered: Qt.quit()
    }
    readonly property Action newChat: Action {
        text: qsTr("&New chat")
        shortcut: StandardKeys.newItem
        onTriggered: root.newChatRequested()
    }
    readonly property Action find: Action {
        text: qsTr("&Find a chat")
        shortcut: StandardKeys.find
        onTriggered: root.findRequested()
    }
    readonly property Action chatSettings: Action {
        text: qsTr("Chat s&ettings…")
        onTriggered: root.chatSettingsRequested()
    }
    readonly property Action stop: Action {
        text: qsTr("&Stop reply")
        shortcut: "Esc"
        enabled: root.chat.reply.active
        onTriggered: root.chat.stop()
    }
    readonly property Action regenerate: Action {
        text: qsTr("&Regenerate reply")
        shortcut: "Ctrl+Shift+R"
        enabled: root.chat.canRegenerate
        onTriggered: root.chat.regenerate()
    }
    readonly property Action clear: Action {
        text: qsTr("C&lear conversation")
        enabled: root.chat.conversation.messages.count > 0
        onTriggered: root.chat.clearConversation()
    }
    // Ctrl+Z while the sidebar offers Undo (the composer passes it on too).
    readonly property Action undoDelete: Action {
        text: qsTr("&Undo delete")
        shortcut: StandardKeys.undo
        enabled: root.undoDeleteAvailable
        onTriggered: root.undoDeleteRequested()
    }
    readonly property Action defaultSettings: Action {
        text: qsTr("Settings for &new chats…")
        onTriggered: root.defaultSettingsRequested()
    }
    readonly property Action localServer: Action {
        text: qsTr("Local &server…")   // S: L is Language's
        onTriggered: root.localServerRequested()
    }
    readonly property Action servers: Action {
        text: qsTr("Ser&vers…")   // V: S is Local server's
        onTriggered: root.serversRequested()
    }
    readonly property Action tools: Action {
        text: qsTr("&Tools…")
        onTriggered: root.toolsRequested()
    }
    readonly property Action about: Action {
        text: qsTr("&About Burrow")
        onTriggered: root.aboutRequested()
    }
    readonly property Action focusComposer: Action {
        text: qsTr("Write a message")
        shortcut: "Ctrl+L"
        onTriggered: root.focusComposerRequested()
    }
    // Send from anywhere in the window (in the composer Enter sends too).
    readonly property Action send: Action {
        text: qsTr("Send")
        shortcut: "Ctrl+Return"
        onTriggered: root.sendRequested()
    }
    // The keypad's Enter with Ctrl: the same as send (an Action has one shortcut).
    Shortcut {
        sequence: "Ctrl+Enter"
        onActivated: root.send.trigger()
    }
}
