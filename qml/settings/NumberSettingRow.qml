import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// A number setting of the panel (a row of the settings field table with
// `numberRow`): its label and hint from the table, a field that takes what
// is typed on Enter or when the focus leaves (a refused value keeps the old
// one, and the reason shows under it). The panel gives it the settings, its
// reload count and, for the context size, what the model allows
// (ChatSettingsPanel binds them when the row is made).
SettingRow {
    id: row

    // The field's entry of the table (ChatSettings.fields): name, label, hint.
    required property var modelData
    // Bumped by the panel's reload(): the field shows the stored value again.
    property int generation: 0
    // More to say under the field ("This model: trained for 2,048.").
    property string extraHint

    function storedText() { return row.generation >= 0 && row.settings ? String(row.settings[row.field]) : "" }

    field: row.modelData.name
    label: qsTranslate("ChatSettings", row.modelData.label)
    hint: {
        const own = row.modelData.hint !== "" ? qsTranslate("ChatSettings", row.modelData.hint) : ""
        return row.extraHint !== "" ? own + " " + row.extraHint : own
    }
    onReset: numberInput.text = Qt.binding(() => row.storedText())

    TextField {
        id: numberInput
        objectName: "field_" + row.field
        Layout.preferredWidth: 110
        horizontalAlignment: TextInput.AlignRight
        inputMethodHints: Qt.ImhFormattedNumbersOnly
        text: row.storedText()
        enabled: row.settings !== null
        Accessible.name: row.label
        Accessible.description: row.error !== "" ? row.error : row.hint
        onEditingFinished: {
            if (row.settings && row.settings.setValue(row.field, numberInput.text))
                numberInput.text = Qt.binding(() => row.storedText())
        }
    }
}
