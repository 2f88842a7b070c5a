import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// Settings → Hugging Face access token…: the optional token that gated and
// private repositories need, saved in the system keychain (or, without one,
// in a file only the user can read). The token is never shown back: only
// whether one is saved and where (app/models/accesstoken.h).
Dialog {
    id: root
    objectName: "accessTokenDialog"

    readonly property AccessToken token: DownloadManager.token

    title: qsTr("Hugging Face access token")
    modal: true
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 520, 520)
    standardButtons: Dialog.Close
    onOpened: {
        tokenField.text = ""
        tokenField.forceActiveFocus()
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 10

        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Gated and private repositories need an access token: create a read token in your "
                       + "Hugging Face account (Settings → Access Tokens) and accept the model's license on its "
                       + "page. Burrow sends the token to the hub only, never to the servers the downloads come from.")
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            TextField {
                id: tokenField
                objectName: "accessTokenField"
                Layout.fillWidth: true
                echoMode: TextInput.Password
                placeholderText: root.token.isSet ? qsTr("paste a new token to replace the saved one") : qsTr("hf_…")
                Accessible.name: qsTr("Access token")
                onAccepted: saveButton.clicked()
            }
            Button {
                id: saveButton
                objectName: "accessTokenSave"
                text: qsTr("Save")
                enabled: tokenField.text.trim() !== "" && !root.token.busy
                Accessible.name: qsTr("Save the access token")
                onClicked: {
                    if (root.token.save(tokenField.text))
                        tokenField.text = ""
                }
            }
        }
        Label {
            objectName: "accessTokenState"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: root.token.busy ? qsTr("Saving…")
                                  : root.token.isSet ? root.token.storageText : qsTr("No token is saved.")
        }
        Label {
            objectName: "accessTokenError"
            Layout.fillWidth: true
            visible: text !== ""
            wrapMode: Text.Wrap
            text: root.token.error
            color: Theme.negativeText
            Accessible.role: Accessible.AlertMessage
            Accessible.name: text
        }
        Button {
            objectName: "accessTokenRemove"
            text: qsTr("Remove the saved token")
            enabled: root.token.isSet && !root.token.busy
            Accessible.name: qsTr("Remove the saved access token")
            onClicked: root.token.clear()
        }
    }
}
