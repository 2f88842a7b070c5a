#include "language.h"

#include "common/logging.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QQmlEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSet>
#include <QSettings>
#include <QWindow>

namespace {
const QString kSettingsKey = QStringLiteral("ui/language");
}

Language::Language(QObject *parent)
    : QObject(parent)
{
    m_choice = QSettings().value(kSettingsKey).toString();
}

Language *Language::instance()
{
    static Language *language = new Language(QCoreApplication::instance());
    return language;
}

Language *Language::create(QQmlEngine *, QJSEngine *)
{
    Language *language = instance();
    QQmlEngine::setObjectOwnership(language, QQmlEngine::CppOwnership);
    return language;
}

void Language::installSaved()
{
    instance()->apply();
}

QString Language::codeForLocale(const QString &localeName)
{
    const QLocale locale(localeName);
    if (locale.language() == QLocale::Chinese) {
        // QLocale fills in the likely script ("zh_HK" -> Hant, "zh_SG" -> Hans);
        // an explicit script ("zh_Hans_HK") wins over the territory.
        if (locale.script() == QLocale::TraditionalHanScript)
            return QStringLiteral("zh_TW");
        if (locale.script() == QLocale::SimplifiedHanScript)
            return QStringLiteral("zh_CN");
        const QLocale::Territory territory = locale.territory();
        if (territory == QLocale::Taiwan || territory == QLocale::HongKong || territory == QLocale::Macau)
            return QStringLiteral("zh_TW");
        return QStringLiteral("zh_CN");
    }
    return QStringLiteral("en");
}

QString Language::systemCode()
{
    // uiLanguages() honours LANGUAGE and LC_MESSAGES; name() only the number locale.
    const QStringList languages = QLocale::system().uiLanguages();
    return codeForLocale(languages.isEmpty() ? QLocale::system().name() : languages.first());
}

QStringList Language::codes()
{
    return {QStringLiteral("en"), QStringLiteral("zh_CN"), QStringLiteral("zh_TW")};
}

void Language::setChoice(const QString &code)
{
    if (code == m_choice)
        return;
    m_choice = code;
    QSettings().setValue(kSettingsKey, code);
    apply();
    // Re-evaluates every qsTr() binding in the running UI: the engine of
    // each window, once.
    QSet<QQmlEngine *> engines;
    for (QWindow *window : QGuiApplication::topLevelWindows()) {
        if (QQmlEngine *engine = qmlEngine(window))
            engines.insert(engine);
        // Qt hands LanguageChange down the item tree of each window; a
        // closed popup's items are out of it and would keep Qt's own words
        // (a dialog's Close button): they get it here.
        if (auto *quick = qobject_cast<QQuickWindow *>(window)) {
            const QList<QQuickItem *> items = quick->findChildren<QQuickItem *>();
            for (QQuickItem *item : items) {
                if (!item->parentItem() && item != quick->contentItem()) {
                    QEvent event(QEvent::LanguageChange);
                    QCoreApplication::sendEvent(item, &event);
                }
            }
        }
    }
    for (QQmlEngine *engine : std::as_const(engines))
        engine->retranslate();
}

QVariantList Language::available() const
{
    return {
        QVariantMap{{QStringLiteral("code"), QString()}, {QStringLiteral("name"), tr("System language")}},
        QVariantMap{{QStringLiteral("code"), QStringLiteral("en")}, {QStringLiteral("name"), QStringLiteral("English")}},
        QVariantMap{{QStringLiteral("code"), QStringLiteral("zh_CN")}, {QStringLiteral("name"), QStringLiteral("简体中文")}},
        QVariantMap{{QStringLiteral("code"), QStringLiteral("zh_TW")}, {QStringLiteral("name"), QStringLiteral("繁體中文")}},
    };
}

void Language::apply()
{
    // An unknown saved choice (a language since removed) follows the system.
    const QString code = codes().contains(m_choice) ? m_choice : systemCode();
    if (m_translator)
        QCoreApplication::removeTranslator(m_translator.get());
    for (const auto &qtTranslator : m_qtTranslators)
        QCoreApplication::removeTranslator(qtTranslator.get());
    m_translator.reset();
    m_qtTranslators.clear();
    // English is the source language, but its .qm still holds the plural
    // forms ("%n conversation(s)"), so it is loaded too.
    auto translator = std::make_unique<QTranslator>();
    // qt_add_translations puts the .qm files under :/i18n.
    if (translator->load(QStringLiteral(":/i18n/burrow_%1.qm").arg(code))) {
        QCoreApplication::installTranslator(translator.get());
        m_translator = std::move(translator);
    } else {
        qCWarning(lcApp) << "no translation for" << code;
    }
    if (code != QLatin1String("en")) {
        // Qt's own strings from the system's Qt translations (Debian:
        // qt6-translations-l10n): qtbase (dialog buttons: Close, Open,
        // Cancel) and qtdeclarative (Qt Quick's dialogs). What those lack
        // for Qt 6.4 is in Burrow's own catalogue (language/qtstrings.cpp).
        for (const QString &catalogue : {QStringLiteral("qtbase"), QStringLiteral("qtdeclarative")}) {
            auto qtTranslator = std::make_unique<QTranslator>();
            if (qtTranslator->load(QLocale(code), catalogue, QStringLiteral("_"),
                                   QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
                QCoreApplication::installTranslator(qtTranslator.get());
                m_qtTranslators.push_back(std::move(qtTranslator));
            } else {
                qCInfo(lcApp) << "no" << catalogue << "translation for" << code << "(qt6-translations-l10n)";
            }
        }
    }
    // Day names and dates follow the language chosen (the system's locale
    // when following the system).
    QLocale::setDefault(codes().contains(m_choice) ? QLocale(code) : QLocale::system());
    m_current = code;
    emit changed();
}
