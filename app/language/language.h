// The user interface language: the system's by default, or the one chosen in
// the settings (kept in QSettings "ui/language"). Translations are the
// compiled Qt Linguist files from i18n/, built into the app's resources.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTranslator>
#include <QVariantList>
#include <memory>
#include <vector>
#include <QtQml/qqmlregistration.h>

class QQmlEngine;
class QJSEngine;

/**
 * @brief The language the UI speaks; a QML singleton (`Language`).
 */
class Language : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    /// "" follows the system; otherwise a code such as "zh_CN".
    Q_PROPERTY(QString choice READ choice WRITE setChoice NOTIFY changed)
    /// The language in effect ("en", "zh_CN", "zh_TW"). A binding that shows
    /// a text C++ translated (a tr() behind a property or an invokable) reads
    /// it too, so it is evaluated again when the language changes.
    Q_PROPERTY(QString current READ current NOTIFY changed)
    /// [{code, name}] for the settings: "" (system) first, then each language in its own name.
    /// (The "System language" name is translated when read; QML shows its own qsTr.)
    Q_PROPERTY(QVariantList available READ available CONSTANT)

public:
    static Language *instance();
    static Language *create(QQmlEngine *, QJSEngine *);

    /// Installs the translator for the saved choice (call before loading QML).
    static void installSaved();
    /// The language code Burrow uses for a locale name ("zh_HK" -> "zh_TW", "de_DE" -> "en").
    /// Chinese in the traditional script, or from Taiwan, Hong Kong or Macau, reads zh_TW;
    /// other Chinese zh_CN; every other language English.
    static QString codeForLocale(const QString &localeName);

    /// The code for the system's UI language (LANGUAGE, LC_MESSAGES, LANG).
    static QString systemCode();
    /// The codes Burrow has translations for: "en", "zh_CN", "zh_TW".
    static QStringList codes();

    QString choice() const { return m_choice; }
    void setChoice(const QString &code);
    QString current() const { return m_current; }
    QVariantList available() const;

signals:
    void changed();

private:
    explicit Language(QObject *parent = nullptr);
    void apply();
    QString m_choice;
    QString m_current = QStringLiteral("en");
    std::unique_ptr<QTranslator> m_translator;
    std::vector<std::unique_ptr<QTranslator>> m_qtTranslators;   // qtbase, qtdeclarative
};
