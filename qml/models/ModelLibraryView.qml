import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Burrow

// The model library screen: the models already on this computer (LM Studio,
// Ollama, GPT4All, Jan, the Hugging Face cache, Burrow's models folder,
// folders the user added), searched and sorted, each opened with one click
// (openRequested(path); the window loads it through the model loader).
// `models` is what the list shows (a LibraryFilter); `library` scans and
// keeps the folders (null in component tests).
Pane {
    id: root
    objectName: "modelLibraryView"
    padding: 12

    required property LibraryFilter models
    property ModelLibrary library: null
    signal openRequested(string path)
    signal closeRequested()
    signal downloadRequested()

    // "Download a model…": the window opens the download dialog.
    function openDownloads() { root.downloadRequested() }
    function focusSearch() {
        searchField.forceActiveFocus()
        searchField.selectAll()
    }
    // Opens the model in row `row` of the list, when Burrow can run it.
    function openRow(row) {
        if (row >= 0 && row < root.models.count && root.models.valueAt(row, "runnable"))
            root.openRequested(root.models.valueAt(row, "path"))
    }

    Keys.onEscapePressed: root.closeRequested()

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            Label {
                text: qsTr("Model library")
                font.pixelSize: 20
                Layout.fillWidth: true
            }
            BusyIndicator {
                objectName: "libraryScanning"
                running: root.library !== null && root.library.scanning
                visible: running
                implicitWidth: 24
                implicitHeight: 24
                Accessible.name: qsTr("Looking for models")
            }
            Button {
                objectName: "libraryDownload"
                text: qsTr("Download a model…")
                Accessible.name: qsTr("Download a model from Hugging Face")
                onClicked: root.openDownloads()
            }
            Button {
                objectName: "libraryAddFolder"
                text: qsTr("Add folder…")
                enabled: root.library !== null
                Accessible.name: qsTr("Add a folder to look for models in")
                onClicked: folderDialog.open()
            }
            Button {
                objectName: "libraryClose"
                text: qsTr("Back to the chat")
                Accessible.name: qsTr("Close the model library")
                onClicked: root.closeRequested()
            }
        }

        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            TextField {
                id: searchField
                objectName: "librarySearch"
                Layout.fillWidth: true
                placeholderText: qsTr("Search by name, family, quantization or source")
                Accessible.name: qsTr("Search the models")
                text: root.models.searchText
                onTextEdited: root.models.searchText = text
                // Down goes to the results, the first one marked.
                Keys.onDownPressed: {
                    if (list.count > 0 && list.currentIndex < 0)
                        list.currentIndex = 0
                    list.forceActiveFocus()
                }
                Keys.onReturnPressed: root.openRow(list.currentIndex >= 0 ? list.currentIndex : 0)
            }
            Label { text: qsTr("Sort") }
            ComboBox {
                id: sortBox
                objectName: "librarySort"
                textRole: "text"
                valueRole: "value"
                implicitContentWidthPolicy: ComboBox.WidestText
                model: [
                    { value: LibraryFilter.SortRecent, text: qsTr("Recently used first") },
                    { value: LibraryFilter.SortName, text: qsTr("Name") },
                    { value: LibraryFilter.SortSize, text: qsTr("Size, smallest first") },
                    { value: LibraryFilter.SortSource, text: qsTr("Source") },
                ]
                Accessible.name: qsTr("Sort the models")
                Component.onCompleted: currentIndex = indexOfValue(root.models.sortOrder)
                onActivated: root.models.sortOrder = currentValue
            }
        }

        LibraryList {
            id: list
            objectName: "libraryList"
            onOpenRequested: (row) => root.openRow(row)
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: root.models
            // No row is marked until the keyboard moves to the list.
            currentIndex: -1
            spacing: 2
            keyNavigationEnabled: true
            boundsBehavior: Flickable.StopAtBounds
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Models on this computer")
            Keys.onReturnPressed: root.openRow(list.currentIndex)
            Keys.onEnterPressed: root.openRow(list.currentIndex)

            // A row asks through its list (ListView.view as LibraryList).
            delegate: LibraryRow {
                id: libraryRow
                width: libraryRow.ListView.view.width
                onClicked: libraryRow.ListView.view.currentIndex = libraryRow.index
                onOpenClicked: (row) => (libraryRow.ListView.view as LibraryList).openRequested(row)
            }

            ScrollBar.vertical: ScrollBar {
                Accessible.name: qsTr("Scroll the models")
            }

            Label {
                objectName: "libraryEmpty"
                anchors.centerIn: parent
                width: Math.min(parent.width - 48, 520)
                visible: list.count === 0
                horizontalAlignment: Text.AlignHCenter
                wrapMode: Text.Wrap
                opacity: 0.8
                text: root.models.searchText !== "" ? qsTr("No model matches “%1”.").arg(root.models.searchText)
                      : root.library !== null && root.library.scanning ? qsTr("Looking for models on this computer…")
                      : qsTr("No models found. Burrow looks in the folders of LM Studio, Ollama, GPT4All, Jan and "
                             + "the Hugging Face cache, and in its own models folder. Add a folder, or drop a "
                             + ".gguf file on the window.")
            }
        }

        // Where Burrow looked: the places that exist, with how many models
        // each gave, and the user's folders (removable).
        Flow {
            objectName: "libraryPlaces"
            Layout.fillWidth: true
            spacing: 6
            visible: root.library !== null
            Label {
                text: qsTr("Looked in:")
                opacity: 0.7
            }
            Repeater {
                model: root.library !== null ? root.library.places : []
                delegate: LibraryPlace {}
                onItemAdded: (index, item) => (item as LibraryPlace).removeRequested.connect(
                                 path => { if (root.library !== null) root.library.removeFolder(path) })
            }
            Label {
                visible: root.library !== null && root.library.skippedCount > 0
                text: qsTr("%n file(s) passed over (not GGUF models, or unreadable)", "", root.library !== null ? root.library.skippedCount : 0)
                opacity: 0.6
            }
        }
    }

    FolderDialog {
        id: folderDialog
        title: qsTr("Add a folder with models")
        onAccepted: if (root.library !== null) root.library.addFolder(selectedFolder)
    }
}
