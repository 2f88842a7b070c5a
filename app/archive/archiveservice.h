// Runs burrow-archive (see docs/archives.md) for the app: exporting and
// importing conversation bundles and unpacking compressed models. One job at a
// time; progress and results come back as properties and signals on the GUI
// thread (QProcess is asynchronous, nothing here blocks).
#pragma once

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <QUrl>
#include <QVariantList>
#include <memory>
#include <QtQml/qqmlregistration.h>

#include "storage/conversationstore.h"

/**
 * @brief Export/import of conversations and import of compressed models, through burrow-archive.
 */
class ArchiveService : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(ConversationStore *store READ store WRITE setStore NOTIFY storeChanged)
    Q_PROPERTY(bool busy READ isBusy NOTIFY busyChanged)
    Q_PROPERTY(double progress READ progress NOTIFY progressChanged)   // 0..1, or -1 when unknown
    Q_PROPERTY(QString activity READ activity NOTIFY busyChanged)      // "Exporting 3 conversations…"
    Q_PROPERTY(QString helperPath READ helperPath WRITE setHelperPath NOTIFY helperPathChanged)
    Q_PROPERTY(QString modelsFolder READ modelsFolder WRITE setModelsFolder NOTIFY modelsFolderChanged)

public:
    enum Job { NoJob, ExportJob, ImportJob, ModelJob };
    Q_ENUM(Job)

    explicit ArchiveService(QObject *parent = nullptr);
    ~ArchiveService() override;

    ConversationStore *store() const { return m_store; }
    void setStore(ConversationStore *store);
    bool isBusy() const { return m_job != NoJob; }
    double progress() const { return m_progress; }
    QString activity() const { return m_activity; }
    /// Default: burrow-archive beside the running executable, else on PATH.
    QString helperPath() const { return m_helperPath; }
    void setHelperPath(const QString &path);
    /// Where unpacked models go. Default: <data folder>/models (storage/datafolder.h).
    QString modelsFolder() const { return m_modelsFolder; }
    void setModelsFolder(const QString &path);

    /// True for names Burrow treats as a compressed model or archive
    /// (.zip, .tar.gz, .tgz, .tar.xz, .tar.zst, .gguf.gz, .gguf.xz, .gguf.zst).
    Q_INVOKABLE static bool isArchiveName(const QString &path);
    /// True when `path` holds a zip, gzip, xz or zstd stream, told by its
    /// first bytes (what burrow-archive reads); a GGUF file or any other
    /// content is not an archive, whatever its name. Falls back to
    /// isArchiveName() when the file cannot be read. Reads at most 8 bytes.
    Q_INVOKABLE static bool isArchiveFile(const QString &path);

    /// The local file a dialog's URL names (a file: URL; "" for others).
    Q_INVOKABLE static QString localPath(const QUrl &url) { return url.isLocalFile() ? url.toLocalFile() : QString(); }
    /// Exports the conversations `ids` (all when empty) to `outFile` (.zip).
    Q_INVOKABLE bool exportConversations(const QVariantList &ids, const QString &outFile);
    /// Imports a bundle made by exportConversations().
    Q_INVOKABLE bool importConversations(const QString &bundle);
    /// Unpacks the first .gguf in `archive` into modelsFolder; modelReady() gives its path.
    Q_INVOKABLE bool importModel(const QString &archive);
    /// Stops the running job; it ends with finished(false, "Cancelled…") and leaves nothing behind.
    Q_INVOKABLE void cancel();

signals:
    void storeChanged();
    void busyChanged();
    void progressChanged();
    void helperPathChanged();
    void modelsFolderChanged();
    /// Every job ends with exactly one finished(); `message` is for the user.
    void finished(bool ok, const QString &message);
    void modelReady(const QString &path);

private:
    bool start(Job job, const QString &activity, const QStringList &args);
    void onOutput();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void finish(bool ok, const QString &message);
    void handleResult(const QJsonObject &result);
    void setProgress(double value);

    QPointer<ConversationStore> m_store;
    QString m_helperPath;
    QString m_modelsFolder;
    Job m_job = NoJob;
    double m_progress = -1;
    QString m_activity;
    QProcess *m_process = nullptr;
    std::unique_ptr<QTemporaryDir> m_work;
    QByteArray m_buffer;
    QJsonObject m_result;
    bool m_cancelled = false;
    QString m_target;       // export: the output file; model: the archive
    qint64 m_archiveSize = 0;
};
