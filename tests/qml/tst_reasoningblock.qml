import QtQuick
import QtTest
import Burrow

// A reply's reasoning: one collapsed line above the answer ("Thinking…"
// while it streams, then how long it took) that expands to the reasoning
// and collapses again; nothing of the reasoning is laid out while collapsed.
Item {
    width: 640
    height: 400

    ReasoningBlock {
        id: block
        width: parent.width
        reasoning: "The user asks for a story. A short one, then."
        reasoningMs: 3240
    }

    ReasoningBlock {
        id: streaming
        y: 200
        width: parent.width
        reasoning: "Let me think"
        reasoningNow: true
    }

    ReasoningBlock {
        id: empty
        y: 300
        width: parent.width
    }

    TestCase {
        name: "ReasoningBlock"
        when: windowShown

        function init() {
            block.expanded = false
        }

        function test_collapsedAtFirst() {
            verify(block.visible)
            compare(findChild(block, "reasoningHeader").text, "Thought for 3.2 s")
            const body = findChild(block, "reasoningText")
            verify(!body.visible)
            compare(body.text, "")
        }

        function test_clickExpandsAndCollapses() {
            const toggle = findChild(block, "reasoningToggle")
            compare(toggle.Accessible.name, "Show the reasoning")
            mouseClick(toggle)
            verify(block.expanded)
            const body = findChild(block, "reasoningText")
            verify(body.visible)
            compare(body.text, block.reasoning)
            compare(toggle.Accessible.name, "Hide the reasoning")
            mouseClick(toggle)
            verify(!block.expanded)
            verify(!body.visible)
        }

        function test_keyboardToggles() {
            const toggle = findChild(block, "reasoningToggle")
            toggle.forceActiveFocus()
            keyClick(Qt.Key_Space)
            verify(block.expanded)
        }

        function test_thinkingWhileItStreams() {
            compare(findChild(streaming, "reasoningHeader").text, "Thinking…")
            streaming.reasoningNow = false
            streaming.reasoningMs = 42000
            compare(findChild(streaming, "reasoningHeader").text, "Thought for 42 s")
        }

        function test_growsWhileExpanded() {
            block.expanded = true
            block.reasoning += " More."
            compare(findChild(block, "reasoningText").text, block.reasoning)
        }

        function test_nothingToShow() {
            verify(!empty.visible)
        }
    }
}
