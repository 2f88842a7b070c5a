// HubClient: the GGUF files of one Hugging Face repository, listed on the
// user's request (the protocol: hubprotocol.h). GUI thread, asynchronous
// (QNetworkAccessManager); one listing at a time, a new one replaces the
// last. Pages are followed on the hub's own origin only, with bounded sizes
// (HubProtocol::MaxListing*). The token, when one is set, goes to the hub.
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QUrl>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

#include "hubprotocol.h"

class AccessToken;
class QNetworkAccessManager;
class QNetworkReply;

class HubClient : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("The hub client belongs to the DownloadManager")
    Q_PROPERTY(bool busy READ isBusy NOTIFY busyChanged)
    // Why the last listing failed, or why the text is no repository ("" otherwise).
    Q_PROPERTY(QString error READ error NOTIFY listingChanged)
    // The repository listed ("org/repo") and the revision.
    Q_PROPERTY(QString repository READ repository NOTIFY listingChanged)
    Q_PROPERTY(QString revision READ revision NOTIFY listingChanged)
    // The file a pasted link named ("" when none): the dialog selects it.
    Q_PROPERTY(QString suggestedFile READ suggestedFile NOTIFY listingChanged)
    // The GGUF files, one map each: path, name, folder, size, sizeText,
    // checksum, quantization, hint, parts (a split model: how many files),
    // downloadable, note (why not, or "").
    Q_PROPERTY(QVariantList files READ files NOTIFY listingChanged)
    // The repository's page on the hub ("" before a listing).
    Q_PROPERTY(QString pageUrl READ pageUrl NOTIFY listingChanged)

public:
    explicit HubClient(AccessToken *token, QObject *parent = nullptr);
    ~HubClient() override;

    bool isBusy() const { return m_reply != nullptr || m_waitingForToken; }
    QString error() const { return m_error; }
    QString repository() const { return m_repo; }
    QString revision() const { return m_revision; }
    QString suggestedFile() const { return m_suggested; }
    QVariantList files() const;
    QList<HubFile> hubFiles() const { return m_files; }
    QString pageUrl() const;

    // Lists the repository `text` names (an id or a link).
    Q_INVOKABLE void list(const QString &text);
    Q_INVOKABLE void cancel();

    // The GGUF files of tree entries (one page of the tree API's JSON):
    // appended to `files`; false and `error` when the JSON is not such a
    // list. Split models are gathered by groupSplits().
    static bool parseTreePage(const QByteArray &json, QList<HubFile> *files, QString *error);
    // One entry per split model (the first part's path, the sizes summed,
    // `parts` set); single files unchanged.
    static QList<HubFile> groupSplits(const QList<HubFile> &files);

Q_SIGNALS:
    void busyChanged();
    void listingChanged();

private:
    void request(const QUrl &url, const QString &token);
    void onFinished(QNetworkReply *reply, const QString &token);
    void fail(const QString &message);

    AccessToken *m_token;
    QNetworkAccessManager *m_network;
    QPointer<QNetworkReply> m_reply;
    bool m_waitingForToken = false;
    quint64 m_ticket = 0;
    int m_pages = 0;
    QUrl m_endpoint;
    QString m_repo;
    QString m_revision;
    QString m_suggested;
    QString m_error;
    QList<HubFile> m_files;     // shown
    QList<HubFile> m_pending;   // pages read so far
};
