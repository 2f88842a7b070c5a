// DownloadManager: models downloaded from the Hugging Face hub into Burrow's
// models folder (<data folder>/models), as a list for QML (the singleton
// `DownloadManager`). GUI thread; the transfers themselves run in a
// DownloadWorker on a thread of their own (downloadworker.h has the protocol).
//
// A download is <file>.part plus <file>.part.json (the sidecar) until its
// checksum is verified, then <file> (or "<stem> (2).gguf" beside an existing
// file of that name). At start the sidecars of the folder come back as
// paused rows, so a download survives quitting the app. Rows: one per
// download of this session or left unfinished, newest last; a finished one
// stays (with its path, to open it) until dismissed. The network is used
// only when the user lists a repository (hub) or starts or resumes a
// download.
#pragma once

#include <QAbstractListModel>
#include <QElapsedTimer>
#include <QList>
#include <QPair>
#include <QThread>
#include <QUrl>
#include <QtQml/qqmlregistration.h>

#include "accesstoken.h"
#include "downloadworker.h"
#include "hubclient.h"

class DownloadManager : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    Q_PROPERTY(HubClient *hub READ hub CONSTANT)
    Q_PROPERTY(AccessToken *token READ token CONSTANT)
    Q_PROPERTY(QString modelsFolder READ modelsFolder CONSTANT)
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    // Downloads that are running (not paused, failed or finished).
    Q_PROPERTY(int activeCount READ activeCount NOTIFY activeCountChanged)

public:
    enum State { Starting, Checking, Downloading, Verifying, Paused, Failed, Finished };
    Q_ENUM(State)

    enum Role {
        IdRole = Qt::UserRole + 1,
        FileNameRole,
        RepoRole,
        RepoPathRole,
        StateRole,
        ReceivedRole,
        TotalRole,
        ProgressRole,       // 0..1, -1 while the size is unknown
        SizeTextRole,       // "1.2 GB of 4.1 GB"
        SpeedTextRole,      // "12.3 MB/s", "" when not downloading
        TimeLeftTextRole,   // "about 3 minutes left", ""
        MessageRole,        // why it failed, ""
        LocalPathRole,      // the finished file, ""
        CanResumeRole,      // paused or failed: Resume / Retry is offered
    };

    // The models folder of Burrow's data folder.
    explicit DownloadManager(QObject *parent = nullptr);
    // Another folder (tests).
    explicit DownloadManager(const QString &folder, QObject *parent = nullptr);
    ~DownloadManager() override;

    HubClient *hub() const { return m_hub; }
    AccessToken *token() const { return m_token; }
    QString modelsFolder() const { return m_folder; }
    int activeCount() const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // Starts downloading `path` of `repo` at `revision`; `size` and
    // `checksum` are the listing's (-1 / "" when unknown). Returns "" when
    // it started, else why not (not a safe name, already downloading, the
    // file is already in the models folder).
    Q_INVOKABLE QString download(const QString &repo, const QString &revision, const QString &path, double size,
                                 const QString &checksum);
    Q_INVOKABLE void pause(int id);
    // Resume a paused download, or retry a failed one (from its part when
    // it has one).
    Q_INVOKABLE void resume(int id);
    // Stops it and removes the part and the sidecar; the row goes.
    Q_INVOKABLE void cancel(int id);
    // A finished row leaves the list (the file stays).
    Q_INVOKABLE void dismiss(int id);
    // The row of a download id, -1 when none.
    Q_INVOKABLE int rowOf(int id) const;

    // Tests: the first pause before retrying a cut connection.
    void setRetryDelay(int ms);

Q_SIGNALS:
    void countChanged();
    void activeCountChanged();
    // A download finished and was checked: `path` can be opened.
    void downloadFinished(int id, const QString &path);
    void downloadFailed(int id, const QString &message);

private:
    struct Row {
        int id = 0;          // stable, for QML
        int runId = 0;       // this run's id in the worker (a new one per start; signals of older runs are ignored)
        DownloadSpec spec;
        State state = Starting;
        qint64 received = 0;
        QString message;
        QString localPath;
        bool partKept = false;
        bool cancelling = false;
        QList<QPair<qint64, qint64>> samples;   // (ms, received) of the last seconds, for the speed
    };

    void init();
    void startRow(int id);
    void changed(int row);
    Row *rowById(int id);
    Row *rowByRun(int runId);
    void onRestored(const DownloadSpec &spec, qint64 partSize);
    void onProgress(int id, qint64 received, qint64 total);
    void onPhase(int id, int phase);
    void onSpec(int id, const DownloadSpec &spec);
    void onFailed(int id, const QString &message, bool partKept);
    void onStopped(int id, qint64 received);
    void onFinished(int id, const QString &path);
    double speed(const Row &row) const;
    QString speedText(const Row &row) const;
    QString timeLeftText(const Row &row) const;

    QString m_folder;
    AccessToken *m_token;
    HubClient *m_hub;
    QThread m_thread;
    DownloadWorker *m_worker;
    QList<Row> m_rows;
    int m_nextId = 1;
    int m_nextRunId = 1;
    int m_lastActive = 0;
    QElapsedTimer m_clock;
};
