import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// The chat's header: the sidebar toggle, the chat's title and the button
// that opens its settings; under it, when the chat was written with another
// model than the loaded one, the offer to load that model or go on.
ColumnLayout {
    id: root
    objectName: "chatHeader"
    spacing: 0

    required property ChatController chat
    property bool sidebarOpen: true

    signal sidebarToggled()
    signal settingsRequested()

    RowLayout {
        Layout.fillWidth: true
        Layout.leftMargin: 4
        Layout.rightMargin: 4
        spacing: 4

        ToolButton {
            objectName: "sidebarToggle"
            text: root.sidebarOpen ? "\u2039" : "\u2630"
            Accessible.name: root.sidebarOpen ? qsTr("Hide the conversations") : qsTr("Show the conversations")
            ToolTip.visible: hovered
            ToolTip.text: Accessible.name
            onClicked: root.sidebarToggled()
        }
        Label {
            objectName: "chatTitle"
            Layout.fillWidth: true
            elide: Text.ElideRight
            font.bold: true
            text: root.chat.conversation.title !== "" ? root.chat.conversation.title : qsTr("New chat")
        }
        ToolButton {
            objectName: "chatSettingsButton"
            text: qsTr("Settings")
            Accessible.name: qsTr("Settings of this chat")
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Sampling, reply length, context size and system prompt of this chat")
            onClicked: root.settingsRequested()
        }
    }

    Rectangle {
        objectName: "modelPrompt"
        Layout.fillWidth: true
        visible: root.chat.conversation.otherModelPath !== ""
        implicitHeight: promptRow.implicitHeight + 16
        color: Theme.noticeBackground
        border.color: Theme.noticeBorder
        Accessible.role: Accessible.AlertMessage
        Accessible.name: promptText.text

        RowLayout {
            id: promptRow
            anchors.fill: parent
            anchors.margins: 8
            spacing: 8

            Label {
                id: promptText
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: !root.chat.conversation.otherModelFound
                    ? qsTr("This chat was written with %1, which is not on this computer.").arg(root.chat.conversation.otherModelName)
                    : root.chat.models.hasModel
                    ? qsTr("This chat was written with %1; %2 is loaded.").arg(root.chat.conversation.otherModelName)
                                                                           .arg(root.chat.models.model.name)
                    : qsTr("This chat was written with %1.").arg(root.chat.conversation.otherModelName)
            }
            Button {
                objectName: "loadChatModel"
                visible: root.chat.conversation.otherModelFound
                text: qsTr("Load %1").arg(root.chat.conversation.otherModelName)
                onClicked: root.chat.loadConversationModel()
            }
            Button {
                objectName: "continueWithLoaded"
                visible: root.chat.models.hasModel
                text: qsTr("Continue with %1").arg(root.chat.models.hasModel ? root.chat.models.model.name : "")
                onClicked: root.chat.continueWithLoadedModel()
            }
        }
    }
}
