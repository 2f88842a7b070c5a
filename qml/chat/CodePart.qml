import QtQuick

// A part of a fenced code box of a message (a MessageBlocks row of kind
// "code"): a long box comes as several parts (MessageDelegate), each right
// under the one it goes on from, 6 px under any other block. Copy asks for
// the whole box (copyRequested with this part's row).
Item {
    id: part

    required property int index
    required property string text
    required property string language
    required property bool continued
    required property bool continues
    readonly property real gap: part.index > 0 && !part.continued ? 6 : 0

    signal copyRequested(int row)

    width: parent ? parent.width : 0
    implicitHeight: part.gap + box.implicitHeight

    CodeBlock {
        id: box
        y: part.gap
        width: part.width
        code: part.text
        language: part.language
        continued: part.continued
        continues: part.continues
        onCopyRequested: part.copyRequested(part.index)
    }
}
