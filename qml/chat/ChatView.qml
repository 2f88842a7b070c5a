import QtQuick
import QtQuick.Controls
import Burrow

// The conversation: a virtualized ListView over the chat's MessageModel.
// It follows the newest text unless the user has scrolled up.
Item {
    id: root
    objectName: "chatView"

    required property ChatController chat
    readonly property alias list: list
    // True while the view sticks to the end; cleared when the user scrolls up.
    property bool following: true

    signal editRequested(int row, string text)

    MessageList {
        id: list
        chat: root.chat
        onEditRequested: (row, text) => root.editRequested(row, text)
        objectName: "messageList"
        anchors.fill: parent
        model: root.chat.conversation.messages
        spacing: 4
        clip: true
        reuseItems: false
        cacheBuffer: 800
        boundsBehavior: Flickable.StopAtBounds
        Accessible.role: Accessible.List
        Accessible.name: qsTr("Conversation")

        property bool autoScrolling: false

        delegate: MessageDelegate {
            id: message
            readonly property MessageList view: message.ListView.view as MessageList
            width: message.view.width - 16
            x: 8
            chat: message.view.chat
            onEditRequested: (row, text) => message.view.editRequested(row, text)
        }

        function scrollToEnd() {
            autoScrolling = true
            positionViewAtEnd()
            autoScrolling = false
        }

        // Scrolling up by the user (wheel, drag, flick, keys: `moving`; the
        // scroll bar: its `pressed`) stops following; reaching the end again
        // resumes it. Growth of the reply does not move contentY, our own
        // positioning is marked by autoScrolling, and the list's own
        // corrections (delegates replacing estimated heights) are neither.
        property real lastContentY: 0
        onContentYChanged: {
            if (!autoScrolling) {
                const byUser = moving || scrollBar.pressed
                if (atYEnd && (byUser || contentY > lastContentY))
                    root.following = true
                else if (byUser && contentY < lastContentY)
                    root.following = false
            }
            lastContentY = contentY
        }
        onMovementEnded: root.following = atYEnd
        // Growth is followed at once, in the same polish as the layout that
        // grew: the frame then shows the new text at the end (later, through
        // Qt.callLater, each take of streamed text cost a second frame of
        // the whole window). A new row is positioned once the list has made
        // its delegate (the timer: after this event).
        onContentHeightChanged: if (root.following) scrollToEnd()
        onCountChanged: if (root.following) scrollLater.restart()

        Timer {
            id: scrollLater
            interval: 0
            onTriggered: list.scrollToEnd()
        }

        ScrollBar.vertical: ScrollBar {
            id: scrollBar
            Accessible.name: qsTr("Scroll the conversation")
        }
    }

    Button {
        objectName: "jumpToLatest"
        anchors.right: parent.right
        anchors.bottom: parent.bottom
        anchors.margins: 16
        visible: !root.following && list.count > 0
        text: qsTr("Jump to latest")
        Accessible.name: qsTr("Jump to the latest message")
        onClicked: {
            root.following = true
            list.scrollToEnd()
        }
    }
}
