import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// One MCP server of Settings → Tools: its name, command or address, its
// tools (or why they could not be listed); Restart and Remove.
ItemDelegate {
    id: root

    required property int index
    required property string name
    required property string target
    required property string status
    required property bool failed
    required property var tools

    objectName: "toolServerRow" + index
    width: ListView.view ? ListView.view.width : implicitWidth
    Accessible.name: qsTr("%1 (%2): %3").arg(root.name).arg(root.target).arg(root.status)

    contentItem: RowLayout {
        spacing: 8
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            Label {
                Layout.fillWidth: true
                text: root.name
                font.bold: true
                elide: Text.ElideRight
            }
            Label {
                Layout.fillWidth: true
                text: root.target
                elide: Text.ElideMiddle
                opacity: 0.7
            }
            Label {
                objectName: "toolServerStatus"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                color: root.failed ? Theme.negativeText : root.palette.windowText
                text: root.status
            }
            Label {
                objectName: "toolServerTools"
                Layout.fillWidth: true
                visible: root.tools.length > 0
                wrapMode: Text.Wrap
                text: root.tools.join("\n")
                maximumLineCount: 12
                elide: Text.ElideRight
                opacity: 0.8
                font.pixelSize: 11
            }
        }
        Button {
            objectName: "toolServerRestart"
            text: qsTr("Restart")
            Accessible.name: qsTr("Start %1 again and list its tools").arg(root.name)
            onClicked: (root.ListView.view as ToolServerList).refreshRequested(root.index)
        }
        Button {
            objectName: "toolServerRemove"
            text: qsTr("Remove")
            Accessible.name: qsTr("Remove %1").arg(root.name)
            onClicked: (root.ListView.view as ToolServerList).removeRequested(root.index)
        }
    }
}
