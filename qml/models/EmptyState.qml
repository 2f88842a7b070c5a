import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// What the window shows before a model is loaded.
Item {
    id: root
    objectName: "emptyState"

    ColumnLayout {
        anchors.centerIn: parent
        spacing: 12

        Label {
            objectName: "emptyStateTitle"
            Layout.alignment: Qt.AlignHCenter
            text: qsTr("Drop a .gguf model here, or open one")
            font.pixelSize: 22
        }
        Label {
            Layout.alignment: Qt.AlignHCenter
            text: qsTr("Everything runs on this computer. Nothing leaves it.")
            opacity: 0.7
        }
    }
}
