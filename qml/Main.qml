import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Burrow

// The chat window: drop a .gguf on it, read the card, load, chat.
ApplicationWindow {
    id: window
    objectName: "mainWindow"
    width: 1000
    height: 720
    minimumWidth: 480
    minimumHeight: 360
    visible: true
    title: chat.hasModel ? qsTr("%1 — Burrow").arg(chat.model.name) : qsTr("Burrow")

    readonly property ChatController chat: ChatController {}
    readonly property alias composer: composer

    function openModelDialog() { fileDialog.open() }

    function editAndResend(row, text) {
        if (chat.editDiscardsReplies(row)) {
            confirmEdit.row = row
            confirmEdit.text = text
            confirmEdit.open()
        } else {
            chat.editAndResend(row, text)
        }
    }

    menuBar: MenuBar {
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
                enabled: chat.recentModels.paths.length > 0
                Instantiator {
                    model: chat.recentModels.paths
                    delegate: MenuItem {
                        required property string modelData
                        text: modelData.substring(modelData.lastIndexOf("/") + 1)
                        Accessible.name: qsTr("Open recent model %1").arg(text)
                        onTriggered: chat.openFile(modelData, false)
                    }
                    onObjectAdded: (index, object) => recentMenu.insertItem(index, object)
                    onObjectRemoved: (index, object) => recentMenu.removeItem(object)
                }
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
                text: qsTr("&Stop reply")
                enabled: chat.generating
                Accessible.name: qsTr("Stop the reply")
                onTriggered: chat.stop()
            }
            MenuItem {
                text: qsTr("&Regenerate reply")
                enabled: chat.canRegenerate
                Accessible.name: qsTr("Regenerate the last reply")
                onTriggered: chat.regenerate()
            }
            MenuItem {
                text: qsTr("C&lear conversation")
                enabled: chat.messages.count > 0
                Accessible.name: qsTr("Clear the conversation")
                onTriggered: chat.clearConversation()
            }
        }
    }

    Shortcut {
        sequence: "Ctrl+O"
        onActivated: window.openModelDialog()
    }
    Shortcut {
        sequences: ["Ctrl+Return", "Ctrl+Enter"]
        onActivated: composer.send()
    }
    Shortcut {
        sequence: "Esc"
        enabled: chat.generating
        onActivated: chat.stop()
    }
    Shortcut {
        sequence: "Ctrl+Shift+R"
        onActivated: chat.regenerate()
    }
    Shortcut {
        sequence: "Ctrl+L"
        onActivated: composer.focusInput()
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0

        Banner {
            Layout.fillWidth: true
            visible: chat.banner !== ""
            text: chat.banner
            onDismissed: chat.dismissBanner()
        }
        LoadingBar {
            Layout.fillWidth: true
            visible: chat.loading
            fileName: chat.loadingFileName
            progress: chat.loadProgress
        }
        Item {
            Layout.fillWidth: true
            Layout.fillHeight: true

            EmptyState {
                anchors.fill: parent
                visible: !chat.hasModel && chat.messages.count === 0
                recentPaths: chat.recentModels.paths
                onOpenRequested: window.openModelDialog()
                onRecentRequested: (path) => chat.openFile(path, false)
            }
            ChatView {
                id: chatView
                anchors.fill: parent
                visible: chat.hasModel || chat.messages.count > 0
                chat: window.chat
                onEditRequested: (row, text) => window.editAndResend(row, text)
            }
            BusyIndicator {
                anchors.centerIn: parent
                running: chat.inspecting
                visible: running
                Accessible.name: qsTr("Reading the model file")
            }
        }
        Composer {
            id: composer
            Layout.fillWidth: true
            hasModel: chat.hasModel
            busy: chat.loading
            generating: chat.generating
            plainText: chat.hasModel && !chat.model.hasChatTemplate
            onSendRequested: (text) => { if (chat.send(text)) composer.clear() }
            onStopRequested: chat.stop()
        }
        StatusLine {
            Layout.fillWidth: true
            modelName: chat.hasModel ? chat.model.name : ""
            generating: chat.generating
            promptProgress: chat.promptProgress
            tokensPerSecond: chat.tokensPerSecond
            lastReplyStats: chat.lastReplyStats
            contextUsed: chat.contextUsed
            contextSize: chat.contextSize
        }
    }

    DropArea {
        id: dropArea
        objectName: "dropArea"
        anchors.fill: parent
        onEntered: (drag) => {
            dropOverlay.refusal = chat.refusalFor(drag.urls)
            drag.accept(Qt.CopyAction)
        }
        onDropped: (drop) => {
            drop.accept(Qt.CopyAction)
            chat.openUrls(drop.urls)
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
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: chat.openUrls([selectedFile])
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
        onAccepted: chat.editAndResend(row, text)
    }
}
