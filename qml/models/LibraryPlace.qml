import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// A place the library looked in (ModelLibrary.places): its source and how
// many models it gave ("absent" when it does not exist); a folder the user
// added can be removed (removeRequested: the library view answers).
RowLayout {
    id: place

    // {sourceName, path, exists, count, userFolder}
    required property var modelData

    signal removeRequested(string path)

    spacing: 2
    Label {
        text: qsTr("%1 (%2)").arg(place.modelData.sourceName).arg(place.modelData.exists ? place.modelData.count : qsTr("absent"))
        opacity: 0.7
        ToolTip.visible: placeHover.hovered
        ToolTip.text: place.modelData.path
        HoverHandler { id: placeHover }
    }
    ToolButton {
        visible: place.modelData.userFolder
        text: qsTr("Remove")
        font.pixelSize: 11
        Accessible.name: qsTr("Stop looking in %1").arg(place.modelData.path)
        onClicked: place.removeRequested(place.modelData.path)
    }
}
