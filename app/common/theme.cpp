#include "theme.h"

#include <QGuiApplication>
#include <QPalette>

namespace {

// `over` laid on `base` with the given opacity.
QColor mix(const QColor &base, const QColor &over, double amount)
{
    return QColor::fromRgbF(float(base.redF() + (over.redF() - base.redF()) * amount),
                            float(base.greenF() + (over.greenF() - base.greenF()) * amount),
                            float(base.blueF() + (over.blueF() - base.blueF()) * amount));
}

QColor withAlpha(QColor c, double alpha)
{
    c.setAlphaF(float(alpha));
    return c;
}

QPalette palette()
{
    return QGuiApplication::palette();
}

// The hues of "bad" and "careful", mixed into the palette's own colours.
const QColor Red(0xd3, 0x2f, 0x2f);
const QColor Orange(0xe6, 0x7e, 0x22);

} // namespace

Theme::Theme(QObject *parent) : QObject(parent)
{
    if (auto *app = qobject_cast<QGuiApplication *>(QCoreApplication::instance()))
        connect(app, &QGuiApplication::paletteChanged, this, &Theme::changed);
}

QColor Theme::negativeText() const { return mix(palette().color(QPalette::Text), Red, 0.8); }
QColor Theme::warningBackground() const { return mix(palette().color(QPalette::Window), Orange, 0.2); }
QColor Theme::warningBorder() const { return mix(palette().color(QPalette::Window), Orange, 0.65); }
QColor Theme::noticeBackground() const { return withAlpha(palette().color(QPalette::Highlight), 0.15); }
QColor Theme::noticeBorder() const { return withAlpha(palette().color(QPalette::Highlight), 0.5); }
QColor Theme::quietBackground() const { return withAlpha(palette().color(QPalette::Mid), 0.2); }
