import QtQuick

// The model library's list (ModelLibraryView): a row asks through it to
// open its model (the view decides whether Burrow can run it).
ListView {
    signal openRequested(int row)
}
