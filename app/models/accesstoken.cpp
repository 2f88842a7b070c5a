#include "accesstoken.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

#ifdef BURROW_HAVE_QTKEYCHAIN
#include <qt6keychain/keychain.h>
#endif

#include "common/logging.h"

namespace {
const char *const KeychainService = "Burrow";
constexpr qint64 MaxTokenFileBytes = 4096;

QString configFile(const QString &name)
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QStringLiteral("/Burrow/") + name;
}
} // namespace

AccessToken::Slot AccessToken::hubSlot()
{
    return {QStringLiteral("huggingface-token"), QStringLiteral("hf-token"), QStringLiteral("downloads/tokenStore")};
}

AccessToken::AccessToken(const Slot &slot, QObject *parent) : QObject(parent), m_slot(slot)
{
    const QString kept = QSettings().value(m_slot.settingsKey).toString();
    const bool fileThere = QFileInfo::exists(filePathOf());
    if (kept == u"keychain")
        m_store = Store::Keychain;
    else if (fileThere)
        m_store = Store::File;
}

QString AccessToken::filePath()
{
    return configFile(hubSlot().fileName);
}

QString AccessToken::filePathOf() const
{
    return configFile(m_slot.fileName);
}

bool AccessToken::keychainEnabled()
{
#ifdef BURROW_HAVE_QTKEYCHAIN
    return qgetenv("BURROW_TOKEN_STORE") != "file";
#else
    return false;
#endif
}

QString AccessToken::storageText() const
{
    switch (m_store) {
    case Store::Keychain:
        return tr("A token is saved in the system keychain.");
    case Store::File:
        return tr("A token is saved in %1, which only you can read (no keychain service was available).")
            .arg(QDir::toNativeSeparators(filePathOf()));
    case Store::None:
        break;
    }
    return QString();
}

QString AccessToken::validate(const QString &token)
{
    const QString t = token.trimmed();
    if (t.isEmpty())
        return tr("Paste a token first.");
    if (t.size() > 512)
        return tr("This is too long for an access token.");
    for (const QChar c : t)
        if (c.unicode() <= 0x20 || c.unicode() >= 0x7f)
            return tr("An access token has no spaces or special characters; paste it again.");
    return QString();
}

void AccessToken::setBusy(bool busy)
{
    if (m_busy == busy)
        return;
    m_busy = busy;
    Q_EMIT busyChanged();
}

void AccessToken::setError(const QString &error)
{
    if (m_error == error)
        return;
    m_error = error;
    Q_EMIT errorChanged();
}

void AccessToken::setStore(Store store)
{
    if (store == Store::None)
        QSettings().remove(m_slot.settingsKey);
    else
        QSettings().setValue(m_slot.settingsKey,
                             store == Store::Keychain ? QStringLiteral("keychain") : QStringLiteral("file"));
    if (m_store == store)
        return;
    m_store = store;
    Q_EMIT changed();
}

bool AccessToken::writeFile(const QString &token, QString *why)
{
    const QString path = filePathOf();
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        *why = tr("cannot create the folder %1").arg(QFileInfo(path).absolutePath());
        return false;
    }
    // Created anew with owner-only permissions, never widened after the
    // token is in it.
    QFile::remove(path);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly, QFileDevice::ReadOwner | QFileDevice::WriteOwner)) {
        *why = file.errorString();
        return false;
    }
    const QByteArray data = token.toUtf8() + '\n';
    if (file.write(data) != data.size() || !file.flush()) {
        *why = file.errorString();
        file.close();
        QFile::remove(path);
        return false;
    }
    return true;
}

bool AccessToken::save(const QString &token)
{
    const QString why = validate(token);
    if (!why.isEmpty()) {
        setError(why);
        return false;
    }
    const QString t = token.trimmed();
    setError(QString());
    m_cached = t;
    m_haveCached = true;
    auto toFile = [this, t] {
        QString reason;
        if (writeFile(t, &reason)) {
            setStore(Store::File);
        } else {
            // Kept for this session only.
            setError(tr("The token could not be saved (%1); it is used until Burrow quits.").arg(reason));
            setStore(Store::None);
        }
    };
#ifdef BURROW_HAVE_QTKEYCHAIN
    if (keychainEnabled()) {
        auto *job = new QKeychain::WritePasswordJob(QLatin1String(KeychainService), this);
        job->setAutoDelete(true);
        job->setKey(m_slot.keychainKey);
        job->setTextData(t);
        setBusy(true);
        connect(job, &QKeychain::Job::finished, this, [this, toFile](QKeychain::Job *done) {
            setBusy(false);
            if (done->error() == QKeychain::NoError) {
                QFile::remove(filePathOf());
                setStore(Store::Keychain);
                return;
            }
            qCInfo(lcApp) << "no keychain for the access token (" << done->errorString() << "); using" << filePathOf();
            toFile();
        });
        job->start();
        return true;
    }
#endif
    toFile();
    return error().isEmpty();
}

void AccessToken::clear()
{
    m_cached.clear();
    m_haveCached = true;
#ifdef BURROW_HAVE_QTKEYCHAIN
    if (m_store == Store::Keychain && keychainEnabled()) {
        auto *job = new QKeychain::DeletePasswordJob(QLatin1String(KeychainService), this);
        job->setAutoDelete(true);
        job->setKey(m_slot.keychainKey);
        connect(job, &QKeychain::Job::finished, this, [](QKeychain::Job *done) {
            if (done->error() != QKeychain::NoError && done->error() != QKeychain::EntryNotFound)
                qCWarning(lcApp) << "could not remove the access token from the keychain:" << done->errorString();
        });
        job->start();
    }
#endif
    QFile::remove(filePathOf());
    setError(QString());
    setStore(Store::None);
}

void AccessToken::fetch(QObject *context, std::function<void(const QString &)> done)
{
    if (m_haveCached || m_store == Store::None) {
        done(m_haveCached ? m_cached : QString());
        return;
    }
    m_waiters.append({QPointer<QObject>(context), std::move(done)});
    if (m_reading)
        return;
    m_reading = true;
    if (m_store == Store::File) {
        QFile file(filePathOf());
        QString token;
        if (file.open(QIODevice::ReadOnly))
            token = QString::fromUtf8(file.read(MaxTokenFileBytes)).trimmed();
        if (!validate(token).isEmpty()) {
            setError(tr("The saved access token could not be read; save it again."));
            token.clear();
        }
        readFinished(token);
        return;
    }
#ifdef BURROW_HAVE_QTKEYCHAIN
    if (keychainEnabled()) {
        auto *job = new QKeychain::ReadPasswordJob(QLatin1String(KeychainService), this);
        job->setAutoDelete(true);
        job->setKey(m_slot.keychainKey);
        setBusy(true);
        connect(job, &QKeychain::Job::finished, this, [this](QKeychain::Job *finished) {
            setBusy(false);
            auto *read = static_cast<QKeychain::ReadPasswordJob *>(finished);
            if (read->error() == QKeychain::NoError) {
                readFinished(read->textData().trimmed());
                return;
            }
            setError(tr("Could not read the access token from the system keychain: %1").arg(read->errorString()));
            m_reading = false;
            const QList<Waiter> waiters = std::exchange(m_waiters, {});
            for (const Waiter &w : waiters)
                if (w.context)
                    w.done(QString());
        });
        job->start();
        return;
    }
#endif
    setError(tr("The token is kept in the system keychain, which this build of Burrow cannot read; save it again."));
    readFinished(QString());
}

void AccessToken::readFinished(const QString &token)
{
    m_reading = false;
    m_cached = token;
    m_haveCached = true;
    const QList<Waiter> waiters = std::exchange(m_waiters, {});
    for (const Waiter &w : waiters)
        if (w.context)
            w.done(token);
}
