import QtQuick
import QtQuick.Controls

// A menu of the window's menu bar whose entries answer their underlined
// letter while it is open, as desktop menus do: File, then X, exports this
// conversation. (Qt 6.4's menus answer only the arrows, Enter and Escape; a
// letter did nothing.) A letter that names a submenu highlights it (Right or
// Enter opens it). The list is the style's own (Fusion's) with the keys added.
Menu {
    id: root

    // Triggers the enabled, shown entry whose mnemonic is `letter`; false when none has it.
    function triggerMnemonic(letter): bool {
        const key = letter.toLowerCase()
        if (key.length !== 1 || key === "&")
            return false
        for (let i = 0; i < root.count; ++i) {
            const entry = root.itemAt(i) as MenuItem
            if (entry === null || !entry.enabled || !entry.visible)
                continue
            const text = entry.subMenu !== null ? entry.subMenu.title : entry.text
            const at = text.indexOf("&")
            if (at < 0 || at + 1 >= text.length || text[at + 1].toLowerCase() !== key)
                continue
            root.currentIndex = i
            if (entry.subMenu !== null)
                return true
            root.dismiss()
            if (entry.action !== null)
                entry.action.trigger()
            else
                entry.triggered()
            return true
        }
        return false
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
