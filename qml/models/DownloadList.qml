import QtQuick
import Burrow

// The dialog's list of downloads (DownloadDialog): what its rows show of a
// download's state, in words, and where Open goes (the dialog answers).
ListView {
    signal openRequested(string localPath)

    // The non-empty texts, with " · " between them.
    function joined(texts) {
        let out = ""
        for (let i = 0; i < texts.length; ++i) {
            if (texts[i] !== "")
                out += (out === "" ? "" : " · ") + texts[i]
        }
        return out
    }
    function stateText(state) {
        switch (state) {
        case DownloadManager.Starting: return qsTr("Starting…")
        case DownloadManager.Checking: return qsTr("Checking the part downloaded before…")
        case DownloadManager.Downloading: return qsTr("Downloading")
        case DownloadManager.Verifying: return qsTr("Checking the file…")
        case DownloadManager.Paused: return qsTr("Paused")
        case DownloadManager.Failed: return qsTr("Stopped")
        case DownloadManager.Finished: return qsTr("Downloaded and checked")
        }
        return ""
    }
}
