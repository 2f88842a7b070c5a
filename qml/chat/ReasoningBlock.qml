import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// A reply's reasoning (Qwen3's <think>, gpt-oss's analysis channel), above
// its answer: one line, collapsed — "Thinking…" while the model reasons,
// "Thought for 3.2 s" after — that expands to the reasoning itself. The
// reasoning is kept with the message; the chat template decides whether the
// model sees it again in later turns.
ColumnLayout {
    id: root
    objectName: "reasoningBlock"

    // The reasoning so far (plain text, markers removed).
    property string reasoning
    // How long the model reasoned (-1: unknown, or still reasoning).
    property double reasoningMs: -1
    // The model is still reasoning (the reply streams and no answer yet).
    property bool reasoningNow: false
    property bool expanded: false

    visible: reasoning !== "" || reasoningNow
    spacing: 4

    function durationText() {
        if (root.reasoningNow)
            return qsTr("Thinking…")
        if (root.reasoningMs < 0)
            return qsTr("Thought")
        const seconds = root.reasoningMs / 1000
        return seconds < 10 ? qsTr("Thought for %L1 s").arg(seconds.toFixed(1))
                            : qsTr("Thought for %L1 s").arg(Math.round(seconds))
    }

    AbstractButton {
        id: header
        objectName: "reasoningToggle"
        Layout.fillWidth: true
        implicitHeight: implicitContentHeight + 4
        implicitWidth: implicitContentWidth
        checkable: true
        checked: root.expanded
        onToggled: root.expanded = checked
        Accessible.role: Accessible.Button
        Accessible.name: root.expanded ? qsTr("Hide the reasoning") : qsTr("Show the reasoning")
        Accessible.description: root.durationText()
        focusPolicy: Qt.TabFocus

        // No ids inside: an id would make the deferred contentItem immediate.
        contentItem: RowLayout {
            spacing: 6
            Label {
                text: root.expanded ? "▾" : "▸"
                opacity: 0.6
            }
            Label {
                objectName: "reasoningHeader"
                text: root.durationText()
                opacity: 0.7
                font.italic: true
            }
            Item { Layout.fillWidth: true }
        }
        HoverHandler { cursorShape: Qt.PointingHandCursor }
    }

    // The reasoning itself: laid out only while expanded (a collapsed block
    // costs nothing however long the reasoning grows).
    Rectangle {
        Layout.fillWidth: true
        visible: root.expanded
        implicitHeight: visible ? body.implicitHeight + 12 : 0
        radius: 4
        color: Theme.quietBackground
        border.color: palette.mid

        TextEdit {
            id: body
            objectName: "reasoningText"
            anchors.left: parent.left
            anchors.right: parent.right
            anchors.top: parent.top
            anchors.margins: 6
            text: root.expanded ? root.reasoning : ""
            textFormat: TextEdit.PlainText
            readOnly: true
            selectByMouse: true
            wrapMode: TextEdit.Wrap
            color: palette.text
            opacity: 0.8
            selectionColor: palette.highlight
            selectedTextColor: palette.highlightedText
            Accessible.role: Accessible.StaticText
            Accessible.name: text
        }
    }
}
