import QtQuick
import QtQuick.Controls

// A menu of the window's menu bar whose entries answer their underlined
// letter while it is open, as desktop menus do: File, then X, exports this
// conversation. (Qt 6.4's menus answer only the arrows, Enter and Escape; a
// letter did nothing.) The list is the style's own (Fusion's) with the keys
// added.
Menu {
    id: root

    // The entry whose mnemonic is `letter` (enabled, shown): triggered when
    // it is the only one; when several share the letter, the next of them is
    // highlighted instead (Enter triggers it), as desktop menus do. A submenu
    // is highlighted (Right or Enter opens it). False when no entry has it.
    function triggerMnemonic(letter): bool {
        const key = letter.toLowerCase()
        if (key.length !== 1 || key === "&")
            return false
        const matches = []
        for (let i = 0; i < root.count; ++i) {
            const entry = root.itemAt(i) as MenuItem
            if (entry === null || !entry.enabled || !entry.visible)
                continue
            const text = entry.subMenu !== null ? entry.subMenu.title : entry.text
            const at = text.indexOf("&")
            if (at >= 0 && at + 1 < text.length && text[at + 1].toLowerCase() === key)
                matches.push(i)
        }
        if (matches.length === 0)
            return false
        const next = matches.find(i => i > root.currentIndex)
        root.currentIndex = next !== undefined ? next : matches[0]
        const entry = root.itemAt(root.currentIndex) as MenuItem
        if (matches.length > 1 || entry.subMenu !== null)
            return true
        root.dismiss()
        if (entry.action !== null)
            entry.action.trigger()
        else
            entry.triggered()
        return true
    }

    contentItem: ListView {
        implicitHeight: contentHeight
        model: root.contentModel
        interactive: Window.window !== null
                     && contentHeight + root.topPadding + root.bottomPadding > Window.window.height
        clip: true
        currentIndex: root.currentIndex
        focus: true
        Keys.onPressed: (event) => {
            if (event.modifiers === Qt.NoModifier || event.modifiers === Qt.ShiftModifier)
                event.accepted = root.triggerMnemonic(event.text)
        }
        ScrollIndicator.vertical: ScrollIndicator {}
    }
}
