// ModelLoader: which model is loaded and how the next one gets there, on the
// GUI thread. Every way of opening a file ends here: a drop or the file
// dialog (openUrls), the command line (openPath), the recent list
// (openFile). It decides what a file is — a compressed model is unpacked by
// the archive helper first, a .gguf has its header read on a pool thread —
// shows the model card when confirmation is wanted (pendingCard), and loads
// on the engine thread with progress. A file that cannot be used is refused
// with the reason (problem()), and the model loaded before stays.
#pragma once

#include <QObject>
#include <QPointer>
#include <QUrl>
#include <QtQml/qqmlregistration.h>

#include "models/recentmodels.h"

#include "backend/modelcard.h"

class ArchiveService;
class ChatSettings;
class EngineBridge;

class ModelLoader : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("The model loader belongs to a ChatController")
    Q_PROPERTY(bool hasModel READ hasModel NOTIFY modelChanged)
    Q_PROPERTY(ModelCard model READ model NOTIFY modelChanged)
    Q_PROPERTY(bool inspecting READ isInspecting NOTIFY inspectingChanged)
    Q_PROPERTY(ModelCard pendingCard READ pendingCard NOTIFY pendingCardChanged)
    Q_PROPERTY(bool loading READ isLoading NOTIFY loadingChanged)
    Q_PROPERTY(QString loadingFileName READ loadingFileName NOTIFY loadingChanged)
    Q_PROPERTY(QString loadingPath READ loadingPath NOTIFY loadingChanged)
    Q_PROPERTY(double loadProgress READ loadProgress NOTIFY loadProgressChanged)
    Q_PROPERTY(RecentModels *recentModels READ recentModels CONSTANT)

public:
    // `settings`: the shown chat's, whose context size a load uses and whose
    // limits the loaded model sets. `archives` unpacks compressed models.
    ModelLoader(EngineBridge *bridge, ChatSettings *settings, ArchiveService *archives, QObject *parent = nullptr);

    bool hasModel() const { return m_model.isValid(); }
    ModelCard model() const { return m_model; }
    bool isInspecting() const { return m_inspecting; }
    ModelCard pendingCard() const { return m_pendingCard; }
    bool isLoading() const { return m_loadId != 0; }
    QString loadingFileName() const;
    QString loadingPath() const { return m_loadingPath; }
    double loadProgress() const { return m_loadProgress; }
    RecentModels *recentModels() const { return m_recent; }

    // Why these dropped URLs cannot be opened ("" when they can): one local
    // .gguf file, or one compressed model (told by its content).
    Q_INVOKABLE QString refusalFor(const QList<QUrl> &urls) const;
    // A drop or the file dialog: refused with a reason, or the card is shown
    // for confirmation (a compressed model is unpacked first).
    Q_INVOKABLE void openUrls(const QList<QUrl> &urls);
    // The command line: like a drop, without the card unless memory is short.
    Q_INVOKABLE void openPath(const QString &path);
    // A .gguf from the recent list or a chat's model; `confirm` false loads
    // at once unless memory is short.
    Q_INVOKABLE void openFile(const QString &path, bool confirm);
    Q_INVOKABLE void loadPending();
    Q_INVOKABLE void dismissPending();

Q_SIGNALS:
    void modelChanged();
    void inspectingChanged();
    void pendingCardChanged();
    void loadingChanged();
    void loadProgressChanged();
    // A load is about to start (a reply still streaming is stopped first).
    void loadStarting();
    // A file was refused or could not be read: a sentence for the banner.
    void problem(const QString &message);
    // A load ended; `ok` false: problem() said why.
    void loadFinished(bool ok);

private:
    void inspected(quint64 ticket, const QString &path, const ModelCard &card, const QString &error, bool confirm);
    void startLoad(const QString &path);
    void onLoaded(quint64 id, const ModelCard &card);
    void onLoadFailed(quint64 id, const QString &path, const QString &reason);
    void updateMemoryLimit();

    EngineBridge *m_bridge;
    QPointer<ChatSettings> m_settings;
    QPointer<ArchiveService> m_archives;
    RecentModels *m_recent;
    ModelCard m_model;
    QString m_limitKvType;   // the KV cache type the memory limit was computed for
    ModelCard m_pendingCard;
    bool m_inspecting = false;
    quint64 m_inspectTicket = 0;
    bool m_unpackedConfirm = true;   // a model unpacked from an archive: show its card first
    quint64 m_loadId = 0;            // the load in progress, 0 when none
    QString m_loadingPath;
    double m_loadProgress = 0;
};
