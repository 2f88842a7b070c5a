import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// One model of the library: its name and where it came from; family, size,
// quantization, file size and trained context; whether it fits in memory
// (the model card's estimate for the chat's context) or why Burrow cannot
// run it; and Open.
ItemDelegate {
    id: root

    required property int index
    required property string name
    required property string path
    required property string repository
    required property string family
    required property string sizeClass
    required property string quantization
    required property string fileSizeText
    required property int contextLength
    required property string sourceName
    required property bool runnable
    required property string whyNot
    required property bool fits
    required property string memoryText
    required property int recentRank
    required property bool remote

    signal openClicked(int row)

    // "llama · 1.1B · Q4_K_M · 638 MB · 2,048 tokens" (the parts it has).
    function facts(): string {
        const parts = [root.family, root.sizeClass, root.quantization, root.remote ? "" : root.fileSizeText,
                       root.contextLength > 0 ? qsTr("%L1 tokens").arg(root.contextLength) : ""]
        let text = ""
        for (const part of parts) {
            if (part !== "")
                text += (text === "" ? "" : " · ") + part
        }
        return text
    }

    objectName: "libraryRow" + index
    highlighted: ListView.isCurrentItem
    Accessible.name: root.runnable ? qsTr("%1, from %2").arg(root.name).arg(root.sourceName)
                                   : qsTr("%1, from %2: %3").arg(root.name).arg(root.sourceName).arg(root.whyNot)
    onDoubleClicked: if (root.runnable) root.openClicked(root.index)

    contentItem: RowLayout {
        spacing: 12

        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2

            RowLayout {
                Layout.fillWidth: true
                spacing: 8
                Label {
                    objectName: "libraryRowName"
                    Layout.fillWidth: true
                    text: root.name
                    font.bold: true
                    elide: Text.ElideMiddle
                }
                Label {
                    visible: root.recentRank >= 0
                    text: qsTr("Recent")
                    opacity: 0.7
                    font.pixelSize: 11
                }
                Label {
                    objectName: "libraryRowSource"
                    text: root.sourceName
                    opacity: 0.7
                }
            }
            Label {
                Layout.fillWidth: true
                // "llama · 1.1B · Q4_K_M · 638 MB · 2,048 tokens"
                text: root.facts()
                elide: Text.ElideRight
            }
            Label {
                objectName: "libraryRowState"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                maximumLineCount: 2
                elide: Text.ElideRight
                color: !root.runnable || (!root.fits && !root.remote) ? Theme.negativeText : palette.windowText
                opacity: !root.runnable || (!root.fits && !root.remote) ? 1 : 0.7
                text: !root.runnable ? root.whyNot
                      : root.remote ? qsTr("Remote: runs on the server, not on this computer")
                      : root.fits ? qsTr("Needs %1; fits in the memory free now").arg(root.memoryText)
                                  : qsTr("Needs %1, more than the memory free now").arg(root.memoryText)
            }
            Label {
                Layout.fillWidth: true
                text: root.repository !== "" ? root.repository + " — " + root.path : root.path
                elide: Text.ElideMiddle
                opacity: 0.6
                font.pixelSize: 11
            }
        }
        Button {
            objectName: "libraryRowOpen"
            text: qsTr("Open")
            enabled: root.runnable
            Accessible.name: qsTr("Open %1").arg(root.name)
            onClicked: root.openClicked(root.index)
        }
    }
}
