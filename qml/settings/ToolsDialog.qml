import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// Settings → Tools: MCP servers (a program Burrow starts, or an address)
// whose tools the model may call in a chat; each call waits for the user's
// approval on its card (docs/app.md, "Tools (MCP)"). With no server the
// model is offered no tools.
Dialog {
    id: root
    objectName: "toolsDialog"

    required property ToolServers tools

    function addServer(): void {
        const added = byUrl.checked ? root.tools.addUrl(nameField.text, commandField.text)
                                    : root.tools.addCommand(nameField.text, commandField.text, envField.text)
        if (added) {
            nameField.text = ""
            commandField.text = ""
            envField.text = ""
        }
    }

    title: qsTr("Tools")
    modal: true
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 600, 600)
    standardButtons: Dialog.Close

    ColumnLayout {
        width: parent ? parent.width : implicitWidth
        spacing: 10

        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Let the model use tools from MCP servers: a program Burrow starts (stdio), or a server at an "
                       + "address (streamable HTTP). You allow each call in the chat before it runs.")
        }
        ToolServerList {
            objectName: "toolServerList"
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(contentHeight, 280)
            clip: true
            model: root.tools
            delegate: ToolServerRow {}
            onRefreshRequested: (row) => root.tools.refresh(row)
            onRemoveRequested: (row) => root.tools.remove(row)
        }
        Label {
            visible: root.tools.count === 0
            text: qsTr("No tool servers yet: the model is offered no tools.")
            opacity: 0.7
        }
        RowLayout {
            spacing: 12
            RadioButton {
                id: byCommand
                objectName: "toolByCommand"
                text: qsTr("Command")
                checked: true
            }
            RadioButton {
                id: byUrl
                objectName: "toolByUrl"
                text: qsTr("Address")
            }
        }
        GridLayout {
            Layout.fillWidth: true
            columns: 2
            columnSpacing: 8
            rowSpacing: 6
            Label {
                text: byUrl.checked ? qsTr("Address") : qsTr("Command")
            }
            TextField {
                id: commandField
                objectName: "toolCommand"
                Layout.fillWidth: true
                placeholderText: byUrl.checked ? "http://127.0.0.1:3001/mcp"
                                               : "npx -y @modelcontextprotocol/server-everything"
                Accessible.name: byUrl.checked ? qsTr("Server address") : qsTr("Command and arguments")
                onAccepted: root.addServer()
            }
            Label {
                text: qsTr("Name")
            }
            TextField {
                id: nameField
                objectName: "toolName"
                Layout.fillWidth: true
                placeholderText: qsTr("optional, e.g. files")
                Accessible.name: qsTr("Tool server name")
                onAccepted: root.addServer()
            }
            Label {
                visible: byCommand.checked
                text: qsTr("Environment")
            }
            TextArea {
                id: envField
                objectName: "toolEnv"
                visible: byCommand.checked
                Layout.fillWidth: true
                placeholderText: qsTr("NAME=value, one per line (optional)")
                Accessible.name: qsTr("Environment variables")
            }
        }
        Label {
            objectName: "toolsProblem"
            Layout.fillWidth: true
            visible: text !== ""
            wrapMode: Text.Wrap
            color: Theme.negativeText
            text: root.tools.problem
        }
        Button {
            objectName: "toolAdd"
            Layout.alignment: Qt.AlignRight
            text: qsTr("Add")
            enabled: commandField.text.trim() !== ""
            onClicked: root.addServer()
        }
    }
}
