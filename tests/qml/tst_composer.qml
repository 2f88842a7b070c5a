import QtQuick
import QtTest
import Burrow

// Composer key handling: Enter sends, Shift+Enter adds a line, Esc stops.
Item {
    id: root
    width: 640
    height: 200

    Composer {
        id: composer
        width: parent.width
        hasModel: true
    }
    SignalSpy { id: sendSpy; target: composer; signalName: "sendRequested" }
    SignalSpy { id: stopSpy; target: composer; signalName: "stopRequested" }

    TestCase {
        name: "Composer"
        when: windowShown

        function init() {
            composer.clear()
            composer.hasModel = true
            composer.busy = false
            composer.generating = false
            sendSpy.clear()
            stopSpy.clear()
            composer.focusInput()
        }

        function test_enterSends() {
            keyClick("h")
            keyClick("i")
            keyClick(Qt.Key_Return)
            compare(sendSpy.count, 1)
            compare(sendSpy.signalArguments[0][0], "hi")
        }

        function test_keypadEnterSends() {
            keyClick("x")
            keyClick(Qt.Key_Enter)
            compare(sendSpy.count, 1)
        }

        function test_shiftEnterAddsLine() {
            keyClick("a")
            keyClick(Qt.Key_Return, Qt.ShiftModifier)
            keyClick("b")
            compare(sendSpy.count, 0)
            compare(composer.text, "a\nb")
            keyClick(Qt.Key_Return)
            compare(sendSpy.count, 1)
            compare(sendSpy.signalArguments[0][0], "a\nb")
        }

        function test_blankDoesNotSend() {
            keyClick(Qt.Key_Space)
            keyClick(Qt.Key_Return)
            compare(sendSpy.count, 0)
        }

        function test_noModelNoSendAndHowToGetOne() {
            composer.hasModel = false
            keyClick("x")
            keyClick(Qt.Key_Return)
            compare(sendSpy.count, 0)
            const input = findChild(composer, "composerInput")
            verify(input.placeholderText.indexOf(".gguf") >= 0)
            verify(input.placeholderText.indexOf("Ctrl+O") >= 0)
        }

        function test_noSendWhileLoadingOrGenerating() {
            composer.busy = true
            keyClick("x")
            keyClick(Qt.Key_Return)
            compare(sendSpy.count, 0)
            composer.busy = false
            composer.generating = true
            keyClick(Qt.Key_Return)
            compare(sendSpy.count, 0)
        }

        // Esc is the window's Stop action (one owner per shortcut:
        // qml/common/AppActions.qml; tst_chatcontroller presses it in the
        // real window): the composer does not stop a reply on its own.
        function test_escapeIsTheWindowsStop() {
            composer.generating = true
            keyClick(Qt.Key_Escape)
            compare(stopSpy.count, 0)
        }

        function test_buttonSendsThenStops() {
            const button = findChild(composer, "composerButton")
            verify(button)
            compare(button.enabled, false)
            keyClick("o")
            compare(button.text, "Send")
            compare(button.enabled, true)
            mouseClick(button)
            compare(sendSpy.count, 1)
            composer.generating = true
            compare(button.text, "Stop")
            compare(button.Accessible.name, "Stop the reply")
            mouseClick(button)
            compare(stopSpy.count, 1)
        }
    }
}
