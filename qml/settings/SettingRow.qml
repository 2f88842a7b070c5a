import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Burrow

// One setting of the panel: a dot when it differs from the defaults, its
// label, its editor (given by the panel: inline, or `wideEditor` under the
// label), Reset, and under it the reason a value was refused or the hint.
// Object names: changed_<field>, reset_<field>, error_<field>, hint_<field>.
ColumnLayout {
    id: row

    property ChatSettings settings: null
    // The field this row shows (its error is shown); `fields` are what
    // "changed" looks at and Reset resets (seed: randomSeed and seed).
    required property string field
    property var fields: [field]
    property string label
    property string hint
    // The editor beside the label (a number field, a combo box, …).
    default property alias editors: inlineSlot.data
    // Or a wide editor under the label (the system prompt).
    property alias wideEditor: wideSlot.data

    // After Reset: the editor shows the value again (its binding was replaced by typing).
    signal reset()

    readonly property bool changed: settings !== null && fields.some(f => settings.changedFields.indexOf(f) >= 0)
    readonly property string error: settings !== null && settings.errors[field] ? settings.errors[field] : ""

    Layout.fillWidth: true
    spacing: 2

    RowLayout {
        Layout.fillWidth: true
        Label {
            objectName: "changed_" + row.field
            text: "●"
            color: row.palette.highlight
            visible: row.changed
            Accessible.name: qsTr("Differs from the default")
        }
        Label {
            Layout.fillWidth: true
            visible: row.label !== ""
            text: row.label
            font.bold: row.changed
            wrapMode: Text.Wrap
        }
        // Editors and Reset at the top of the row: centred, they kept the
        // place they had while the label was still wrapped into several
        // lines before the panel had its width (Qt 6.4 does not move a
        // nested layout again when only its row's height shrinks), and sat
        // over the hint below.
        RowLayout {
            id: inlineSlot
            Layout.alignment: Qt.AlignTop
            Layout.fillWidth: row.label === ""
            spacing: 6
        }
        Button {
            objectName: "reset_" + row.field
            Layout.alignment: Qt.AlignTop
            text: qsTr("Reset")
            flat: true
            visible: row.changed || row.error !== ""
            Accessible.name: qsTr("Reset %1 to the default").arg(row.label !== "" ? row.label : row.field)
            ToolTip.visible: hovered
            ToolTip.text: row.settings ? qsTr("Default: %1").arg(row.settings.defaultValue(row.field)) : ""
            onClicked: {
                for (const f of row.fields)
                    row.settings.resetField(f)
                row.reset()
            }
        }
    }
    ColumnLayout {
        id: wideSlot
        Layout.fillWidth: true
        visible: children.length > 0
    }
    Label {
        objectName: "error_" + row.field
        Layout.fillWidth: true
        visible: row.error !== ""
        text: row.error
        color: Theme.negativeText
        wrapMode: Text.Wrap
        Accessible.role: Accessible.AlertMessage
        Accessible.name: row.error
    }
    Label {
        objectName: "hint_" + row.field
        Layout.fillWidth: true
        visible: row.error === "" && row.hint !== ""
        text: row.hint
        wrapMode: Text.Wrap
        opacity: 0.6
        font.pixelSize: 11
    }
}
