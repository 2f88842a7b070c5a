// RemoteServers: Settings → Servers, the OpenAI-compatible servers the user
// added (vLLM, llama-server, Ollama's /v1, LM Studio, another Burrow), one
// row each, on the GUI thread. Each has a name, a base URL
// (RemoteEndpoints::normalized) and an optional API key, kept as the
// Hugging Face token is (AccessToken: the system keychain, else a file only
// the user can read, <config>/Burrow/server-<id>.key). The list is kept in
// the settings ("servers/list": never the key); what it holds is handed to
// RemoteEndpoints, the one list the remote backend may send to.
//
// Its models are listed with GET <base>/models (at start, when added, on
// refresh; 15 s at most, 4 MiB at most) and shown in the model library
// beside the local files (libraryEntries: marked remote, with the server's
// name); the last list is kept, so the library shows them before the server
// answers. Plain http:// to another computer is warned about once, when
// the server is added: add() refuses the first time and says why
// (warning), the same address added again is taken.
#pragma once

#include <QAbstractListModel>
#include <QPointer>
#include <QtQml/qqmlregistration.h>

#include "backend/remoteendpoints.h"
#include "librarymodel.h"

class AccessToken;
class QNetworkAccessManager;

class RemoteServers : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    // Why the last add() did not add ("" when it did): a refusal or the
    // warning about plain http.
    Q_PROPERTY(QString problem READ problem NOTIFY problemChanged)
    // The last add() stopped only to warn (adding the same address again takes it).
    Q_PROPERTY(bool warned READ warned NOTIFY problemChanged)

public:
    enum Role {
        NameRole = Qt::UserRole + 1,
        UrlRole,
        ModelsRole,          // QStringList: the server's model ids
        StatusRole,          // "2 models", "Listing models…", or why not
        HasKeyRole,
        KeyTextRole,         // where the key is kept, in words
        InsecureRole,        // plain http to another computer
    };
    Q_ENUM(Role)

    static constexpr int ListTimeoutMs = 15000;
    static constexpr qint64 MaxListBytes = 4 << 20;

    explicit RemoteServers(QObject *parent = nullptr);
    ~RemoteServers() override;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    QString problem() const { return m_problem; }
    bool warned() const { return m_warned; }

    // Adds a server; false (and problem()) when the address is refused, is
    // there already, or is plain http to another computer for the first time.
    Q_INVOKABLE bool add(const QString &name, const QString &url, const QString &apiKey);
    Q_INVOKABLE void remove(int row);
    // Lists the row's models again.
    Q_INVOKABLE void refresh(int row);
    // The row with this base URL (-1: none).
    Q_INVOKABLE int indexOf(const QString &url) const;

    // The models of every server, as model library rows.
    QList<LibraryEntry> libraryEntries() const;

Q_SIGNALS:
    void countChanged();
    void problemChanged();
    // The servers or their model lists changed (the library shows them).
    void modelsChanged();

private:
    struct Server {
        QString id;                       // names its key's slot
        QString name;
        QUrl url;                         // normalised
        bool hasKey = false;
        QString key;                      // once read (never stored here on disk)
        bool keyRead = false;
        QList<QPair<QString, int>> models;
        QString status;
        bool listing = false;
        QPointer<AccessToken> token;
    };

    void load();
    void save() const;
    void publish() const;                 // to RemoteEndpoints
    void setProblem(const QString &problem, bool warned = false);
    AccessToken *tokenFor(Server &server);
    // Reads the key (when there is one) and then lists the models.
    void list(const QString &id);
    void listWithKey(const QString &id);
    void listed(const QString &id, int status, int error, const QString &errorText, const QByteArray &body);
    int rowOf(const QString &id) const;

    QList<Server> m_servers;
    QString m_problem;
    bool m_warned = false;
    QString m_warnedUrl;                  // the address last warned about
    QNetworkAccessManager *m_network;
};
