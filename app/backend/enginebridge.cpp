#include "enginebridge.h"

#include "engineworker.h"

namespace {

BackendFactory &factoryOverride()
{
    static BackendFactory factory;
    return factory;
}

} // namespace

void EngineBridge::setBackendFactory(const BackendFactory &factory)
{
    factoryOverride() = factory;
}

void EngineBridge::resetBackendFactory()
{
    factoryOverride() = BackendFactory();
}

EngineBridge::EngineBridge(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<GenerationOutcome>();
    qRegisterMetaType<PromptPlan>();
    qRegisterMetaType<ModelCard>();
    qRegisterMetaType<ServerConfig>();
    qRegisterMetaType<ServerStatus>();

    const BackendFactory factory = factoryOverride().create ? factoryOverride() : defaultBackendFactory();
    m_inspect = factory.inspect;
    m_worker = new EngineWorker(factory.create());
    m_worker->moveToThread(&m_thread);
    m_thread.setObjectName(QStringLiteral("burrow-engine"));
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);

    // Every connection is queued: the worker's signals arrive through this
    // thread's event loop, never as direct calls from the engine thread.
    connect(m_worker, &EngineWorker::loadProgress, this, &EngineBridge::loadProgress, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::modelLoaded, this, [this](quint64 id, const ModelCard &card) {
        m_loads.erase(id);
        Q_EMIT modelLoaded(id, card);
    }, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::loadFailed, this, [this](quint64 id, const QString &path, const QString &reason) {
        m_loads.erase(id);
        Q_EMIT loadFailed(id, path, reason);
    }, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::contextSizeChanged, this, [this](int size) {
        if (size == m_contextSize)
            return;
        m_contextSize = size;
        Q_EMIT contextSizeChanged();
    }, Qt::QueuedConnection);
    // A reply's reports go to its own handle.
    connect(m_worker, &EngineWorker::promptPlanned, this, [this](quint64 id, const PromptPlan &plan) {
        if (ReplyHandle *h = handle(id))
            h->plan(plan);
    }, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::promptProgress, this, [this](quint64 id, int done, int total) {
        if (ReplyHandle *h = handle(id))
            h->progress(done, total);
    }, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::generationFinished, this, [this](quint64 id, const GenerationOutcome &outcome) {
        ReplyHandle *h = handle(id);
        m_replies.erase(id);
        if (h)
            h->finish(outcome);
    }, Qt::QueuedConnection);

    connect(m_worker, &EngineWorker::serverStatus, this, [this](const ServerStatus &status) {
        m_pollPending = false;
        Q_EMIT serverStatus(status);
    }, Qt::QueuedConnection);

    m_thread.start();
}

EngineBridge::~EngineBridge()
{
    cancelAll();
    m_thread.quit();
    m_thread.wait();
}

quint64 EngineBridge::load(const QString &path, int contextSize)
{
    const quint64 id = ++m_nextId;
    auto cancel = std::make_shared<burrow::CancelToken>();
    m_loads[id] = cancel;
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, id, path, contextSize, cancel] {
        worker->loadModel(id, path, contextSize, cancel);
    }, Qt::QueuedConnection);
    return id;
}

ReplyHandle *EngineBridge::generate(ChatRequest request)
{
    const quint64 id = ++m_nextId;
    auto *reply = new ReplyHandle(id, request.priority, m_flushIntervalMs, this);
    m_replies[id] = reply;
    request.id = id;
    request.cancel = reply->cancelToken();
    request.priorityCell = reply->priorityCell();
    // The wake-up runs on the engine side when the reply's buffer turns
    // non-empty; it posts one queued call here, which finds the handle by id
    // (a handle gone meanwhile is not reached). The engine thread ends
    // before this object does: see the destructor.
    auto wake = [this, id] {
        QMetaObject::invokeMethod(this, [this, id] {
            if (ReplyHandle *h = handle(id))
                h->wake();
        }, Qt::QueuedConnection);
    };
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, request = std::move(request), buffer = reply->buffer(), wake] {
        worker->generate(request, buffer, wake);
    }, Qt::QueuedConnection);
    return reply;
}

ReplyHandle *EngineBridge::handle(quint64 id) const
{
    const auto it = m_replies.find(id);
    return it == m_replies.end() ? nullptr : it->second.data();
}

void EngineBridge::setFlushIntervalMs(int ms)
{
    m_flushIntervalMs = ms < 1 ? 1 : ms;
    for (const auto &[id, reply] : m_replies)
        if (reply)
            reply->setFlushIntervalMs(m_flushIntervalMs);
}

void EngineBridge::configureServer(const ServerConfig &config)
{
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, config] { worker->configureServer(config); },
                              Qt::QueuedConnection);
}

void EngineBridge::pollServer()
{
    if (m_pollPending)
        return;   // the engine thread is busy (a load): one ask waits there already
    m_pollPending = true;
    QMetaObject::invokeMethod(m_worker, [worker = m_worker] { worker->pollServer(); }, Qt::QueuedConnection);
}

void EngineBridge::cancel(quint64 id)
{
    if (const auto it = m_loads.find(id); it != m_loads.end())
        it->second->cancel();
    if (ReplyHandle *h = handle(id))
        h->cancel();
}

void EngineBridge::cancelAll()
{
    for (auto &[id, cancel] : m_loads)
        cancel->cancel();
    for (const auto &[id, reply] : m_replies)
        if (reply)
            reply->cancel();
}
