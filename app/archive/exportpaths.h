// Where an export goes and what it is called, whatever file chooser asked:
// the platform's (GTK, KDE, the portal) or Qt Quick's own (Qt 6.4's, whose
// save mode answers a typed name as a URL without the file: scheme). The
// export and import dialogs in Main.qml open in exportFolder() with
// defaultName() filled in, and hand their answer to savePath().
#pragma once

#include <QObject>
#include <QString>
#include <QUrl>
#include <QtQml/qqmlregistration.h>

class QQmlEngine;
class QJSEngine;

/**
 * @brief File names and folders for exporting conversations; a QML singleton (`ExportPaths`).
 */
class ExportPaths : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

public:
    static ExportPaths *create(QQmlEngine *, QJSEngine *);

    /// The local file a save dialog's answer names, ".zip" added unless the
    /// name already ends so; "" when the answer names no file. Accepts a
    /// file: URL, a URL without scheme holding an absolute path (Qt 6.4's
    /// Qt Quick dialog), and a bare name or relative path (taken inside
    /// `folder`). A path typed whole into a name field ("/dir//home/me/x"
    /// as the Qt 6.4 dialog glues it to its folder) is taken as typed, and
    /// "~/" stands for the home folder.
    Q_INVOKABLE static QString savePath(const QUrl &chosen, const QUrl &folder = QUrl());
    /// The name offered for an export: "<title>.zip" for one conversation
    /// (characters that file systems refuse replaced by "-", at most 80
    /// characters), else "Burrow conversations <yyyy-MM-dd>.zip".
    Q_INVOKABLE static QString defaultName(int count, const QString &title);
    /// Where the export and import dialogs open: the folder of the last
    /// export (Burrow's settings, "archive/folder"), else Documents, else home.
    Q_INVOKABLE static QUrl folder();
    /// The file `name` inside folder(), as the URL a dialog's selectedFile takes.
    Q_INVOKABLE static QUrl fileInFolder(const QString &name);
    /// Remembers the folder of `path` (an export or import just chosen) for folder().
    Q_INVOKABLE static void remember(const QString &path);

private:
    explicit ExportPaths(QObject *parent = nullptr) : QObject(parent) {}
};
