#include "common/savefield.h"

#include <QMetaObject>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTimer>

namespace {

// A shown item under `root` (depth first) for which `match` holds, or null.
template <typename Match>
QQuickItem *findShown(QQuickItem *root, const Match &match)
{
    if (!root || !root->isVisible())
        return nullptr;
    if (match(root))
        return root;
    const QList<QQuickItem *> children = root->childItems();
    for (QQuickItem *child : children)
        if (QQuickItem *found = findShown(child, match))
            return found;
    return nullptr;
}

// Tries 50 ms apart while the dialog opens: up to 10 s on a loaded machine.
constexpr int kAttempts = 200;

// The shown file name field of Qt's dialog under `root`, or null.
QQuickItem *shownNameField(QQuickItem *root)
{
    return findShown(root, [](QQuickItem *i) { return i->objectName() == QLatin1String("fileNameTextField"); });
}

} // namespace

void SaveField::pressAccept()
{
    QQuickItem *button = findShown(m_footer, [this](QQuickItem *i) {
        return i->inherits("QQuickAbstractButton") && i->property("text").toString() == m_label;
    });
    if (button && button->isEnabled())
        QMetaObject::invokeMethod(button, "clicked");
}

// A platform dialog never shows a field: the tries run out.
void SaveField::prepareWhenShown(QQuickWindow *window, const QString &acceptLabel, int attempts)
{
    QQuickItem *field = shownNameField(window->contentItem());
    if (!field) {
        if (attempts > 0)
            QTimer::singleShot(50, window, [window, acceptLabel, attempts] {
                prepareWhenShown(window, acceptLabel, attempts - 1);
            });
        return;
    }
    // A person who already clicked into the field keeps what they did there.
    if (!field->hasActiveFocus()) {
        field->forceActiveFocus(Qt::PopupFocusReason);
        const QString text = field->property("text").toString();
        const qsizetype dot = text.lastIndexOf(QLatin1Char('.'));
        QMetaObject::invokeMethod(field, "select", Q_ARG(int, 0), Q_ARG(int, int(dot > 0 ? dot : text.size())));
    }
    if (field->findChild<SaveField *>(QString(), Qt::FindDirectChildrenOnly))
        return;   // its relay is there: the dialog keeps its items between openings
    // Queued: the field's editingFinished (which hands the typed name to the
    // dialog) runs first.
    auto *relay = new SaveField;
    relay->setParent(field);
    relay->m_footer = field->parentItem();
    relay->m_label = acceptLabel;
    QObject::connect(field, SIGNAL(accepted()), relay, SLOT(pressAccept()), Qt::QueuedConnection);
}

void SaveField::prepare(QQuickWindow *window, const QString &acceptLabel)
{
    if (window)
        QTimer::singleShot(0, window, [window, acceptLabel] { prepareWhenShown(window, acceptLabel, kAttempts); });
}
