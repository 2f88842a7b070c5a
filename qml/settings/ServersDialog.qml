import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// Settings → Servers: OpenAI-compatible servers elsewhere (vLLM,
// llama-server, Ollama's /v1, LM Studio, another Burrow) whose models the
// library lists beside the local files (docs/app.md, "Models on other
// computers"). Burrow sends nothing to a server that is not in this list.
Dialog {
    id: root
    objectName: "serversDialog"

    required property RemoteServers servers

    function addServer(): void {
        if (root.servers.add(nameField.text, urlField.text, keyField.text)) {
            nameField.text = ""
            urlField.text = ""
            keyField.text = ""
        }
    }

    title: qsTr("Servers")
    modal: true
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 560, 560)
    standardButtons: Dialog.Close

    // A single child sizes the dialog (no contentItem binding: its ids would not be deferred).
    ColumnLayout {
        width: parent ? parent.width : implicitWidth
        spacing: 10

        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Chat with models that run on another computer, served over an OpenAI-compatible API "
                       + "(vLLM, llama-server, Ollama, LM Studio, another Burrow). Their models appear in the "
                       + "model library, marked remote.")
        }
        ServerList {
            id: serverList
            objectName: "serverList"
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(contentHeight, 260)
            clip: true
            model: root.servers
            delegate: ServerRow {}
            onRefreshRequested: (row) => root.servers.refresh(row)
            onRemoveRequested: (row) => root.servers.remove(row)
        }
        Label {
            visible: root.servers.count === 0
            text: qsTr("No servers yet.")
            opacity: 0.7
        }
        GridLayout {
            Layout.fillWidth: true
            columns: 2
            columnSpacing: 8
            rowSpacing: 6
            Label {
                text: qsTr("Address")
            }
            TextField {
                id: urlField
                objectName: "serverUrl"
                Layout.fillWidth: true
                placeholderText: "http://192.168.1.20:8000/v1"
                inputMethodHints: Qt.ImhUrlCharactersOnly
                Accessible.name: qsTr("Server address")
                onAccepted: root.addServer()
            }
            Label {
                text: qsTr("Name")
            }
            TextField {
                id: nameField
                objectName: "serverName"
                Layout.fillWidth: true
                placeholderText: qsTr("optional, e.g. GPU box")
                Accessible.name: qsTr("Server name")
                onAccepted: root.addServer()
            }
            Label {
                text: qsTr("API key")
            }
            TextField {
                id: keyField
                objectName: "serverKey"
                Layout.fillWidth: true
                echoMode: TextInput.Password
                placeholderText: qsTr("none (optional)")
                Accessible.name: qsTr("API key")
                onAccepted: root.addServer()
            }
        }
        Label {
            objectName: "serversProblem"
            Layout.fillWidth: true
            visible: text !== ""
            wrapMode: Text.Wrap
            color: root.servers.warned ? "#b35c00" : Theme.negativeText
            text: root.servers.problem
        }
        Button {
            objectName: "serverAdd"
            Layout.alignment: Qt.AlignRight
            text: root.servers.warned ? qsTr("Add anyway") : qsTr("Add")
            enabled: urlField.text.trim() !== ""
            onClicked: root.addServer()
        }
    }
}
