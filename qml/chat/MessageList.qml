import QtQuick
import Burrow

// The conversation's list (ChatView): what its message delegates reach
// through ListView.view — the chat, and where an edit and resend goes.
ListView {
    property ChatController chat
    signal editRequested(int row, string text)
}
