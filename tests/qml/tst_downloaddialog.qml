import QtQuick
import QtQuick.Controls
import QtTest
import Burrow

// The download dialog against the hub on loopback that tst_qml.cpp starts
// (BURROW_HF_ENDPOINT): text that names no repository is refused in words;
// a repository lists its GGUF files with sizes and quantization hints; the
// chosen file downloads with its progress shown and, checked, offers Open,
// which hands the path on; a gated repository says it needs a token, and
// Retry after the token is saved downloads it. The access token dialog
// saves and removes the token without ever showing it.
Item {
    id: root
    width: 900
    height: 800

    DownloadDialog {
        id: dialog
    }
    AccessTokenDialog {
        id: tokenDialog
    }
    SignalSpy {
        id: openSpy
        target: dialog
        signalName: "openRequested"
    }

    TestCase {
        name: "DownloadDialog"
        when: windowShown

        // A row's button that a state change has just shown or moved (a
        // message above the list appears, the row's progress bar goes),
        // clicked once the layouts have placed it. The list can replace a
        // row's delegate while it lays out again (a CI run under load clicked
        // Open on the old one, which never reached the dialog), so the button
        // is looked up afresh on each poll and clicked once the same item has
        // held the same place for three polls.
        function clickInRow(fileName, childName) {
            let lastItem = null
            let lastPlace = ""
            let steady = 0
            tryVerify(() => {
                const row = downloadRow(fileName)
                const item = row ? findChild(row, childName) : null
                if (!item || !item.visible || !item.enabled || item.width <= 0 || item.height <= 0) {
                    steady = 0
                    return false
                }
                const p = item.mapToItem(null, 0, 0)
                const place = [p.x, p.y, item.width, item.height].join(",")
                steady = item === lastItem && place === lastPlace ? steady + 1 : 0
                lastItem = item
                lastPlace = place
                return steady >= 3
            }, 5000, "no steady " + childName + " in the row of " + fileName)
            mouseClick(lastItem)
        }
        function named(name) {
            const item = findChild(dialog.contentItem, name)
            verify(item !== null, "no item " + name)
            return item
        }
        function list(text) {
            dialog.open()
            tryCompare(dialog, "opened", true)
            const field = named("downloadRepoField")
            field.text = text
            mouseClick(named("downloadListButton"))
            tryVerify(() => !DownloadManager.hub.busy, 10000)
        }
        // The download row whose file is `name`.
        function downloadRow(name) {
            const view = named("downloadList")
            for (let i = 0; i < DownloadManager.count; ++i) {
                const row = findChild(view, "download_" + i)
                if (row && row.fileName === name)
                    return row
            }
            return null
        }
        function fileRow(name) {
            const view = named("downloadFileList")
            for (let i = 0; i < view.count; ++i) {
                const row = findChild(view, "downloadFile_" + i)
                if (row && row.modelData.name === name)
                    return row
            }
            return null
        }

        function test_1_notARepository() {
            list("not a repository")
            verify(named("downloadListError").visible)
            verify(named("downloadListError").text.indexOf("not a repository id") >= 0, named("downloadListError").text)
            compare(DownloadManager.hub.files.length, 0)
        }

        function test_2_listDownloadOpen() {
            list("https://huggingface.co/test/tiny-GGUF")
            compare(named("downloadListError").visible, false)
            const files = named("downloadFileList")
            tryCompare(files, "count", 2)
            // The view makes its delegates when it next lays out, after the
            // count changed (a CI run under load looked before that).
            tryVerify(() => fileRow("tiny-Q8_0.gguf") !== null && fileRow("tiny-F16.gguf") !== null, 5000)
            const q8 = fileRow("tiny-Q8_0.gguf")
            verify(q8.modelData.sizeText.indexOf("200") >= 0, q8.modelData.sizeText)
            compare(q8.modelData.quantization, "Q8_0")
            verify(q8.modelData.hint.indexOf("8-bit") >= 0)
            compare(fileRow("tiny-F16.gguf").modelData.folder, "f16")

            mouseClick(q8)
            compare(dialog.selectedPath, "tiny-Q8_0.gguf")
            verify(named("downloadStartButton").enabled)
            mouseClick(named("downloadStartButton"))
            compare(dialog.downloadProblem, "")
            tryVerify(() => downloadRow("tiny-Q8_0.gguf") !== null, 5000)
            const row = downloadRow("tiny-Q8_0.gguf")
            tryCompare(row, "downloadState", DownloadManager.Finished, 20000)
            compare(findChild(row, "downloadState").text, "Downloaded and checked")
            verify(findChild(row, "downloadNumbers").text.indexOf("200") >= 0, findChild(row, "downloadNumbers").text)
            verify(findChild(row, "downloadOpen").visible)
            verify(!findChild(row, "downloadPause").visible)

            // A second download of the same file is refused in words.
            mouseClick(named("downloadStartButton"))
            verify(dialog.downloadProblem.indexOf("already in the models folder") >= 0, dialog.downloadProblem)

            clickInRow("tiny-Q8_0.gguf", "downloadOpen")
            tryCompare(openSpy, "count", 1)
            verify(openSpy.signalArguments[0][0].endsWith("/models/tiny-Q8_0.gguf"), openSpy.signalArguments[0][0])

            const count = DownloadManager.count
            clickInRow("tiny-Q8_0.gguf", "downloadDismiss")
            compare(DownloadManager.count, count - 1)
        }

        function test_3_gatedNeedsAToken() {
            DownloadManager.token.clear()
            list("test/gated-GGUF")
            tryVerify(() => fileRow("gated-Q4_K_M.gguf") !== null, 5000)
            const file = fileRow("gated-Q4_K_M.gguf")
            mouseDoubleClickSequence(file)   // a double click downloads at once
            tryVerify(() => downloadRow("gated-Q4_K_M.gguf") !== null, 5000)
            const row = downloadRow("gated-Q4_K_M.gguf")
            tryCompare(row, "downloadState", DownloadManager.Failed, 10000)
            const message = findChild(row, "downloadMessage")
            verify(message.visible)
            verify(message.text.indexOf("needs an access token") >= 0, message.text)
            compare(findChild(row, "downloadResume").text, "Retry")

            verify(DownloadManager.token.save("hf_testtoken"))
            clickInRow("gated-Q4_K_M.gguf", "downloadResume")
            tryVerify(() => {
                const now = downloadRow("gated-Q4_K_M.gguf")
                return now !== null && now.downloadState === DownloadManager.Finished
            }, 20000)
            compare(findChild(downloadRow("gated-Q4_K_M.gguf"), "downloadMessage").visible, false)
            DownloadManager.token.clear()
            dialog.close()
        }

        function test_4_tokenDialog() {
            DownloadManager.token.clear()
            tokenDialog.open()
            tryCompare(tokenDialog, "opened", true)
            const field = findChild(tokenDialog.contentItem, "accessTokenField")
            const state = findChild(tokenDialog.contentItem, "accessTokenState")
            const save = findChild(tokenDialog.contentItem, "accessTokenSave")
            compare(state.text, "No token is saved.")
            compare(field.echoMode, TextInput.Password)
            verify(!save.enabled)

            field.text = "hf_bad token"
            mouseClick(save)
            verify(findChild(tokenDialog.contentItem, "accessTokenError").text !== "")
            verify(!DownloadManager.token.isSet)

            field.text = "hf_SecretValue42"
            mouseClick(save)
            tryVerify(() => DownloadManager.token.isSet, 10000)
            compare(field.text, "")
            verify(state.text.indexOf("hf_SecretValue42") < 0)
            verify(state.text.indexOf("only you can read") >= 0, state.text)
            compare(findChild(tokenDialog.contentItem, "accessTokenError").visible, false)

            mouseClick(findChild(tokenDialog.contentItem, "accessTokenRemove"))
            verify(!DownloadManager.token.isSet)
            compare(state.text, "No token is saved.")
            tokenDialog.close()
        }
    }
}
