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
        m_running.erase(id);
        Q_EMIT modelLoaded(id, card);
    }, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::loadFailed, this, [this](quint64 id, const QString &path, const QString &reason) {
        m_running.erase(id);
        Q_EMIT loadFailed(id, path, reason);
    }, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::contextSizeChanged, this, [this](int size) {
        if (size == m_contextSize)
            return;
        m_contextSize = size;
        Q_EMIT contextSizeChanged();
    }, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::promptPlanned, this, &EngineBridge::promptPlanned, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::promptProgress, this, &EngineBridge::promptProgress, Qt::QueuedConnection);
    connect(m_worker, &EngineWorker::generationFinished, this, [this](quint64 id, const GenerationOutcome &outcome) {
        // The text still in the buffer comes first.
        deliver(id);
        m_running.erase(id);
        Q_EMIT generationFinished(id, outcome);
    }, Qt::QueuedConnection);

    connect(m_worker, &EngineWorker::serverStatus, this, [this](const ServerStatus &status) {
        m_pollPending = false;
        Q_EMIT serverStatus(status);
    }, Qt::QueuedConnection);

    m_flushTimer.setSingleShot(true);
    connect(&m_flushTimer, &QTimer::timeout, this, [this] { deliver(m_flushPending); });
    m_sinceFlush.start();
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
    m_running[id] = {cancel, nullptr};
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, id, path, contextSize, cancel] {
        worker->loadModel(id, path, contextSize, cancel);
    }, Qt::QueuedConnection);
    return id;
}

quint64 EngineBridge::generate(ChatRequest request)
{
    const quint64 id = ++m_nextId;
    request.id = id;
    request.cancel = std::make_shared<burrow::CancelToken>();
    request.priorityCell = std::make_shared<ReplyPriorityCell>(request.priority);
    auto buffer = std::make_shared<ReplyBuffer>();
    m_running[id] = {request.cancel, buffer, request.priorityCell};
    // The wake-up runs on the engine thread; it posts one queued call here.
    // (The engine thread ends before this object does: see the destructor.)
    auto wake = [this, id] {
        QMetaObject::invokeMethod(this, [this, id] { wakeUp(id); }, Qt::QueuedConnection);
    };
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, request = std::move(request), buffer, wake] {
        worker->generate(request, buffer, wake);
    }, Qt::QueuedConnection);
    return id;
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

void EngineBridge::setPriority(quint64 id, int priority)
{
    auto it = m_running.find(id);
    if (it != m_running.end() && it->second.priority)
        it->second.priority->set(priority);
}

void EngineBridge::cancel(quint64 id)
{
    auto it = m_running.find(id);
    if (it != m_running.end())
        it->second.cancel->cancel();
}

void EngineBridge::cancelAll()
{
    for (auto &[id, running] : m_running)
        running.cancel->cancel();
}

void EngineBridge::wakeUp(quint64 id)
{
    // At most one take every flushIntervalMs(): each take repaints the view. Until the timer fires the buffer keeps filling and the
    // engine thread posts nothing more (the buffer is not empty).
    const qint64 since = m_sinceFlush.elapsed();
    if (since >= m_flushIntervalMs) {
        deliver(id);
        return;
    }
    m_flushPending = id;
    if (!m_flushTimer.isActive())
        m_flushTimer.start(int(m_flushIntervalMs - since));
}

void EngineBridge::deliver(quint64 id)
{
    if (id == m_flushPending) {
        m_flushTimer.stop();
        m_flushPending = 0;
    }
    auto it = m_running.find(id);
    if (it == m_running.end() || !it->second.buffer)
        return;
    ReplyBuffer::Taken taken = it->second.buffer->take();
    if (taken.text.isEmpty() && taken.reasoning.isEmpty())
        return;
    m_sinceFlush.restart();
    Q_EMIT textReady(id, taken.text, taken.reasoning, taken.tokens, taken.elapsedMs);
}
