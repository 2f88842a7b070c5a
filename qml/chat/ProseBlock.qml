import QtQuick

// A block of prose of a message (a MessageBlocks row of kind "text" or
// "plain"): a model's Markdown rendered, or a person's own words as they
// wrote them, line breaks kept. Selectable; links open in the browser.
TextEdit {
    id: root

    required property int index
    required property string kind
    required text
    required property bool continued

    width: parent ? parent.width : 0
    // 6 px from the block before, none from the block it goes on from.
    topPadding: root.index > 0 && !root.continued ? 6 : 0
    textFormat: root.kind === "plain" ? TextEdit.PlainText : TextEdit.MarkdownText
    readOnly: true
    selectByMouse: true
    wrapMode: TextEdit.Wrap
    color: palette.text
    selectionColor: palette.highlight
    selectedTextColor: palette.highlightedText
    Accessible.role: Accessible.StaticText
    Accessible.name: root.text
    onLinkActivated: (link) => Qt.openUrlExternally(link)

    HoverHandler {
        enabled: root.hoveredLink !== ""
        cursorShape: Qt.PointingHandCursor
    }
}
