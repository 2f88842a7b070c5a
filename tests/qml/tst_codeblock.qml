import QtQuick
import QtTest
import Burrow

// A fenced code block shows its code monospace and copies it on request.
Item {
    width: 640
    height: 300

    CodeBlock {
        id: block
        width: parent.width
        code: "int main() {\n    return 0;\n}"
        language: "cpp"
    }
    SignalSpy { id: copySpy; target: block; signalName: "copyRequested" }

    Banner {
        id: banner
        y: 200
        width: parent.width
        text: "notes.txt is not a .gguf model file."
    }
    SignalSpy { id: dismissSpy; target: banner; signalName: "dismissed" }

    TestCase {
        name: "CodeBlockAndBanner"
        when: windowShown

        function test_copyButtonCopiesTheCode() {
            const button = findChild(block, "copyCode")
            verify(button)
            compare(button.Accessible.name, "Copy this code")
            mouseClick(button)
            compare(copySpy.count, 1)
            compare(copySpy.signalArguments[0][0], block.code)
        }

        function test_bannerShowsTextAndDismisses() {
            compare(findChild(banner, "bannerText").text, banner.text)
            compare(banner.Accessible.name, banner.text)
            const buttons = banner.children[0].children
            let dismiss = null
            for (let i = 0; i < buttons.length; ++i) {
                if (buttons[i].text === "Dismiss")
                    dismiss = buttons[i]
            }
            verify(dismiss)
            mouseClick(dismiss)
            compare(dismissSpy.count, 1)
        }
    }
}
