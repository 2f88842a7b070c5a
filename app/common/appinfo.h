// Where the app's QML lives, shared by main.cpp and the tests.
#pragma once

#include <QUrl>

namespace AppInfo {
// The Burrow module's Main.qml. (Qt 6.4 has no loadFromModule(); the module's
// files sit under the resource prefix /Burrow.)
inline QUrl mainQmlUrl() { return QUrl(QStringLiteral("qrc:/Burrow/Main.qml")); }
}
