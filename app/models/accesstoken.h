// AccessToken: the optional Hugging Face access token (gated and private
// repositories need one), on the GUI thread. It is kept in the system
// keychain (QtKeychain: the Secret Service on Linux, the Keychain on macOS,
// the Credential Store on Windows) when Burrow was built with QtKeychain and
// a keychain service answers; otherwise in a file only the user can read
// (0600): <config folder>/Burrow/hf-token. Which of the two holds it is
// remembered in the settings ("downloads/tokenStore": "keychain" | "file"),
// so starting the app never touches the keychain; the token itself is read
// only when a request needs it, then kept in memory for the session.
// BURROW_TOKEN_STORE=file skips the keychain (the tests). The token is never
// logged and never given back to QML, only whether one is set and where.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <functional>
#include <QtQml/qqmlregistration.h>

class AccessToken : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("The access token belongs to the DownloadManager")
    Q_PROPERTY(bool isSet READ isSet NOTIFY changed)
    // Where it is kept, in words ("" when none is set).
    Q_PROPERTY(QString storageText READ storageText NOTIFY changed)
    // A keychain job runs.
    Q_PROPERTY(bool busy READ isBusy NOTIFY busyChanged)
    // Why the last save or read failed ("" when it did not).
    Q_PROPERTY(QString error READ error NOTIFY errorChanged)

public:
    enum class Store { None, Keychain, File };

    // Where one secret is kept: its keychain entry, its fallback file's
    // name in <config folder>/Burrow/, the settings key that remembers which.
    struct Slot {
        QString keychainKey;
        QString fileName;
        QString settingsKey;
    };
    // The Hugging Face token.
    static Slot hubSlot();

    explicit AccessToken(QObject *parent = nullptr) : AccessToken(hubSlot(), parent) {}
    // Another secret kept the same way (a server's API key, RemoteServers).
    AccessToken(const Slot &slot, QObject *parent);

    bool isSet() const { return m_store != Store::None; }
    Store store() const { return m_store; }
    QString storageText() const;
    bool isBusy() const { return m_busy; }
    QString error() const { return m_error; }

    // Where the file fallback lives (the hub token's; filePathOf: this one's).
    static QString filePath();
    QString filePathOf() const;
    // Whether the keychain is tried at all (built with QtKeychain and not
    // switched off by BURROW_TOKEN_STORE=file).
    static bool keychainEnabled();
    // "" when `token` may be saved, else why not (empty, spaces, control
    // characters, longer than 512 characters).
    static QString validate(const QString &token);

    // Saves `token` (trimmed), replacing any other. False (and error()) when
    // it is refused; the keychain answers later, the file at once.
    Q_INVOKABLE bool save(const QString &token);
    // Forgets the token, wherever it is kept.
    Q_INVOKABLE void clear();

    // Calls `done` with the token ("" when none is set or it cannot be
    // read) on this thread, once; `context` going away cancels the call.
    void fetch(QObject *context, std::function<void(const QString &)> done);

Q_SIGNALS:
    void changed();
    void busyChanged();
    void errorChanged();

private:
    void setBusy(bool busy);
    void setError(const QString &error);
    void setStore(Store store);
    bool writeFile(const QString &token, QString *why);
    void readFinished(const QString &token);

    Slot m_slot;
    Store m_store = Store::None;
    QString m_cached;        // the token once read or saved this session
    bool m_haveCached = false;
    bool m_busy = false;
    bool m_reading = false;
    QString m_error;
    struct Waiter {
        QPointer<QObject> context;
        std::function<void(const QString &)> done;
    };
    QList<Waiter> m_waiters;
};
