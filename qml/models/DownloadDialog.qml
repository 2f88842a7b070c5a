import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// File → Download a model…: a repository of the Hugging Face hub, its GGUF
// files with sizes, and the downloads (progress, speed, time left, pause,
// resume, cancel, and Open for a finished one). The hub is contacted only
// when the user lists a repository or starts a download
// (app/models/downloadmanager.h).
Dialog {
    id: root
    objectName: "downloadDialog"

    // Open a finished download (Main.qml loads it through the model loader).
    signal openRequested(string path)
    // The access token dialog (Main.qml owns it).
    signal tokenRequested()

    readonly property HubClient hub: DownloadManager.hub
    // The repository path of the chosen file ("" when none).
    property string selectedPath: ""
    property string downloadProblem: ""

    function listFiles() {
        root.selectedPath = ""
        root.downloadProblem = ""
        root.hub.list(repoField.text)
    }
    function startDownload() {
        const files = root.hub.files
        for (let i = 0; i < files.length; ++i) {
            if (files[i].path === root.selectedPath) {
                root.downloadProblem = DownloadManager.download(root.hub.repository, root.hub.revision, files[i].path,
                                                                files[i].size, files[i].checksum)
                return
            }
        }
    }
    title: qsTr("Download a model")
    modal: true
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 760, 760)
    height: Math.min(parent ? parent.height - 48 : 680, 680)
    standardButtons: Dialog.Close
    onOpened: repoField.forceActiveFocus()

    Connections {
        target: root.hub
        function onListingChanged() {
            // A link to one file chooses it.
            if (root.hub.suggestedFile !== "")
                root.selectedPath = root.hub.suggestedFile
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        Label {
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Paste a repository id or a link from the Hugging Face hub. Burrow goes online only to "
                       + "list its files and to download the one you choose.")
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            TextField {
                id: repoField
                objectName: "downloadRepoField"
                Layout.fillWidth: true
                placeholderText: qsTr("organisation/name, e.g. Qwen/Qwen2.5-0.5B-Instruct-GGUF")
                selectByMouse: true
                Accessible.name: qsTr("Repository id or link")
                onAccepted: root.listFiles()
            }
            Button {
                objectName: "downloadListButton"
                text: qsTr("List files")
                enabled: repoField.text.trim() !== "" && !root.hub.busy
                Accessible.name: qsTr("List the GGUF files of this repository")
                onClicked: root.listFiles()
            }
            BusyIndicator {
                Layout.preferredWidth: 28
                Layout.preferredHeight: 28
                running: root.hub.busy
                visible: running
                Accessible.name: qsTr("Listing the files")
            }
        }
        Label {
            objectName: "downloadListError"
            Layout.fillWidth: true
            visible: text !== ""
            text: root.hub.error
            wrapMode: Text.Wrap
            color: Theme.negativeText
            Accessible.role: Accessible.AlertMessage
            Accessible.name: text
        }
        Label {
            Layout.fillWidth: true
            visible: root.hub.files.length > 0
            text: qsTr("GGUF files of %1 (%2)").arg(root.hub.repository).arg(root.hub.revision)
            font.bold: true
            elide: Text.ElideRight
        }
        DownloadFileList {
            id: fileList
            objectName: "downloadFileList"
            selectedPath: root.selectedPath
            onFileChosen: (path) => root.selectedPath = path
            onDownloadRequested: root.startDownload()
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.minimumHeight: 80
            visible: root.hub.files.length > 0
            clip: true
            model: root.hub.files
            activeFocusOnTab: true
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Files of the repository")
            ScrollBar.vertical: ScrollBar {}

            // A row reads the choice and asks through its list (ListView.view as DownloadFileList).
            delegate: ItemDelegate {
                id: fileItem
                required property int index
                required property var modelData
                readonly property DownloadFileList view: fileItem.ListView.view as DownloadFileList
                readonly property bool chosen: fileItem.modelData.path === fileItem.view.selectedPath

                objectName: "downloadFile_" + index
                width: ListView.view.width
                highlighted: chosen
                enabled: modelData.downloadable
                Accessible.name: qsTr("%1, %2").arg(modelData.name).arg(modelData.sizeText)
                Accessible.selectable: true
                Accessible.selected: chosen
                onClicked: fileItem.view.fileChosen(fileItem.modelData.path)
                onDoubleClicked: {
                    fileItem.view.fileChosen(fileItem.modelData.path)
                    fileItem.view.downloadRequested()
                }

                contentItem: ColumnLayout {
                    spacing: 2
                    RowLayout {
                        spacing: 8
                        Label {
                            Layout.fillWidth: true
                            text: fileItem.modelData.name
                            font.bold: fileItem.chosen
                            elide: Text.ElideMiddle
                        }
                        Label {
                            text: fileItem.modelData.quantization
                            visible: text !== ""
                            opacity: 0.8
                        }
                        Label {
                            text: fileItem.modelData.sizeText
                        }
                    }
                    Label {
                        Layout.fillWidth: true
                        visible: text !== ""
                        text: fileItem.modelData.note !== "" ? fileItem.modelData.note : fileItem.modelData.hint
                        opacity: 0.7
                        font.pixelSize: 12
                        elide: Text.ElideRight
                    }
                    Label {
                        Layout.fillWidth: true
                        visible: fileItem.modelData.folder !== ""
                        text: qsTr("in %1").arg(fileItem.modelData.folder)
                        opacity: 0.6
                        font.pixelSize: 12
                        elide: Text.ElideMiddle
                    }
                }
            }
        }
        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            Button {
                objectName: "downloadStartButton"
                text: qsTr("Download")
                highlighted: true
                enabled: root.selectedPath !== ""
                Accessible.name: qsTr("Download the chosen file")
                onClicked: root.startDownload()
            }
            Label {
                objectName: "downloadProblem"
                Layout.fillWidth: true
                text: root.downloadProblem
                wrapMode: Text.Wrap
                color: Theme.negativeText
                visible: text !== ""
            }
            Item {
                Layout.fillWidth: true
                visible: root.downloadProblem === ""
            }
            Button {
                objectName: "downloadTokenButton"
                text: DownloadManager.token.isSet ? qsTr("Access token (set)…") : qsTr("Access token…")
                flat: true
                Accessible.name: qsTr("The Hugging Face access token, for gated and private repositories")
                onClicked: root.tokenRequested()
            }
        }

        MenuSeparator {
            Layout.fillWidth: true
            visible: DownloadManager.count > 0
        }
        Label {
            visible: DownloadManager.count > 0
            text: qsTr("Downloads")
            font.bold: true
            Accessible.role: Accessible.Heading
        }
        DownloadList {
            id: downloadList
            objectName: "downloadList"
            onOpenRequested: (localPath) => root.openRequested(localPath)
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(contentHeight, 240)
            visible: DownloadManager.count > 0
            clip: true
            spacing: 6
            model: DownloadManager
            Accessible.role: Accessible.List
            Accessible.name: qsTr("Downloads")
            ScrollBar.vertical: ScrollBar {}

            delegate: Pane {
                id: downloadItem
                readonly property DownloadList view: downloadItem.ListView.view as DownloadList
                required property int index
                required property int downloadId
                required property string fileName
                required property string repo
                required property int downloadState
                required property double progress
                required property string sizeText
                required property string speedText
                required property string timeLeftText
                required property string message
                required property string localPath
                required property bool canResume
                readonly property bool running: downloadState === DownloadManager.Starting || downloadState === DownloadManager.Checking
                                                || downloadState === DownloadManager.Downloading
                                                || downloadState === DownloadManager.Verifying

                objectName: "download_" + index
                width: ListView.view.width
                padding: 6
                Accessible.name: qsTr("%1: %2").arg(downloadItem.fileName).arg(downloadItem.view.stateText(downloadItem.downloadState))

                ColumnLayout {
                    anchors.fill: parent
                    spacing: 4
                    RowLayout {
                        Layout.fillWidth: true
                        spacing: 8
                        Label {
                            Layout.fillWidth: true
                            text: qsTr("%1 — %2").arg(downloadItem.fileName).arg(downloadItem.repo)
                            elide: Text.ElideMiddle
                        }
                        Label {
                            objectName: "downloadState"
                            text: downloadItem.view.stateText(downloadItem.downloadState)
                            opacity: 0.8
                        }
                    }
                    ProgressBar {
                        objectName: "downloadProgress"
                        Layout.fillWidth: true
                        visible: downloadItem.downloadState !== DownloadManager.Finished
                        from: 0
                        to: 1
                        indeterminate: downloadItem.progress < 0 && downloadItem.running
                        value: Math.max(0, downloadItem.progress)
                        Accessible.name: qsTr("Download progress")
                    }
                    RowLayout {
                        Layout.fillWidth: true
                        spacing: 8
                        Label {
                            objectName: "downloadNumbers"
                            Layout.fillWidth: true
                            text: downloadItem.view.joined([downloadItem.sizeText, downloadItem.speedText, downloadItem.timeLeftText])
                            opacity: 0.8
                            elide: Text.ElideRight
                        }
                        Button {
                            objectName: "downloadPause"
                            visible: downloadItem.running
                            text: qsTr("Pause")
                            Accessible.name: qsTr("Pause the download of %1").arg(downloadItem.fileName)
                            onClicked: DownloadManager.pause(downloadItem.downloadId)
                        }
                        Button {
                            objectName: "downloadResume"
                            visible: downloadItem.canResume
                            text: downloadItem.downloadState === DownloadManager.Failed ? qsTr("Retry") : qsTr("Resume")
                            Accessible.name: qsTr("Resume the download of %1").arg(downloadItem.fileName)
                            onClicked: DownloadManager.resume(downloadItem.downloadId)
                        }
                        Button {
                            objectName: "downloadCancel"
                            visible: downloadItem.downloadState !== DownloadManager.Finished
                            text: qsTr("Cancel")
                            Accessible.name: qsTr("Cancel the download of %1 and delete what was downloaded").arg(downloadItem.fileName)
                            onClicked: DownloadManager.cancel(downloadItem.downloadId)
                        }
                        Button {
                            objectName: "downloadOpen"
                            visible: downloadItem.downloadState === DownloadManager.Finished
                            text: qsTr("Open")
                            highlighted: true
                            Accessible.name: qsTr("Open %1 and chat with it").arg(downloadItem.fileName)
                            onClicked: downloadItem.view.openRequested(downloadItem.localPath)
                        }
                        Button {
                            objectName: "downloadDismiss"
                            visible: downloadItem.downloadState === DownloadManager.Finished
                            text: qsTr("Remove from list")
                            flat: true
                            Accessible.name: qsTr("Remove %1 from this list (the file stays)").arg(downloadItem.fileName)
                            onClicked: DownloadManager.dismiss(downloadItem.downloadId)
                        }
                    }
                    Label {
                        objectName: "downloadMessage"
                        Layout.fillWidth: true
                        visible: text !== ""
                        text: downloadItem.message
                        wrapMode: Text.Wrap
                        color: Theme.negativeText
                        Accessible.role: Accessible.AlertMessage
                        Accessible.name: text
                    }
                }
            }
        }
        // Takes the height the file list leaves while there is none, so the
        // rows above stay together at the top instead of spreading out.
        Item {
            Layout.fillHeight: true
            visible: !fileList.visible
        }
        Label {
            Layout.fillWidth: true
            text: qsTr("Downloads are saved in %1").arg(DownloadManager.modelsFolder)
            opacity: 0.6
            font.pixelSize: 12
            elide: Text.ElideMiddle
        }
    }
}
