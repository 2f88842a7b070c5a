import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ApplicationWindow {
    id: window
    width: 1000
    height: 720
    minimumWidth: 480
    minimumHeight: 360
    visible: true
    title: qsTr("Burrow")

    EmptyState {
        anchors.fill: parent
    }
}
