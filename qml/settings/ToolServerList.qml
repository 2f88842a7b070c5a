import QtQuick

// The tool servers of Settings → Tools (ToolsDialog): a row asks through it
// to be started again or removed.
ListView {
    signal refreshRequested(int row)
    signal removeRequested(int row)
}
