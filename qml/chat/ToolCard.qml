import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// One tool call of a reply (ToolRunner): the tool's name and arguments;
// while it waits, Allow once / Always for this chat / Deny; then what came
// back (the result, the error, or that it was denied).
Frame {
    id: root

    // The call: {id, name, arguments, decision, state, result}.
    required property var call
    required property int callIndex
    // The reply's row in the chat, and the chat (set by the message).
    property int row: -1
    property ChatController chat: null

    readonly property string callState: root.call.state
    readonly property bool pending: root.callState === "pending"

    function decide(decision: string): void {
        if (root.chat !== null)
            root.chat.decideTool(root.row, root.callIndex, decision)
    }

    objectName: "toolCard" + root.callIndex
    Accessible.role: Accessible.Grouping
    Accessible.name: qsTr("Tool call %1").arg(root.call.name)

    ColumnLayout {
        anchors.left: parent.left
        anchors.right: parent.right
        spacing: 6

        Label {
            objectName: "toolCardName"
            Layout.fillWidth: true
            font.bold: true
            elide: Text.ElideRight
            text: qsTr("Tool: %1").arg(root.call.name)
        }
        Label {
            objectName: "toolCardArguments"
            Layout.fillWidth: true
            wrapMode: Text.WrapAnywhere
            maximumLineCount: 12
            elide: Text.ElideRight
            font.family: "monospace"
            textFormat: Text.PlainText
            text: root.call.arguments
        }
        RowLayout {
            visible: root.pending
            spacing: 6
            Button {
                objectName: "toolAllowOnce"
                text: qsTr("Allow once")
                Accessible.name: qsTr("Run %1 this time").arg(root.call.name)
                onClicked: root.decide("once")
            }
            Button {
                objectName: "toolAllowAlways"
                text: qsTr("Always for this chat")
                Accessible.name: qsTr("Run %1 without asking in this chat").arg(root.call.name)
                onClicked: root.decide("always")
            }
            Button {
                objectName: "toolDeny"
                text: qsTr("Deny")
                Accessible.name: qsTr("Do not run %1").arg(root.call.name)
                onClicked: root.decide("denied")
            }
        }
        Label {
            objectName: "toolCardState"
            Layout.fillWidth: true
            opacity: 0.7
            font.italic: true
            text: root.callState === "running" ? qsTr("Running…")
                : root.callState === "failed" ? qsTr("The call failed:")
                : root.callState === "denied" ? qsTr("Denied.")
                : root.callState === "done" ? (root.call.decision === "always" ? qsTr("Result (allowed for this chat):")
                                                                                : qsTr("Result:"))
                : qsTr("The model wants to call this tool.")
        }
        Label {
            objectName: "toolCardResult"
            Layout.fillWidth: true
            visible: root.callState === "done" || root.callState === "failed"
            wrapMode: Text.Wrap
            maximumLineCount: 20
            elide: Text.ElideRight
            textFormat: Text.PlainText
            color: root.callState === "failed" ? Theme.negativeText : root.palette.windowText
            text: root.call.result
        }
    }
}
