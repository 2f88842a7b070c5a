import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// Progress of the running archive job (export, import, unpacking a model),
// with Cancel; and the outcome of the last one until dismissed.
Pane {
    id: root
    objectName: "archiveBar"

    required property ArchiveService service
    // The last job's outcome ("" when none or dismissed).
    property string message
    property bool messageIsError: false

    visible: service.busy || message !== ""
    padding: 8

    Connections {
        target: root.service
        function onFinished(ok, text) {
            root.message = text
            root.messageIsError = !ok
        }
        function onBusyChanged() {
            if (root.service.busy)
                root.message = ""
        }
    }

    RowLayout {
        anchors.fill: parent
        spacing: 12

        Label {
            Layout.fillWidth: true
            text: root.service.busy ? root.service.activity : root.message
            color: !root.service.busy && root.messageIsError ? Theme.negativeText : palette.windowText
            wrapMode: Text.Wrap
            Accessible.role: Accessible.StaticText
            Accessible.name: text
        }
        ProgressBar {
            visible: root.service.busy
            Layout.preferredWidth: 200
            indeterminate: root.service.progress < 0
            value: Math.max(0, root.service.progress)
            Accessible.name: qsTr("Archive progress")
        }
        Button {
            visible: root.service.busy
            text: qsTr("Cancel")
            Accessible.name: qsTr("Cancel the archive job")
            onClicked: root.service.cancel()
        }
        Button {
            visible: !root.service.busy
            text: qsTr("Dismiss")
            Accessible.name: qsTr("Dismiss the archive message")
            onClicked: root.message = ""
        }
    }
}
