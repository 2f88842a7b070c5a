// Strings of Qt's own Qt Quick file dialog (QtQuick.Dialogs' non-native
// FileDialog, shown where the desktop offers no file chooser) that Qt 6.4's
// Chinese catalogues (qtdeclarative_zh_CN/zh_TW.qm, qt6-translations-l10n)
// do not translate. Listed here so lupdate puts them in Burrow's catalogue
// under the dialog's own context ("FileDialog"), where the dialog's qsTr()
// finds them once Language installs Burrow's translator.
#include <QtGlobal>

namespace {
[[maybe_unused]] const char *const kQtQuickFileDialogStrings[] = {
    QT_TRANSLATE_NOOP("FileDialog", "File name"),
    QT_TRANSLATE_NOOP("FileDialog", "Filter"),
};
}
