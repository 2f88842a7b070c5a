import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// What the window shows before a model is loaded: how to get one, and the
// models opened recently.
Item {
    id: root
    objectName: "emptyState"

    property var recentPaths: []
    // Models the library found on this computer (0: none, or not looked yet).
    property int libraryCount: 0
    signal openRequested()
    signal libraryRequested()
    signal downloadRequested()
    signal recentRequested(string path)

    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 48, 560)
        spacing: 12

        Label {
            objectName: "emptyStateTitle"
            Layout.alignment: Qt.AlignHCenter
            text: qsTr("Drop a .gguf model here, or open one")
            font.pixelSize: 22
        }
        Label {
            Layout.alignment: Qt.AlignHCenter
            text: qsTr("Everything runs on this computer. Nothing leaves it.")
            opacity: 0.7
        }
        RowLayout {
            Layout.alignment: Qt.AlignHCenter
            spacing: 8
            Button {
                objectName: "emptyStateLibrary"
                text: root.libraryCount > 0 ? qsTr("%n model(s) on this computer…", "", root.libraryCount)
                                            : qsTr("Model library…")
                highlighted: root.libraryCount > 0
                Accessible.name: qsTr("Show the models on this computer")
                onClicked: root.libraryRequested()
            }
            Button {
                objectName: "emptyStateOpen"
                text: qsTr("Open model…")
                Accessible.name: qsTr("Open a model file")
                onClicked: root.openRequested()
            }
            Button {
                objectName: "emptyStateDownload"
                text: qsTr("Download a model…")
                Accessible.name: qsTr("Download a model from the Hugging Face hub")
                onClicked: root.downloadRequested()
            }
        }
        Label {
            Layout.topMargin: 12
            visible: root.recentPaths.length > 0
            text: qsTr("Recent models")
            font.bold: true
        }
        // A Column, not the layout itself, holds the Repeater: its items come
        // and go with the list.
        Column {
            Layout.fillWidth: true
            Repeater {
                model: root.recentPaths
                // What a button opens is connected here, where the signal is in reach.
                onItemAdded: (index, item) => {
                    const button = item as Button
                    const path = root.recentPaths[index]
                    button.clicked.connect(() => root.recentRequested(path))
                }
                delegate: Button {
                    id: recentButton
                    required property string modelData
                    width: parent ? parent.width : 0
                    flat: true
                    text: modelData.substring(modelData.lastIndexOf("/") + 1)
                    ToolTip.visible: hovered
                    ToolTip.text: modelData
                    Accessible.name: qsTr("Open recent model %1").arg(text)
                }
            }
        }
    }
}
