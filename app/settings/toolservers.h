// ToolServers: Settings → Tools, the MCP servers the user added, one row
// each, on the GUI thread. A server is a command (stdio: program, arguments,
// extra environment) or a streamable-HTTP URL; each has an McpClient
// (backend/mcpclient.h) that is started when the server is added and at
// start-up, and lists its tools. The list is kept in the settings
// ("tools/servers", the common {"name": {"command", "args", "env"} | {"url"}}
// shape, as JSON); nothing else is stored here. With no server the chat
// offers no tools to the model (tool use is off until a server is added).
//
// The chat asks this list for the tools' definitions (toolsJson: OpenAI
// function tools, what the chat template's `tools` reads) and runs a call
// with call(): the server that lists the tool gets it.
#pragma once

#include <QAbstractListModel>
#include <QJsonArray>
#include <QtQml/qqmlregistration.h>

#include "backend/mcpclient.h"

class ToolServers : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    // Why the last add did not add ("" when it did).
    Q_PROPERTY(QString problem READ problem NOTIFY problemChanged)
    // Tools the chats can use now (the listed tools of the servers that answered).
    Q_PROPERTY(int toolCount READ toolCount NOTIFY toolsChanged)

public:
    enum Role {
        NameRole = Qt::UserRole + 1,
        TargetRole,          // the command line or the URL, as shown
        IsUrlRole,
        StatusRole,          // "Starting…", "3 tools", or why not
        FailedRole,
        ToolsRole,           // QStringList: "name — description" per tool
    };
    Q_ENUM(Role)

    static constexpr int MaxServers = 32;
    static constexpr char SettingsKey[] = "tools/servers";

    explicit ToolServers(QObject *parent = nullptr);
    ~ToolServers() override;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    QString problem() const { return m_problem; }
    int toolCount() const;

    // A stdio server: `commandLine` is the program and its arguments (quoted
    // as a shell would: "npx -y @modelcontextprotocol/server-everything"),
    // `environment` lines of NAME=value. False (and problem()) when refused.
    Q_INVOKABLE bool addCommand(const QString &name, const QString &commandLine, const QString &environment);
    // A streamable-HTTP server at `url` (http:// or https://; plain http to
    // another computer is refused once with a warning, taken the second time).
    Q_INVOKABLE bool addUrl(const QString &name, const QString &url);
    // Adds `spec` (from a config or the two above).
    bool add(const McpServerSpec &spec);
    Q_INVOKABLE void remove(int row);
    // Starts the row's server again and lists its tools.
    Q_INVOKABLE void refresh(int row);

    // The tools of the servers that answered, as OpenAI function tools
    // ([{"type": "function", "function": {name, description, parameters}}]);
    // a name listed by two servers is the first one's. Empty: none.
    QJsonArray toolsJson() const;
    // Runs tool `name` with `arguments`; `done` once, later.
    void call(const QString &name, const QJsonObject &arguments, McpClient::CallDone done);
    // The server row that lists tool `name` (-1: none).
    int serverOf(const QString &tool) const;
    McpClient *client(int row) const;

Q_SIGNALS:
    void countChanged();
    void problemChanged();
    void toolsChanged();

private:
    void load();
    void save() const;
    void setProblem(const QString &problem);
    void watch(McpClient *client);

    QList<McpClient *> m_clients;
    QString m_problem;
    QString m_warnedUrl;   // the plain-http address last warned about
};
