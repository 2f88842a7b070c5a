// Theme: the few colours the system palette has no role for (a problem, a
// warning, a notice, a quiet bar), made from the palette so light and dark
// schemes both work; a QML singleton (`Theme`). Every other colour in the
// QML is a palette role; nothing else is written as a number.
// (C++, not a QML singleton file: Qt 6.4's compiled QML loops on a lookup of
// a QML singleton of its own module.)
#pragma once

#include <QColor>
#include <QObject>
#include <QtQml/qqmlregistration.h>

class Theme : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    // Text that reports a problem (a refused value, a failed reply).
    Q_PROPERTY(QColor negativeText READ negativeText NOTIFY changed)
    // A bar that warns (the banner across the window).
    Q_PROPERTY(QColor warningBackground READ warningBackground NOTIFY changed)
    Q_PROPERTY(QColor warningBorder READ warningBorder NOTIFY changed)
    // A bar that offers a choice (a chat written with another model).
    Q_PROPERTY(QColor noticeBackground READ noticeBackground NOTIFY changed)
    Q_PROPERTY(QColor noticeBorder READ noticeBorder NOTIFY changed)
    // A quiet bar (Undo after a delete).
    Q_PROPERTY(QColor quietBackground READ quietBackground NOTIFY changed)

public:
    explicit Theme(QObject *parent = nullptr);

    QColor negativeText() const;
    QColor warningBackground() const;
    QColor warningBorder() const;
    QColor noticeBackground() const;
    QColor noticeBorder() const;
    QColor quietBackground() const;

Q_SIGNALS:
    void changed();
};
