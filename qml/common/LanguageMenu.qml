import QtQuick
import QtQuick.Controls
import Burrow

// Settings → Language: "System language", then each language named in
// itself; the choice applies at once (Language, app/language/).
Menu {
    id: root
    objectName: "languageMenu"
    title: qsTr("&Language")

    Instantiator {
        model: Language.available
        delegate: MenuItem {
            id: languageItem
            required property var modelData
            text: languageItem.modelData.code === "" ? qsTr("System language") : languageItem.modelData.name
            checkable: true
            checked: Language.choice === languageItem.modelData.code
            Accessible.name: languageItem.text
            onTriggered: {
                Language.choice = languageItem.modelData.code
                // A click toggles `checked`; bind it to the choice again.
                languageItem.checked = Qt.binding(() => Language.choice === languageItem.modelData.code)
            }
        }
        onObjectAdded: (index, object) => root.insertItem(index, object)
        onObjectRemoved: (index, object) => root.removeItem(object)
    }
}
