#include "toolservers.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QSettings>
#include <QTimer>

#include "backend/remoteendpoints.h"

ToolServers::ToolServers(QObject *parent) : QAbstractListModel(parent)
{
    load();
}

ToolServers::~ToolServers() = default;

int ToolServers::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_clients.size());
}

QHash<int, QByteArray> ToolServers::roleNames() const
{
    return {{NameRole, "name"},     {TargetRole, "target"}, {IsUrlRole, "isUrl"},
            {StatusRole, "status"}, {FailedRole, "failed"}, {ToolsRole, "tools"}};
}

QVariant ToolServers::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const McpClient *c = m_clients.at(index.row());
    const McpServerSpec &s = c->spec();
    switch (role) {
    case Qt::DisplayRole:
    case NameRole: return s.name;
    case TargetRole: {
        if (s.isHttp())
            return s.url.toString();
        QStringList words{s.command};
        for (const QString &a : s.args)
            words << (a.contains(QLatin1Char(' ')) ? QLatin1Char('"') + a + QLatin1Char('"') : a);
        return words.join(QLatin1Char(' '));
    }
    case IsUrlRole: return s.isHttp();
    case StatusRole:
        switch (c->state()) {
        case McpClient::State::Starting: return tr("Starting…");
        case McpClient::State::Ready: return tr("%n tool(s)", nullptr, int(c->tools().size()));
        case McpClient::State::Failed: return c->error();
        case McpClient::State::Stopped: return tr("Stopped");
        }
        return {};
    case FailedRole: return c->state() == McpClient::State::Failed;
    case ToolsRole: {
        QStringList tools;
        for (const McpTool &t : c->tools())
            tools << (t.description.isEmpty() ? t.name : t.name + QStringLiteral(" — ") + t.description.section(QLatin1Char('\n'), 0, 0));
        return tools;
    }
    default: return {};
    }
}

int ToolServers::toolCount() const
{
    return int(toolsJson().size());
}

bool ToolServers::addCommand(const QString &name, const QString &commandLine, const QString &environment)
{
    QStringList words = QProcess::splitCommand(commandLine.trimmed());
    if (words.isEmpty()) {
        setProblem(tr("Type the command that starts the server, e.g. npx -y @modelcontextprotocol/server-everything."));
        return false;
    }
    McpServerSpec spec;
    spec.command = words.takeFirst();
    spec.args = words;
    spec.name = name.trimmed().isEmpty() ? QFileInfo(spec.command).fileName() : name.trimmed();
    const QStringList lines = environment.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString &line : lines) {
        const QString l = line.trimmed();
        const qsizetype eq = l.indexOf(QLatin1Char('='));
        if (l.isEmpty())
            continue;
        if (eq <= 0) {
            setProblem(tr("Each line of the environment is NAME=value; “%1” is not.").arg(l));
            return false;
        }
        spec.env.insert(l.left(eq), l.mid(eq + 1));
    }
    return add(spec);
}

bool ToolServers::addUrl(const QString &name, const QString &url)
{
    const QString typed = url.trimmed();
    McpServerSpec spec;
    QString error;
    const QString n = name.trimmed().isEmpty() ? QUrl(typed).host() : name.trimmed();
    if (!McpServerSpec::fromJson(n, QJsonObject{{QStringLiteral("url"), typed}}, &spec, &error)) {
        setProblem(tr("Type the server's address with http:// or https://, e.g. http://127.0.0.1:3001/mcp."));
        return false;
    }
    // Plain http to another computer: the tools' arguments and results would
    // cross the network unencrypted. Said once; the same address again is taken.
    if (RemoteEndpoints::isInsecure(spec.url) && m_warnedUrl != spec.url.toString()) {
        m_warnedUrl = spec.url.toString();
        setProblem(tr("%1 is another computer reached by plain http: the tools' arguments and results would cross "
                      "the network unencrypted. Use https:// if the server has it, or press Add again to add it anyway.")
                       .arg(spec.url.host()));
        return false;
    }
    return add(spec);
}

bool ToolServers::add(const McpServerSpec &spec)
{
    if (m_clients.size() >= MaxServers) {
        setProblem(tr("Burrow keeps at most %1 tool servers; remove one first.").arg(MaxServers));
        return false;
    }
    for (const McpClient *c : std::as_const(m_clients)) {
        if (c->spec().name == spec.name) {
            setProblem(tr("There is a tool server called “%1” already.").arg(spec.name));
            return false;
        }
    }
    setProblem(QString());
    beginInsertRows({}, int(m_clients.size()), int(m_clients.size()));
    auto *client = new McpClient(spec, this);
    m_clients.append(client);
    endInsertRows();
    watch(client);
    save();
    Q_EMIT countChanged();
    client->start();
    return true;
}

void ToolServers::remove(int row)
{
    if (row < 0 || row >= m_clients.size())
        return;
    beginRemoveRows({}, row, row);
    McpClient *client = m_clients.takeAt(row);
    endRemoveRows();
    disconnect(client, nullptr, this, nullptr);
    client->stop();
    client->deleteLater();
    save();
    Q_EMIT countChanged();
    Q_EMIT toolsChanged();
}

void ToolServers::refresh(int row)
{
    if (row >= 0 && row < m_clients.size())
        m_clients.at(row)->start();
}

QJsonArray ToolServers::toolsJson() const
{
    QJsonArray tools;
    QStringList names;
    for (const McpClient *c : m_clients) {
        if (c->state() != McpClient::State::Ready)
            continue;
        for (const McpTool &t : c->tools()) {
            if (names.contains(t.name))
                continue;
            names << t.name;
            QJsonObject parameters = t.inputSchema;
            if (parameters.isEmpty())
                parameters = QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}};
            tools.append(QJsonObject{
                {QStringLiteral("type"), QStringLiteral("function")},
                {QStringLiteral("function"), QJsonObject{{QStringLiteral("name"), t.name},
                                                        {QStringLiteral("description"), t.description},
                                                        {QStringLiteral("parameters"), parameters}}}});
        }
    }
    return tools;
}

int ToolServers::serverOf(const QString &tool) const
{
    for (int row = 0; row < m_clients.size(); ++row)
        for (const McpTool &t : m_clients.at(row)->tools())
            if (t.name == tool)
                return row;
    return -1;
}

McpClient *ToolServers::client(int row) const
{
    return row >= 0 && row < m_clients.size() ? m_clients.at(row) : nullptr;
}

void ToolServers::call(const QString &name, const QJsonObject &arguments, McpClient::CallDone done)
{
    const int row = serverOf(name);
    if (row < 0) {
        QTimer::singleShot(0, this, [done = std::move(done), name] {
            done(tr("No tool server offers a tool called “%1” now (Settings → Tools).").arg(name), true);
        });
        return;
    }
    m_clients.at(row)->callTool(name, arguments, std::move(done));
}

void ToolServers::watch(McpClient *client)
{
    connect(client, &McpClient::stateChanged, this, [this, client] {
        const int row = int(m_clients.indexOf(client));
        if (row >= 0)
            Q_EMIT dataChanged(index(row), index(row));
        Q_EMIT toolsChanged();
    });
}

void ToolServers::load()
{
    const QJsonObject servers = QJsonDocument::fromJson(QSettings().value(QLatin1String(SettingsKey)).toByteArray())
                                    .object()
                                    .value(QLatin1String("mcpServers"))
                                    .toObject();
    for (auto it = servers.constBegin(); it != servers.constEnd() && m_clients.size() < MaxServers; ++it) {
        McpServerSpec spec;
        QString error;
        if (!McpServerSpec::fromJson(it.key(), it.value().toObject(), &spec, &error))
            continue;
        auto *client = new McpClient(spec, this);
        m_clients.append(client);
        watch(client);
    }
    for (McpClient *c : std::as_const(m_clients))
        c->start();
}

void ToolServers::save() const
{
    QJsonObject servers;
    for (const McpClient *c : m_clients)
        servers.insert(c->spec().name, c->spec().toJson());
    QSettings().setValue(QLatin1String(SettingsKey),
                         QJsonDocument(QJsonObject{{QStringLiteral("mcpServers"), servers}}).toJson(QJsonDocument::Compact));
}

void ToolServers::setProblem(const QString &problem)
{
    if (m_problem == problem)
        return;
    m_problem = problem;
    Q_EMIT problemChanged();
}
