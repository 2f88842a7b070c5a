import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// Help → About Burrow: the version, the licence and the libraries Burrow is
// built on (with the versions the running app reports).
Dialog {
    id: root
    objectName: "aboutDialog"

    title: qsTr("About Burrow")
    modal: true
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 520, 520)
    standardButtons: Dialog.Close
    // The dialog takes the keyboard: Enter or Escape closes it.
    focus: true

    // One row per library: name, version ("" when unknown), what Burrow uses
    // it for (translated where shown: a list that changed with the language
    // would make the rows again inside a closed dialog, which Qt 6.4's
    // GridLayout does not survive).
    readonly property var libraries: [
        { name: "Qt", version: AboutInfo.qtVersion,
          use: QT_TR_NOOP("the window, the controls and the conversation database (Qt Quick, Qt SQL)") },
        { name: "SQLite", version: AboutInfo.sqliteVersion,
          use: QT_TR_NOOP("stores your conversations, through Qt SQL") },
        { name: "KArchive", version: "",
          use: QT_TR_NOOP("reads and writes archives, in the burrow-archive helper") },
        { name: "PCRE2", version: AboutInfo.pcre2Version,
          use: QT_TR_NOOP("splits text into tokens by Unicode category") }
    ]

    contentItem: ColumnLayout {
        spacing: 10
        focus: true
        Keys.onReturnPressed: root.close()
        Keys.onEnterPressed: root.close()

        Label {
            objectName: "aboutTitle"
            text: qsTr("Burrow %1").arg(AboutInfo.version)
            font.bold: true
            font.pixelSize: Application.font.pixelSize * 1.4   // Qt.application, typed
        }
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Chat with language models that run on your own computer. Nothing you write leaves it.")
        }
        Label {
            objectName: "aboutLicense"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Free software under the GNU General Public License, version 3 or any later version (%1). It comes with no warranty.")
                  .arg(AboutInfo.license)
        }
        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("The inference engine is Burrow's own, written from scratch for this app.")
        }
        Label {
            text: qsTr("Built with")
            font.bold: true
        }
        GridLayout {
            objectName: "aboutLibraries"
            Layout.fillWidth: true
            columns: 2
            columnSpacing: 16
            rowSpacing: 4
            Repeater {
                model: root.libraries
                delegate: Label {
                    required property var modelData
                    required property int index
                    Layout.row: index
                    Layout.column: 0
                    Layout.alignment: Qt.AlignTop
                    text: modelData.version !== "" ? modelData.name + " " + modelData.version : modelData.name
                }
            }
            Repeater {
                model: root.libraries
                delegate: Label {
                    required property var modelData
                    required property int index
                    Layout.row: index
                    Layout.column: 1
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    opacity: 0.8
                    text: qsTranslate("AboutDialog", modelData.use)
                }
            }
        }
    }
}
