import QtQuick

// The servers of Settings → Servers (ServersDialog): a row asks through it
// to list its models again or to be removed.
ListView {
    signal refreshRequested(int row)
    signal removeRequested(int row)
}
