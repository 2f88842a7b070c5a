import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// A fenced code block of a message: monospace, with its language and a Copy button.
Rectangle {
    id: root

    property string code
    property string language
    signal copyRequested(string text)

    implicitHeight: column.implicitHeight + 12
    radius: 4
    color: Qt.darker(palette.base, 1.06)
    border.color: palette.mid

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: 6
        spacing: 2

        RowLayout {
            Layout.fillWidth: true
            Label {
                Layout.fillWidth: true
                text: root.language
                opacity: 0.6
                font.pixelSize: 11
            }
            Button {
                objectName: "copyCode"
                text: qsTr("Copy")
                flat: true
                font.pixelSize: 11
                implicitHeight: 24
                Accessible.name: qsTr("Copy this code")
                onClicked: root.copyRequested(root.code)
            }
        }
        TextEdit {
            Layout.fillWidth: true
            text: root.code
            readOnly: true
            selectByMouse: true
            wrapMode: TextEdit.WrapAnywhere
            textFormat: TextEdit.PlainText
            font.family: "monospace"
            color: palette.text
            selectionColor: palette.highlight
            selectedTextColor: palette.highlightedText
            Accessible.name: qsTr("Code")
            Accessible.role: Accessible.EditableText
        }
    }
}
