import QtQuick
import QtTest
import Burrow

// The library screen over a LibraryFilter of fixed rows: typing in the search
// field narrows the list, the sort box reorders it (recently opened first by
// default), Open and Enter emit the model's path, and a model Burrow cannot
// run says why and does not open.
Item {
    width: 900
    height: 700

    ListModel {
        id: rows
        ListElement {
            name: "Qwen2.5-0.5B-Instruct-Q4_K_M"; path: "/models/qwen.gguf"; repository: "lmstudio-community/Qwen2.5-GGUF"
            modelName: "Qwen2.5 0.5B Instruct"; family: "qwen2"; sizeClass: "494M"; quantization: "Q4_K_M"
            fileSize: 397000000; fileSizeText: "379 MB"; contextLength: 32768; source: "lmstudio"; sourceName: "LM Studio"
            sourceOrder: 1; placePath: "/home/u/.lmstudio/models"; parts: 1; modified: 0
            runnable: true; whyNot: ""; fits: true; memoryText: "520 MB"; recentRank: -1; remote: false
        }
        ListElement {
            name: "llama3.2:latest"; path: "/ollama/blobs/sha256-aa"; repository: ""
            modelName: "Llama 3.2 3B Instruct"; family: "llama"; sizeClass: "3.2B"; quantization: "Q4_K_M"
            fileSize: 2019000000; fileSizeText: "1.9 GB"; contextLength: 131072; source: "ollama"; sourceName: "Ollama"
            sourceOrder: 2; placePath: "/home/u/.ollama/models"; parts: 1; modified: 0
            runnable: true; whyNot: ""; fits: false; memoryText: "19 GB"; recentRank: 0; remote: false
        }
        ListElement {
            name: "mamba-2.8b"; path: "/models/mamba.gguf"; repository: ""
            modelName: "Mamba 2.8B"; family: "mamba"; sizeClass: "2.8B"; quantization: "Q8_0"
            fileSize: 3000000000; fileSizeText: "2.8 GB"; contextLength: 0; source: "gpt4all"; sourceName: "GPT4All"
            sourceOrder: 3; placePath: "/home/u/.local/share/nomic.ai/GPT4All"; parts: 1; modified: 0
            runnable: false; whyNot: "Burrow can't run the mamba architecture yet."; fits: true; memoryText: "3 GB"
            recentRank: -1; remote: false
        }
        ListElement {
            name: "SmolLM2-135M-Q8_0"; path: "/hub/smol.gguf"; repository: "org/SmolLM2-GGUF"
            modelName: "SmolLM2 135M"; family: "llama"; sizeClass: "135M"; quantization: "Q8_0"
            fileSize: 145000000; fileSizeText: "138 MB"; contextLength: 8192; source: "huggingface"
            sourceName: "Hugging Face"; sourceOrder: 5; placePath: "/home/u/.cache/huggingface/hub"; parts: 1
            modified: 0; runnable: true; whyNot: ""; fits: true; memoryText: "200 MB"; recentRank: -1; remote: false
        }
    }

    LibraryFilter {
        id: filter
        sourceModel: rows
    }

    ModelLibraryView {
        id: view
        anchors.fill: parent
        models: filter
    }

    SignalSpy {
        id: opened
        target: view
        signalName: "openRequested"
    }

    TestCase {
        name: "ModelLibraryView"
        when: windowShown

        function init() {
            filter.searchText = ""
            filter.sortOrder = LibraryFilter.SortRecent
            findChild(view, "librarySort").currentIndex = 0
            opened.clear()
        }

        function names() {
            const list = []
            for (let i = 0; i < filter.count; ++i)
                list.push(filter.valueAt(i, "name"))
            return list
        }

        function row(index) {
            const list = findChild(view, "libraryList")
            list.positionViewAtIndex(index, ListView.Contain)
            return findChild(list, "libraryRow" + index)
        }

        function test_recentFirstThenRunnable() {
            compare(names(), ["llama3.2:latest", "Qwen2.5-0.5B-Instruct-Q4_K_M", "SmolLM2-135M-Q8_0", "mamba-2.8b"])
        }

        function test_search() {
            const field = findChild(view, "librarySearch")
            mouseClick(field)
            keyClick(Qt.Key_Q)
            keyClick(Qt.Key_W)
            keyClick(Qt.Key_E)
            compare(filter.searchText, "qwe")
            compare(names(), ["Qwen2.5-0.5B-Instruct-Q4_K_M"])
            // Every word must match: family and source.
            field.selectAll()
            keyClick(Qt.Key_Delete)
            for (const key of [Qt.Key_L, Qt.Key_L, Qt.Key_A, Qt.Key_M, Qt.Key_A, Qt.Key_Space, Qt.Key_H, Qt.Key_U, Qt.Key_G])
                keyClick(key)
            compare(names(), ["SmolLM2-135M-Q8_0"])
            // Nothing matches: the list says so.
            filter.searchText = "no such model"
            compare(filter.count, 0)
            tryVerify(() => findChild(view, "libraryEmpty").visible)
            compare(findChild(view, "libraryEmpty").text, "No model matches “no such model”.")
        }

        function test_sort() {
            const box = findChild(view, "librarySort")
            box.forceActiveFocus()
            keyClick(Qt.Key_Down)   // Name
            compare(filter.sortOrder, LibraryFilter.SortName)
            compare(names(), ["llama3.2:latest", "mamba-2.8b", "Qwen2.5-0.5B-Instruct-Q4_K_M", "SmolLM2-135M-Q8_0"])
            keyClick(Qt.Key_Down)   // Size
            compare(filter.sortOrder, LibraryFilter.SortSize)
            compare(names(), ["SmolLM2-135M-Q8_0", "Qwen2.5-0.5B-Instruct-Q4_K_M", "llama3.2:latest", "mamba-2.8b"])
            keyClick(Qt.Key_Down)   // Source
            compare(filter.sortOrder, LibraryFilter.SortSource)
            compare(names(), ["Qwen2.5-0.5B-Instruct-Q4_K_M", "llama3.2:latest", "mamba-2.8b", "SmolLM2-135M-Q8_0"])
        }

        function test_openEmitsPath() {
            const first = row(1)
            verify(first)
            compare(first.name, "Qwen2.5-0.5B-Instruct-Q4_K_M")
            const open = findChild(first, "libraryRowOpen")
            verify(open.enabled)
            mouseClick(open)
            compare(opened.count, 1)
            compare(opened.signalArguments[0][0], "/models/qwen.gguf")
            // The row says how much memory it needs and that it fits.
            compare(findChild(first, "libraryRowState").text, "Needs 520 MB; fits in the memory free now")
            compare(findChild(row(0), "libraryRowState").text, "Needs 19 GB, more than the memory free now")
        }

        function test_enterOpensTheFoundModel() {
            const field = findChild(view, "librarySearch")
            mouseClick(field)
            for (const key of [Qt.Key_S, Qt.Key_M, Qt.Key_O, Qt.Key_L])
                keyClick(key)
            keyClick(Qt.Key_Return)
            compare(opened.count, 1)
            compare(opened.signalArguments[0][0], "/hub/smol.gguf")
        }

        function test_notRunnableSaysWhy() {
            filter.searchText = "mamba"
            compare(filter.count, 1)
            const item = row(0)
            verify(item)
            const open = findChild(item, "libraryRowOpen")
            verify(!open.enabled)
            compare(findChild(item, "libraryRowState").text, "Burrow can't run the mamba architecture yet.")
            mouseClick(open)
            view.openRow(0)
            compare(opened.count, 0)
        }

        // A server's model (Settings → Servers): marked remote with the
        // server's name, no file size or memory estimate, and Open gives its locator.
        function test_remoteRowSaysWhereItRuns() {
            rows.append({ name: "Qwen/Qwen3-32B", path: "http://gpu-box:8000/v1#model=Qwen%2FQwen3-32B",
                          repository: "", modelName: "Qwen/Qwen3-32B", family: "", sizeClass: "", quantization: "",
                          fileSize: 0, fileSizeText: "0 bytes", contextLength: 32768, source: "remote",
                          sourceName: "GPU box (remote)", sourceOrder: 7, placePath: "GPU box", parts: 1, modified: 0,
                          runnable: true, whyNot: "", fits: true, memoryText: "", recentRank: -1, remote: true })
            filter.searchText = "qwen3"
            compare(filter.count, 1)
            const item = row(0)
            verify(item)
            compare(findChild(item, "libraryRowSource").text, "GPU box (remote)")
            compare(findChild(item, "libraryRowState").text, "Remote: runs on the server, not on this computer")
            verify(item.facts().indexOf("bytes") < 0)
            mouseClick(findChild(item, "libraryRowOpen"))
            compare(opened.count, 1)
            compare(opened.signalArguments[0][0], "http://gpu-box:8000/v1#model=Qwen%2FQwen3-32B")
            rows.remove(rows.count - 1)
        }

        // "Download a model…" asks the window for the download dialog.
        function test_downloadButton() {
            const spy = createTemporaryObject(signalSpy, view, { target: view, signalName: "downloadRequested" })
            const button = findChild(view, "libraryDownload")
            verify(button.visible)
            mouseClick(button)
            compare(spy.count, 1)
        }

        Component {
            id: signalSpy
            SignalSpy {}
        }
    }
}
