import QtQuick
import QtQuick.Controls

// File → Recent models: one model's entry, the file's name (AppMenuBar
// connects what it opens).
MenuItem {
    id: root
    required property string modelData
    text: root.modelData.substring(root.modelData.lastIndexOf("/") + 1)
    Accessible.name: qsTr("Open recent model %1").arg(root.text)
}
