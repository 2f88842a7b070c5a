import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// A fenced code block of a message: monospace, with its language and a Copy
// button. A long block comes as several parts (MessageBlocks splits it so a
// streaming reply re-reads only its last part): a part that is `continued`
// has no header, one that `continues` no bottom edge, so they read as one box.
Rectangle {
    id: root

    property string code
    property string language
    property bool continued: false
    property bool continues: false
    // `text`: this part's code (the message delegate copies the whole box).
    signal copyRequested(string text)

    implicitHeight: column.implicitHeight + (continued ? 0 : 6) + (continues ? 0 : 6)
    radius: continued || continues ? 0 : 4
    color: Qt.darker(palette.base, 1.06)
    border.color: palette.mid

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.leftMargin: 6
        anchors.rightMargin: 6
        anchors.topMargin: root.continued ? 0 : 6
        anchors.bottomMargin: root.continues ? 0 : 6
        spacing: 2

        RowLayout {
            Layout.fillWidth: true
            visible: !root.continued
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
