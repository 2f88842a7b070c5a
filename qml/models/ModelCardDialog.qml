import QtQml
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// The model card: what the file's header says and the memory it needs at the
// chosen context, shown before loading.
Dialog {
    id: root
    objectName: "modelCardDialog"

    required property ChatController chat
    readonly property var card: chat.models.pendingCard
    // The chat's context size as a session of this model would get it.
    readonly property int chosenContext: card.contextFor(chat.conversation.settings.contextSize)

    title: qsTr("Open %1").arg(card.name)
    modal: true
    anchors.centerIn: parent
    width: Math.min(parent ? parent.width - 48 : 520, 520)
    closePolicy: Popup.CloseOnEscape
    // The card takes the keyboard when it opens: Enter presses Load (the
    // default button), Escape cancels, Tab reaches the context and the buttons.
    focus: true

    onAccepted: chat.models.loadPending()
    onRejected: chat.models.dismissPending()

    Connections {
        target: root.chat.models
        function onPendingCardChanged() {
            if (root.chat.models.pendingCard.valid)
                root.open()
            else
                root.close()
        }
    }

    contentItem: ColumnLayout {
        spacing: 10
        focus: true
        // Enter in the context field comes here too (the field does not take it).
        Keys.onReturnPressed: root.accept()
        Keys.onEnterPressed: root.accept()
        GridLayout {
            columns: 2
            columnSpacing: 16
            rowSpacing: 4
            Label { text: qsTr("Name"); opacity: 0.7 }
            Label { objectName: "cardName"; text: root.card.name; Layout.fillWidth: true; elide: Text.ElideMiddle }
            Label { text: qsTr("File"); opacity: 0.7 }
            Label { text: root.card.fileName; Layout.fillWidth: true; elide: Text.ElideMiddle }
            Label { text: qsTr("Architecture"); opacity: 0.7 }
            Label { objectName: "cardArchitecture"; text: root.card.architecture }
            Label { text: qsTr("Parameters"); opacity: 0.7 }
            Label {
                objectName: "cardParameters"
                // A mixture of experts says what one token reads: "3.3B of 30.5B active per token".
                text: root.card.activeParametersText !== "" ? root.card.activeParametersText : root.card.parametersText
            }
            Label { text: qsTr("Experts"); opacity: 0.7; visible: root.card.expertCount > 0 }
            Label { objectName: "cardExperts"; text: root.card.expertsText; visible: root.card.expertCount > 0 }
            Label { text: qsTr("Sliding window"); opacity: 0.7; visible: root.card.slidingWindow > 0 }
            Label {
                objectName: "cardSlidingWindow"
                visible: root.card.slidingWindow > 0
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: root.card.slidingWindowText
            }
            Label { text: qsTr("Shared KV layers"); opacity: 0.7; visible: root.card.sharedKvLayerCount > 0 }
            Label {
                objectName: "cardSharedKv"
                visible: root.card.sharedKvLayerCount > 0
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: root.card.sharedKvText
            }
            Label { text: qsTr("Speculative decoding"); opacity: 0.7; visible: root.card.speculativeText !== "" }
            Label {
                objectName: "cardSpeculative"
                visible: root.card.speculativeText !== ""
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: root.card.speculativeText
            }
            Label { text: qsTr("Per-layer embeddings"); opacity: 0.7; visible: root.card.perLayerEmbeddingBytes > 0 }
            Label {
                objectName: "cardPerLayerEmbedding"
                visible: root.card.perLayerEmbeddingBytes > 0
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: root.card.perLayerEmbeddingText
            }
            Label { text: qsTr("Quantization"); opacity: 0.7 }
            Label { text: root.card.quantization }
            Label { text: qsTr("Trained context"); opacity: 0.7 }
            Label { text: qsTr("%L1 tokens").arg(root.card.trainedContext) }
            Label { text: qsTr("File size"); opacity: 0.7 }
            Label { text: root.card.fileSizeText }
            Label { text: qsTr("Chat format"); opacity: 0.7 }
            Label {
                objectName: "cardChatFormat"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: root.card.chatFormatText
            }
            Label { text: qsTr("Context"); opacity: 0.7 }
            SpinBox {
                objectName: "cardContext"
                from: 16
                to: root.card.trainedContext > 0 ? root.card.trainedContext : 1048576
                stepSize: 512
                editable: true
                value: root.chosenContext
                Accessible.name: qsTr("Context size in tokens")
                onValueModified: root.chat.conversation.settings.contextSize = value
            }
            Label { text: qsTr("Memory needed"); opacity: 0.7 }
            Label {
                objectName: "cardMemory"
                text: qsTr("%1 (weights and KV cache), %2 free").arg(root.card.memoryTextAt(root.chosenContext, root.chat.conversation.settings.kvCacheType))
                                                             .arg(root.card.availableMemoryText)
            }
        }
        Label {
            objectName: "cardMemoryWarning"
            Layout.fillWidth: true
            visible: !root.card.fitsAt(root.chosenContext, root.chat.conversation.settings.kvCacheType)
            wrapMode: Text.Wrap
            color: Theme.negativeText
            text: qsTr("This needs more memory than is free now. Loading may fail or make the computer slow; "
                       + "a smaller context or a smaller quantization needs less.")
        }
    }

    footer: DialogButtonBox {
        Button {
            objectName: "cardLoad"
            text: root.card.fitsAt(root.chosenContext, root.chat.conversation.settings.kvCacheType) ? qsTr("Load") : qsTr("Load anyway")
            DialogButtonBox.buttonRole: Dialog.AcceptRole   // the same enum; qmllint 6.4 finds it on Dialog only
            Accessible.name: qsTr("Load this model")
            Keys.onReturnPressed: root.accept()
            Keys.onEnterPressed: root.accept()
        }
        Button {
            text: qsTr("Cancel")
            DialogButtonBox.buttonRole: Dialog.RejectRole
            Accessible.name: qsTr("Don't load this model")
            Keys.onReturnPressed: root.reject()
            Keys.onEnterPressed: root.reject()
        }
    }
}
