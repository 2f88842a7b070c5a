#include "remoteservers.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSettings>
#include <QTimer>
#include <QUuid>

#include "accesstoken.h"
#include "burrow/library.h"
#include "common/logging.h"

namespace {
const QString SettingsKey = QStringLiteral("servers/list");
constexpr int MaxServers = 64;
constexpr int MaxModels = 2000;

// The context length a /models entry reports, under the names servers use
// (vLLM: max_model_len; LM Studio, OpenRouter: context_length; llama-server:
// meta.n_ctx_train; others: n_ctx). 0 when none.
int contextOf(const QJsonObject &model)
{
    for (const char *key : {"max_model_len", "context_length", "context_window", "n_ctx"}) {
        const QJsonValue v = model.value(QLatin1String(key));
        if (v.isDouble() && v.toDouble() > 0)
            return int(qMin(v.toDouble(), 1e9));
    }
    const QJsonValue meta = model.value(QLatin1String("meta")).toObject().value(QLatin1String("n_ctx_train"));
    return meta.isDouble() && meta.toDouble() > 0 ? int(qMin(meta.toDouble(), 1e9)) : 0;
}
} // namespace

RemoteServers::RemoteServers(QObject *parent) : QAbstractListModel(parent), m_network(new QNetworkAccessManager(this))
{
    m_network->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    load();
    publish();
    for (const Server &s : std::as_const(m_servers))
        list(s.id);
}

RemoteServers::~RemoteServers() = default;

int RemoteServers::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_servers.size());
}

QHash<int, QByteArray> RemoteServers::roleNames() const
{
    return {{NameRole, "name"},       {UrlRole, "url"},         {ModelsRole, "models"},     {StatusRole, "status"},
            {HasKeyRole, "hasKey"},   {KeyTextRole, "keyText"}, {InsecureRole, "insecure"}};
}

QVariant RemoteServers::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Server &s = m_servers.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case NameRole: return s.name;
    case UrlRole: return s.url.toString();
    case ModelsRole: {
        QStringList ids;
        for (const auto &m : s.models)
            ids << m.first;
        return ids;
    }
    case StatusRole: return s.status;
    case HasKeyRole: return s.hasKey;
    case KeyTextRole:
        if (!s.hasKey)
            return tr("No API key.");
        return s.token && s.token->store() == AccessToken::Store::File
                   ? tr("The API key is kept in %1, which only you can read.").arg(s.token->filePathOf())
                   : tr("The API key is kept in the system keychain.");
    case InsecureRole: return RemoteEndpoints::isInsecure(s.url);
    default: return {};
    }
}

void RemoteServers::load()
{
    const QJsonArray list = QJsonDocument::fromJson(QSettings().value(SettingsKey).toByteArray()).array();
    for (const QJsonValue &v : list) {
        const QJsonObject o = v.toObject();
        Server s;
        s.id = o.value(QLatin1String("id")).toString();
        s.name = o.value(QLatin1String("name")).toString();
        s.url = RemoteEndpoints::normalized(QUrl(o.value(QLatin1String("url")).toString()));
        s.hasKey = o.value(QLatin1String("hasKey")).toBool();
        for (const QJsonValue &m : o.value(QLatin1String("models")).toArray())
            s.models.append({m.toObject().value(QLatin1String("id")).toString(),
                             m.toObject().value(QLatin1String("context")).toInt()});
        if (s.id.isEmpty() || !s.url.isValid() || rowOf(s.id) >= 0 || m_servers.size() >= MaxServers)
            continue;
        s.status = s.models.isEmpty() ? QString() : tr("%n model(s) (listed before)", nullptr, int(s.models.size()));
        m_servers.append(s);
    }
}

void RemoteServers::save() const
{
    QJsonArray list;
    for (const Server &s : m_servers) {
        QJsonArray models;
        for (const auto &m : s.models)
            models.append(QJsonObject{{QStringLiteral("id"), m.first}, {QStringLiteral("context"), m.second}});
        list.append(QJsonObject{{QStringLiteral("id"), s.id},
                                {QStringLiteral("name"), s.name},
                                {QStringLiteral("url"), s.url.toString()},
                                {QStringLiteral("hasKey"), s.hasKey},
                                {QStringLiteral("models"), models}});
    }
    QSettings().setValue(SettingsKey, QJsonDocument(list).toJson(QJsonDocument::Compact));
}

void RemoteServers::publish() const
{
    QList<RemoteEndpoint> endpoints;
    for (const Server &s : m_servers)
        endpoints.append({s.name, s.url, s.key, s.models});
    RemoteEndpoints::instance().set(endpoints);
}

void RemoteServers::setProblem(const QString &problem, bool warned)
{
    if (problem == m_problem && warned == m_warned)
        return;
    m_problem = problem;
    m_warned = warned;
    Q_EMIT problemChanged();
}

int RemoteServers::rowOf(const QString &id) const
{
    for (int i = 0; i < m_servers.size(); ++i)
        if (m_servers.at(i).id == id)
            return i;
    return -1;
}

int RemoteServers::indexOf(const QString &url) const
{
    const QUrl wanted = RemoteEndpoints::normalized(QUrl::fromUserInput(url.trimmed()));
    for (int i = 0; i < m_servers.size(); ++i)
        if (m_servers.at(i).url == wanted)
            return i;
    return -1;
}

AccessToken *RemoteServers::tokenFor(Server &server)
{
    if (!server.token)
        server.token = new AccessToken({QStringLiteral("server-") + server.id, QStringLiteral("server-%1.key").arg(server.id),
                                        QStringLiteral("servers/keyStore-") + server.id},
                                       this);
    return server.token;
}

bool RemoteServers::add(const QString &name, const QString &url, const QString &apiKey)
{
    const QString typed = url.trimmed();
    const QUrl parsed(typed, QUrl::StrictMode);
    if (!typed.startsWith(QLatin1String("http://"), Qt::CaseInsensitive)
        && !typed.startsWith(QLatin1String("https://"), Qt::CaseInsensitive)) {
        setProblem(tr("Type the server's address with http:// or https://, e.g. http://192.168.1.20:8000/v1."));
        return false;
    }
    const QUrl normalized = RemoteEndpoints::normalized(parsed);
    if (!normalized.isValid()) {
        setProblem(tr("“%1” is not a server address.").arg(typed));
        return false;
    }
    if (indexOf(normalized.toString()) >= 0) {
        setProblem(tr("%1 is in the list already.").arg(normalized.toString()));
        return false;
    }
    const QString key = apiKey.trimmed();
    if (!key.isEmpty() && !AccessToken::validate(key).isEmpty()) {
        setProblem(AccessToken::validate(key));
        return false;
    }
    if (m_servers.size() >= MaxServers) {
        setProblem(tr("Burrow keeps at most %1 servers; remove one first.").arg(MaxServers));
        return false;
    }
    if (RemoteEndpoints::isInsecure(normalized) && m_warnedUrl != normalized.toString()) {
        m_warnedUrl = normalized.toString();
        setProblem((key.isEmpty() ? tr("%1 is another computer reached by plain http: your chats would cross the "
                                       "network unencrypted. Use https:// if the server has it, or press Add again "
                                       "to add it anyway.")
                                  : tr("%1 is another computer reached by plain http: your chats and the API key "
                                       "would cross the network unencrypted. Use https:// if the server has it, or "
                                       "press Add again to add it anyway."))
                       .arg(normalized.host()),
                   true);
        return false;
    }
    Server s;
    s.id = QUuid::createUuid().toString(QUuid::Id128).left(12);
    s.name = name.trimmed().isEmpty() ? normalized.host() : name.trimmed().left(100);
    s.url = normalized;
    s.hasKey = !key.isEmpty();
    s.key = key;
    s.keyRead = true;
    const int row = int(m_servers.size());
    beginInsertRows(QModelIndex(), row, row);
    m_servers.append(s);
    endInsertRows();
    if (s.hasKey)
        tokenFor(m_servers.last())->save(key);
    m_warnedUrl.clear();
    setProblem(QString());
    save();
    publish();
    Q_EMIT countChanged();
    Q_EMIT modelsChanged();
    list(s.id);
    return true;
}

void RemoteServers::remove(int row)
{
    if (row < 0 || row >= m_servers.size())
        return;
    if (m_servers[row].hasKey)
        tokenFor(m_servers[row])->clear();
    beginRemoveRows(QModelIndex(), row, row);
    const Server gone = m_servers.takeAt(row);
    endRemoveRows();
    if (gone.token)
        gone.token->deleteLater();
    save();
    publish();
    Q_EMIT countChanged();
    Q_EMIT modelsChanged();
}

void RemoteServers::refresh(int row)
{
    if (row >= 0 && row < m_servers.size())
        list(m_servers.at(row).id);
}

void RemoteServers::list(const QString &id)
{
    const int row = rowOf(id);
    if (row < 0 || m_servers[row].listing)
        return;
    Server &s = m_servers[row];
    s.listing = true;
    s.status = tr("Listing models…");
    Q_EMIT dataChanged(index(row), index(row), {StatusRole});
    if (!s.hasKey || s.keyRead) {
        listWithKey(id);
        return;
    }
    tokenFor(s)->fetch(this, [this, id](const QString &key) {
        const int r = rowOf(id);
        if (r < 0)
            return;
        m_servers[r].key = key;
        m_servers[r].keyRead = true;
        publish();
        listWithKey(id);
    });
}

void RemoteServers::listWithKey(const QString &id)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    const Server &s = m_servers.at(row);
    QNetworkRequest request(RemoteEndpoints::endpointUrl(s.url, QStringLiteral("models")));
    request.setTransferTimeout(ListTimeoutMs);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    if (!s.key.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + s.key.toUtf8());
    QNetworkReply *reply = m_network->get(request);
    // A whole-answer bound too (the transfer timeout only bounds silence):
    // a server that drips its list is given up after ListTimeoutMs.
    QTimer::singleShot(ListTimeoutMs, reply, [reply] { reply->abort(); });
    auto body = std::make_shared<QByteArray>();
    connect(reply, &QNetworkReply::readyRead, this, [reply, body] {
        if (body->size() + reply->bytesAvailable() > MaxListBytes) {
            reply->abort();
            return;
        }
        *body += reply->readAll();
    });
    connect(reply, &QNetworkReply::finished, this, [this, id, reply, body] {
        reply->deleteLater();
        if (body->size() + reply->bytesAvailable() <= MaxListBytes)
            *body += reply->readAll();
        listed(id, reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), int(reply->error()),
               reply->errorString(), *body);
    });
}

void RemoteServers::listed(const QString &id, int status, int error, const QString &errorText, const QByteArray &body)
{
    const int row = rowOf(id);
    if (row < 0)
        return;
    Server &s = m_servers[row];
    s.listing = false;
    if (status == 401 || status == 403) {
        s.status = tr("The server refused the API key (HTTP %1).").arg(status);
    } else if (status == 0) {
        s.status = error == QNetworkReply::OperationCanceledError
                       ? tr("No answer within %1 s, or a list over 4 MiB.").arg(ListTimeoutMs / 1000)
                       : tr("Could not reach the server: %1").arg(errorText);
    } else if (status != 200) {
        s.status = tr("The server answered HTTP %1 to GET /models; is the address its /v1?").arg(status);
    } else {
        const QJsonArray data = QJsonDocument::fromJson(body).object().value(QLatin1String("data")).toArray();
        QList<QPair<QString, int>> models;
        for (const QJsonValue &v : data) {
            const QString modelId = v.toObject().value(QLatin1String("id")).toString();
            if (!modelId.isEmpty() && modelId.size() <= 512 && models.size() < MaxModels)
                models.append({modelId, contextOf(v.toObject())});
        }
        s.models = models;
        s.status = tr("%n model(s)", nullptr, int(models.size()));
        save();
        publish();
        Q_EMIT modelsChanged();
    }
    if (status != 200)
        qCInfo(lcApp) << "listing the models of" << s.url << "failed:" << s.status;
    Q_EMIT dataChanged(index(row), index(row), {StatusRole, ModelsRole});
}

QList<LibraryEntry> RemoteServers::libraryEntries() const
{
    QList<LibraryEntry> entries;
    for (const Server &s : m_servers) {
        for (const auto &m : s.models) {
            LibraryEntry e;
            e.path = RemoteModelRef{s.url, m.first}.locator();
            e.realPath = e.path;
            e.name = m.first;
            e.modelName = m.first;
            e.source = QStringLiteral("remote");
            e.placePath = s.name;
            e.contextLength = m.second;
            e.runnable = int(burrow::library::Runnable::RUNNABLE_YES);
            e.card.path = e.path;
            e.card.name = m.first;
            e.card.remote = true;
            e.card.remoteServer = s.name;
            entries.append(e);
        }
    }
    return entries;
}
