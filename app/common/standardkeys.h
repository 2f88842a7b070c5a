// The platform's keys for the standard commands (Open, Quit, New, Find,
// Undo), for the Actions of the window (qml/common/AppActions.qml). QML's
// own StandardKey enum would do, but Qt 6.4's qmllint does not know it; these
// are typed properties it checks.
#pragma once

#include <QKeySequence>
#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

class QQmlEngine;
class QJSEngine;

/**
 * @brief The standard key sequences as text an Action's shortcut takes; a QML singleton (`StandardKeys`).
 */
class StandardKeys : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    Q_PROPERTY(QString open READ open CONSTANT)
    Q_PROPERTY(QString quit READ quit CONSTANT)
    Q_PROPERTY(QString newItem READ newItem CONSTANT)
    Q_PROPERTY(QString find READ find CONSTANT)
    Q_PROPERTY(QString undo READ undo CONSTANT)

public:
    static StandardKeys *create(QQmlEngine *, QJSEngine *) { return new StandardKeys; }

    /// The platform's first key sequence for `key` ("Ctrl+O"), "" when it has none.
    static QString first(QKeySequence::StandardKey key);

    QString open() const { return first(QKeySequence::Open); }
    QString quit() const { return first(QKeySequence::Quit); }
    QString newItem() const { return first(QKeySequence::New); }
    QString find() const { return first(QKeySequence::Find); }
    QString undo() const { return first(QKeySequence::Undo); }

private:
    StandardKeys() = default;
};
