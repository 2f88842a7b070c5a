import QtQuick
import QtTest
import Burrow

// The drop overlay says what dropping does, or why it will be refused.
Item {
    width: 640
    height: 400

    DropOverlay {
        id: overlay
        anchors.fill: parent
    }

    TestCase {
        name: "DropOverlay"
        when: windowShown

        function test_acceptable() {
            overlay.refusal = ""
            verify(overlay.acceptable)
            compare(findChild(overlay, "dropOverlayText").text, "Drop to open this model")
        }

        function test_refusedWithReason() {
            overlay.refusal = "notes.txt is not a .gguf model file."
            verify(!overlay.acceptable)
            compare(findChild(overlay, "dropOverlayText").text, "notes.txt is not a .gguf model file.")
            compare(overlay.Accessible.name, overlay.refusal)
        }
    }
}
