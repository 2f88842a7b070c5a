import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// A message across the top of the window (a refused file, a failed load).
Rectangle {
    id: root
    objectName: "banner"

    property string text
    signal dismissed()

    implicitHeight: row.implicitHeight + 16
    color: Theme.warningBackground
    border.color: Theme.warningBorder
    Accessible.role: Accessible.AlertMessage
    Accessible.name: root.text

    RowLayout {
        id: row
        anchors.fill: parent
        anchors.margins: 8
        spacing: 8

        Label {
            objectName: "bannerText"
            Layout.fillWidth: true
            text: root.text
            wrapMode: Text.Wrap
        }
        Button {
            text: qsTr("Dismiss")
            flat: true
            Accessible.name: qsTr("Dismiss this message")
            onClicked: root.dismissed()
        }
    }
}
