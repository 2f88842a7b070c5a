import QtQuick

// The files of a repository in the download dialog (DownloadDialog): a row
// shows whether it is the chosen file and asks, through this list, to be
// chosen or downloaded (the dialog answers).
ListView {
    // The repository path of the chosen file ("" when none).
    property string selectedPath
    signal fileChosen(string path)
    signal downloadRequested()
}
