// The settings new chats start with, kept in the app's settings (QSettings).
#pragma once

#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

class ChatSettings;

/**
 * @brief Defaults for new chats ("Settings → New chats"), saved on every change.
 *
 * A new chat copies these values once (ChatSettings::copyFrom); changing the
 * defaults later does not change existing chats. Each chat's ChatSettings
 * uses `settings` as its `defaults`, so the panel can mark what differs.
 * Stored as one JSON value under the QSettings key "chat/defaults".
 */
class DefaultSettings : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    Q_PROPERTY(ChatSettings *settings READ settings CONSTANT)

public:
    /// Reads the defaults from QSettings (the app's organization/name), or
    /// from the ini file `settingsFile` when given (tests).
    explicit DefaultSettings(QObject *parent = nullptr);
    explicit DefaultSettings(const QString &settingsFile, QObject *parent = nullptr);

    ChatSettings *settings() const { return m_settings; }

    /// "Use for new chats": the defaults take every value of `chat`.
    Q_INVOKABLE void takeFrom(const ChatSettings *chat);
    /// Back to Burrow's built-in values.
    Q_INVOKABLE void restoreBuiltIn();

    static constexpr const char *SettingsKey = "chat/defaults";

private:
    void load();
    void save() const;

    QString m_file;
    ChatSettings *m_settings;
    bool m_loading = false;
};
