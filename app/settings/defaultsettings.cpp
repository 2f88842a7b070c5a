#include "defaultsettings.h"

#include <QJsonDocument>
#include <QSettings>

#include "chatsettings.h"

DefaultSettings::DefaultSettings(QObject *parent)
    : DefaultSettings(QString(), parent)
{
}

DefaultSettings::DefaultSettings(const QString &settingsFile, QObject *parent)
    : QObject(parent)
    , m_file(settingsFile)
    , m_settings(new ChatSettings(this))
{
    load();
    connect(m_settings, &ChatSettings::changed, this, &DefaultSettings::save);
}

void DefaultSettings::load()
{
    const QVariant stored = m_file.isEmpty() ? QSettings().value(QLatin1String(SettingsKey))
                                             : QSettings(m_file, QSettings::IniFormat).value(QLatin1String(SettingsKey));
    const QJsonDocument doc = QJsonDocument::fromJson(stored.toString().toUtf8());
    if (!doc.isObject())
        return;  // nothing saved yet (or unreadable): the built-in values
    m_loading = true;
    m_settings->fromJson(doc.object());  // an invalid value keeps its built-in default
    m_loading = false;
}

void DefaultSettings::save() const
{
    if (m_loading)
        return;
    const QString json = QString::fromUtf8(QJsonDocument(m_settings->toJson()).toJson(QJsonDocument::Compact));
    if (m_file.isEmpty()) {
        QSettings().setValue(QLatin1String(SettingsKey), json);
    } else {
        QSettings s(m_file, QSettings::IniFormat);
        s.setValue(QLatin1String(SettingsKey), json);
    }
}

void DefaultSettings::takeFrom(const ChatSettings *chat)
{
    m_settings->copyFrom(chat);
}

void DefaultSettings::restoreBuiltIn()
{
    m_settings->resetAll();  // no `defaults` of its own: the built-in values
}
