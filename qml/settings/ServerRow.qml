import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// One server of Settings → Servers: its name and address, its models (or
// why they could not be listed), where its API key is kept; Refresh and Remove.
ItemDelegate {
    id: root

    required property int index
    required property string name
    required property string url
    required property var models
    required property string status
    required property string keyText
    required property bool insecure

    objectName: "serverRow" + index
    width: ListView.view ? ListView.view.width : implicitWidth
    Accessible.name: qsTr("%1 at %2: %3").arg(root.name).arg(root.url).arg(root.status)

    contentItem: RowLayout {
        spacing: 8
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            Label {
                objectName: "serverRowName"
                Layout.fillWidth: true
                text: root.name
                font.bold: true
                elide: Text.ElideRight
            }
            Label {
                Layout.fillWidth: true
                text: root.url + (root.insecure ? "  " + qsTr("(not encrypted)") : "")
                elide: Text.ElideMiddle
                opacity: 0.7
            }
            Label {
                objectName: "serverRowStatus"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: root.status + (root.models.length > 0 ? ": " + root.models.join(", ") : "")
                maximumLineCount: 3
                elide: Text.ElideRight
            }
            Label {
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: root.keyText
                opacity: 0.6
                font.pixelSize: 11
            }
        }
        Button {
            objectName: "serverRowRefresh"
            text: qsTr("Refresh")
            Accessible.name: qsTr("List the models of %1 again").arg(root.name)
            onClicked: (root.ListView.view as ServerList).refreshRequested(root.index)
        }
        Button {
            objectName: "serverRowRemove"
            text: qsTr("Remove")
            Accessible.name: qsTr("Remove %1").arg(root.name)
            onClicked: (root.ListView.view as ServerList).removeRequested(root.index)
        }
    }
}
