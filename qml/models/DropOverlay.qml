import QtQuick
import QtQuick.Controls
import Burrow

// Shown while a file is dragged over the window: what dropping it will do,
// or why it will be refused.
Rectangle {
    id: root
    objectName: "dropOverlay"

    // Why the dragged item would be refused; empty when it can be opened.
    property string refusal

    readonly property bool acceptable: refusal === ""

    color: Qt.rgba(palette.highlight.r, palette.highlight.g, palette.highlight.b, 0.18)
    border.width: 3
    border.color: acceptable ? palette.highlight : Theme.negativeText
    radius: 8
    Accessible.role: Accessible.AlertMessage
    Accessible.name: label.text

    Rectangle {
        anchors.centerIn: parent
        width: label.implicitWidth + 48
        height: label.implicitHeight + 32
        radius: 8
        color: palette.window
        border.color: root.border.color

        Label {
            id: label
            objectName: "dropOverlayText"
            anchors.centerIn: parent
            width: Math.min(implicitWidth, root.width - 96)
            wrapMode: Text.Wrap
            horizontalAlignment: Text.AlignHCenter
            font.pixelSize: 20
            text: root.acceptable ? qsTr("Drop to open this model") : root.refusal
        }
    }
}
