import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// Settings → Local server: the OpenAI-compatible API (docs/server.md) on the
// loaded model, for other programs on this machine (or the network, when
// allowed). Off by default; every change applies at once and is kept.
Dialog {
    id: root
    objectName: "localServerDialog"

    required property LocalServer server

    title: qsTr("Local server")
    modal: true
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 480, 480)
    standardButtons: Dialog.Close

    contentItem: ColumnLayout {
        spacing: 10

        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Serves the loaded model over an OpenAI-compatible API (/v1/chat/completions, "
                       + "/v1/completions, /v1/models), for programs such as editor plug-ins or SDKs. "
                       + "Your own chats run first.")
        }
        Switch {
            objectName: "serverEnabled"
            text: qsTr("Run the local server")
            checked: root.server.enabled
            onToggled: root.server.enabled = checked
        }
        RowLayout {
            spacing: 8
            Label {
                text: qsTr("Port")
            }
            SpinBox {
                objectName: "serverPort"
                from: 1
                to: 65535
                editable: true
                value: root.server.port
                textFromValue: (value) => String(value)   // no group separator in a port
                valueFromText: (text) => parseInt(text, 10)
                onValueModified: root.server.port = value
                Accessible.name: qsTr("Port")
            }
        }
        CheckBox {
            objectName: "serverAllowNetwork"
            text: qsTr("Allow other devices on the network")
            checked: root.server.allowNetwork
            onToggled: root.server.allowNetwork = checked
        }
        Label {
            objectName: "serverNetworkWarning"
            Layout.fillWidth: true
            visible: root.server.allowNetwork
            wrapMode: Text.Wrap
            color: "#b35c00"
            text: qsTr("Anyone who can reach this computer can use the model. Set an API key.")
        }
        RowLayout {
            spacing: 8
            Label {
                text: qsTr("API key")
            }
            TextField {
                objectName: "serverApiKey"
                Layout.fillWidth: true
                echoMode: TextInput.PasswordEchoOnEdit
                placeholderText: qsTr("none (optional)")
                text: root.server.apiKey
                onEditingFinished: root.server.apiKey = text
                Accessible.name: qsTr("API key")
            }
        }
        Label {
            objectName: "serverStatus"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            visible: text !== ""
            text: root.server.statusText
        }
    }
}
