import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Speed and context use: tokens/s while streaming and for the last reply,
// prompt progress for long prompts, and how full the context is.
Pane {
    id: root
    objectName: "statusLine"

    property string modelName
    property bool generating: false
    property real promptProgress: -1
    property real tokensPerSecond: 0
    property string lastReplyStats
    property int contextUsed: 0
    property int contextSize: 0

    padding: 4
    leftPadding: 8
    rightPadding: 8

    RowLayout {
        anchors.fill: parent
        spacing: 12

        Label {
            objectName: "statusModel"
            text: root.modelName === "" ? qsTr("No model loaded") : root.modelName
            elide: Text.ElideRight
            Layout.maximumWidth: 260
            opacity: 0.8
        }
        ProgressBar {
            objectName: "statusPromptProgress"
            visible: root.generating && root.promptProgress >= 0
            from: 0
            to: 1
            value: Math.max(0, root.promptProgress)
            Layout.preferredWidth: 120
            Accessible.name: qsTr("Reading the prompt")
        }
        Label {
            objectName: "statusSpeed"
            Layout.fillWidth: true
            elide: Text.ElideRight
            text: root.generating
                  ? (root.promptProgress >= 0
                     ? qsTr("Reading the prompt… %1%").arg(Math.round(root.promptProgress * 100))
                     : qsTr("%1 tokens/s").arg(root.tokensPerSecond.toFixed(1)))
                  : root.lastReplyStats
        }
        Label {
            objectName: "statusContext"
            visible: root.contextSize > 0
            text: qsTr("Context %L1 / %L2").arg(root.contextUsed).arg(root.contextSize)
        }
        ProgressBar {
            objectName: "contextMeter"
            visible: root.contextSize > 0
            from: 0
            to: Math.max(1, root.contextSize)
            value: root.contextUsed
            Layout.preferredWidth: 120
            Accessible.name: qsTr("Context used")
            Accessible.description: qsTr("%1 of %2 tokens").arg(root.contextUsed).arg(root.contextSize)
        }
    }
}
