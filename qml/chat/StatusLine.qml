import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// The model, the reply's speed (or the prompt's progress), the last reply's
// numbers, and how full the context is. Every number is its owner's: the
// reply stream's token counts and speed (the engine's), the engine bridge's
// context size.
Pane {
    id: root
    objectName: "statusLine"

    required property ChatController chat
    readonly property ReplyStream reply: chat.reply

    padding: 4
    leftPadding: 8
    rightPadding: 8

    RowLayout {
        anchors.fill: parent
        spacing: 12

        Label {
            objectName: "statusModel"
            text: !root.chat.models.hasModel ? qsTr("No model loaded")
                  : root.chat.models.model.remote ? qsTr("%1 on %2 (remote)").arg(root.chat.models.model.name)
                                                                             .arg(root.chat.models.model.remoteServer)
                  : root.chat.models.model.name
            elide: Text.ElideRight
            Layout.maximumWidth: 260
            opacity: 0.8
        }
        ProgressBar {
            objectName: "statusPromptProgress"
            visible: root.reply.active && root.reply.promptProgress >= 0
            from: 0
            to: 1
            value: Math.max(0, root.reply.promptProgress)
            Layout.preferredWidth: 120
            Accessible.name: qsTr("Reading the prompt")
        }
        Label {
            objectName: "statusSpeed"
            Layout.fillWidth: true
            // The reply's speed stays readable; the server's line gives way first.
            Layout.minimumWidth: Math.min(implicitWidth, 160)
            elide: Text.ElideRight
            text: root.reply.active
                  ? (root.reply.promptProgress >= 0
                     ? qsTr("Reading the prompt… %1%").arg(Math.round(root.reply.promptProgress * 100))
                     : qsTr("%1 tokens/s").arg(root.reply.tokensPerSecond.toFixed(1)))
                  : root.reply.lastReplyStats
        }
        Label {
            objectName: "statusServer"
            visible: text !== ""
            text: root.chat.server.statusText
            elide: Text.ElideRight
            Layout.fillWidth: true
            Layout.minimumWidth: Math.min(implicitWidth, 80)
            Layout.maximumWidth: implicitWidth
            opacity: 0.8
        }
        Label {
            objectName: "statusContextWanted"
            visible: root.chat.contextWanted > 0
            text: qsTr("this chat asks for %L1: the next reply makes the context again").arg(root.chat.contextWanted)
            opacity: 0.7
        }
        Label {
            objectName: "statusContext"
            visible: root.chat.contextSize > 0
            text: qsTr("Context %L1 / %L2").arg(root.reply.contextUsed).arg(root.chat.contextSize)
        }
        ProgressBar {
            objectName: "contextMeter"
            visible: root.chat.contextSize > 0
            from: 0
            to: Math.max(1, root.chat.contextSize)
            value: root.reply.contextUsed
            Layout.preferredWidth: 120
            Accessible.name: qsTr("Context used")
            Accessible.description: qsTr("%1 of %2 tokens").arg(root.reply.contextUsed).arg(root.chat.contextSize)
        }
    }
}
