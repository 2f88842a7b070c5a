// Helpers for the app tests: the Burrow window on the real QML, files
// dropped on it as a user would, and waiting for the engine thread.
#pragma once

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QtQml/qqmlextensionplugin.h>

#include "test_support.h"
#include "common/appinfo.h"
#include "backend/enginebridge.h"
#include "chat/chatcontroller.h"
#include "storage/conversationstore.h"

namespace burrow::test {

// The main window, loaded from the Burrow module like main.cpp does.
struct AppWindow {
    QQmlApplicationEngine engine;
    QQuickWindow *window = nullptr;
    ChatController *chat = nullptr;

    // `keepData` false: the conversation database starts empty (each test
    // its own chats); true: the chats of an earlier window come back.
    bool open(bool keepData = false)
    {
        if (!keepData) {
            const QString db = ConversationStore::defaultDatabasePath();
            for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
                QFile::remove(db + suffix);
        }
        engine.load(AppInfo::mainQmlUrl());
        if (engine.rootObjects().size() != 1)
            return false;
        window = qobject_cast<QQuickWindow *>(engine.rootObjects().first());
        if (!window)
            return false;
        chat = window->property("chat").value<ChatController *>();
        if (!chat || !QTest::qWaitForWindowExposed(window))
            return false;
        window->requestActivate();
        return QTest::qWaitForWindowActive(window);
    }

    template <typename T = QQuickItem>
    T *find(const QString &objectName) const
    {
        return window->findChild<T *>(objectName);
    }
};

// Drags `path` over the window and drops it, through the window's event
// delivery (the DropArea in Main.qml handles it). Returns the overlay's text
// while the drag hovered.
inline QString dropFile(QQuickWindow *window, const QString &path)
{
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    const QPoint pos(window->width() / 2, window->height() / 2);
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(window, &enter);
    QDragMoveEvent move(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(window, &move);
    QString overlayText;
    if (auto *label = window->findChild<QQuickItem *>(QStringLiteral("dropOverlayText")))
        overlayText = label->property("text").toString();
    QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(window, &drop);
    return overlayText;
}

// The first item named `objectName` under `root` in the visual tree (view
// delegates are not QObject children of the window, so findChild misses
// them), or null.
inline QQuickItem *findItem(QQuickItem *root, const QString &objectName)
{
    if (!root)
        return nullptr;
    if (root->objectName() == objectName)
        return root;
    const QList<QQuickItem *> children = root->childItems();
    for (QQuickItem *child : children)
        if (QQuickItem *found = findItem(child, objectName))
            return found;
    return nullptr;
}

// Clicks an item in the window at its centre, once it is shown with a size
// and the layouts around it have settled: a click on a button that a state
// change has just shown or moved is otherwise lost when a polish moves it
// between the press and the release (seen under load).
inline void clickItem(QQuickWindow *window, QQuickItem *item)
{
    (void)QTest::qWaitFor([item] { return item->isVisible() && item->width() > 0 && item->height() > 0; }, 5000);
    QTest::qWait(200);
    const QPointF centre = item->mapToScene(QPointF(item->width() / 2, item->height() / 2));
    QTest::mouseClick(window, Qt::LeftButton, Qt::NoModifier, centre.toPoint());
}

// Makes the running test function fail on an error of the app's QML (a
// TypeError, a ReferenceError, a failed binding: a feature quietly broken
// while the window still shows). Call from init().
inline void failOnQmlErrors()
{
    QTest::failOnWarning(QRegularExpression(QStringLiteral("qrc:/Burrow/.*(Error|Cannot |is not |Unable to |Required property)")));
}

// The reference continuation for a model and prompt in ../shared.
inline QJsonObject referenceGeneration(const QString &name)
{
    QFile file(sharedPath(QStringLiteral("reference/generation/%1.json").arg(name)));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

} // namespace burrow::test
