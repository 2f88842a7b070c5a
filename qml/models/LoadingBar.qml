import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Progress of the model being loaded on the engine thread.
Pane {
    id: root
    objectName: "loadingBar"

    property string fileName
    property real progress

    padding: 6
    RowLayout {
        anchors.fill: parent
        spacing: 12
        Label {
            text: qsTr("Loading %1…").arg(root.fileName)
        }
        ProgressBar {
            objectName: "loadingProgress"
            Layout.fillWidth: true
            from: 0
            to: 1
            value: root.progress
            Accessible.name: qsTr("Loading progress")
        }
        Label {
            text: qsTr("%1%").arg(Math.round(root.progress * 100))
        }
    }
}
