// burrow::Model::load() and the Model implementation.
#include "api/model_impl.h"

#include "common/log.h"
#include "runtime/weight_packing.h"

#include <algorithm>
#include <unordered_set>

namespace burrow {

Result<std::shared_ptr<Model>> Model::load(const std::string &path, const LoadOptions &options)
{
    auto loaded = api::ModelImpl::load(path, options);
    if (!loaded)
        return loaded.status();
    if (loaded.value()->config().isAssistant())
        return Status::error(path + ": this is Gemma 4's assistant (gemma4-assistant), a drafter that runs only beside "
                             "the Gemma 4 model it was made for: load that model and name this file as its draft "
                             "(burrow-cli --spec mtp --draft FILE)");
    return std::shared_ptr<Model>(std::move(loaded.value()));
}

} // namespace burrow

namespace burrow::api {

Result<std::shared_ptr<ModelImpl>> ModelImpl::load(const std::string &path, const LoadOptions &options)
{
    const auto progress = [&](float p) { return !options.progress || options.progress(p); };
    const auto cancelled = [&]() -> Status { return Status::cancelled(path + ": loading was cancelled"); };
    if (!progress(0.0f))
        return cancelled();

    auto info = inspectModel(path);
    if (!info)
        return info.status();
    auto file = gguf::GgufFile::open(path);
    if (!file)
        return file.status();

    std::shared_ptr<ModelImpl> m(new ModelImpl());
    m->m_file = std::move(file.value());
    m->m_info = std::move(info.value());
    auto config = model::loadModelConfig(*m->m_file);
    if (!config)
        return config.status();
    m->m_config = std::move(config.value());
    auto weights = model::loadWeights(*m->m_file, m->m_config);
    if (!weights)
        return weights.status();
    m->m_weights = std::move(weights.value());
    if (Status s = m->loadTokenizer(); !s)
        return s.withContext(path);
    if (!progress(0.05f))
        return cancelled();

    // The matrices in the layout of the CPU path's packed kernels (if any):
    // packing reads them from the file once and releases their pages.
    bool stopped = false;
    const Status packed = runtime::packWeights(m->m_weights, m->m_packed, m->m_packedArena, [&](float p) {
        stopped = !progress(0.05f + 0.55f * p);
        return !stopped;
    });
    if (stopped)
        return cancelled();
    if (!packed)
        return packed.withContext(path);

    // Touch every page of the other tensors once (reads the file into the
    // page cache with progress, instead of stalling the first prompt).
    std::unordered_set<const uint8_t *> packedData;
    const auto notePacked = [&](const model::TensorView &t) {
        if (t.packed && t.data != m->m_weights.tokenEmbd.data)   // a tied output's rows are still read
            packedData.insert(t.data);
    };
    // Every packed matrix (experts included: an expert tensor's first
    // expert stands for the file tensor; untouched, the pages packing
    // released stay out of memory).
    for (const model::TensorView *t : model::weightMatrices(static_cast<const model::Weights &>(m->m_weights)))
        notePacked(*t);
    uint64_t total = 1, done = 0;
    for (const gguf::TensorInfo &t : m->m_file->tensors())
        if (!packedData.count(t.data))
            total += t.nBytes;
    volatile uint8_t sink = 0;
    for (const gguf::TensorInfo &t : m->m_file->tensors()) {
        if (packedData.count(t.data))
            continue;
        uint8_t acc = 0;
        for (uint64_t off = 0; off < t.nBytes; off += 4096)
            acc ^= t.data[off];
        sink = sink ^ acc;
        done += t.nBytes;
        if (!progress(0.6f + 0.4f * static_cast<float>(std::min(done, total)) / static_cast<float>(total)))
            return cancelled();
    }
    (void)sink;
    if (!progress(1.0f))   // (also when nothing was packed)
        return cancelled();
    return m;
}

} // namespace burrow::api
