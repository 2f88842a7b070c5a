// The name field of Qt Quick's own save dialog (Qt 6.4), as a person
// expects it: focused when the dialog opens with the name (not its
// extension) selected, and Enter pressing the accept button. Qt's dialog
// leaves the focus on its file list and ignores Enter in the field. The
// platform's dialogs (GTK, KDE, the portal) do this themselves; there is no
// such field in the window then and prepare() does nothing.
#pragma once

#include <QObject>
#include <QQuickItem>
#include <QQuickWindow>
#include <QString>
#include <QtQml/qqmlregistration.h>

class QQmlEngine;
class QJSEngine;

/**
 * @brief Focus and Enter for Qt Quick's save dialog; a QML singleton (`SaveField`).
 */
class SaveField : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON

public:
    static SaveField *create(QQmlEngine *, QJSEngine *) { return new SaveField; }

    /// Once the dialog has opened in `window` (call after open(); the work
    /// is queued to the event loop): focuses its shown file name field,
    /// selects the name up to its last '.', and makes Enter in the field
    /// press the button labelled `acceptLabel` (after the field's own
    /// editing-finished handling, so the typed name is the one saved).
    Q_INVOKABLE static void prepare(QQuickWindow *window, const QString &acceptLabel);

private Q_SLOTS:
    // A relay's slot: presses the accept button beside the field it is connected to.
    void pressAccept();

private:
    SaveField() = default;
    // Prepares the field once it is shown: the popup may still be opening,
    // so up to `attempts` more tries 50 ms apart (10 s in all).
    static void prepareWhenShown(QQuickWindow *window, const QString &acceptLabel, int attempts);

    // Of a relay (a child of the field): the dialog's footer, the field's
    // parent and the buttons' ancestor, and the accept button's label.
    QQuickItem *m_footer = nullptr;
    QString m_label;
};
