#include "sampling/stages.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace burrow::sampling {

namespace {

// Top-p sorts this many of the most likely candidates first, and the rest
// only if their mass falls short of p.
constexpr size_t kTopPHead = 256;

} // namespace

uint32_t resolveSeed(uint32_t seed)
{
    if (seed != kRandomSeed)
        return seed;
    std::random_device device;
    if (device.entropy() == 0.0)
        return static_cast<uint32_t>(std::chrono::system_clock::now().time_since_epoch().count());
    return device();
}

// ---- penalties -------------------------------------------------------------

Penalties::Penalties(uint32_t vocabSize, int32_t lastN, float repeat, float frequency, float presence)
    : m_lastN(std::max(lastN, 0)), m_repeat(repeat), m_frequency(frequency), m_presence(presence),
      m_counts(vocabSize, 0), m_seen(vocabSize, 0u), m_ring(static_cast<size_t>(std::max(lastN, 0)), 0)
{
}

int32_t Penalties::count(Token token) const
{
    if (token < 0 || static_cast<size_t>(token) >= m_counts.size())
        return 0;
    return m_counts[static_cast<size_t>(token)];
}

void Penalties::accept(Token token)
{
    if (m_lastN == 0 || token < 0 || static_cast<size_t>(token) >= m_counts.size())
        return;
    const size_t capacity = m_ring.size();
    if (m_windowSize == capacity) {
        // Full: the oldest token leaves the window, the new one takes its slot.
        --m_counts[static_cast<size_t>(m_ring[m_first])];
        m_ring[m_first] = token;
        m_first = (m_first + 1) % capacity;
    } else {
        m_ring[(m_first + m_windowSize) % capacity] = token;
        ++m_windowSize;
    }
    ++m_counts[static_cast<size_t>(token)];
}

void Penalties::reset()
{
    for (size_t i = 0; i < m_windowSize; ++i)
        m_counts[static_cast<size_t>(m_ring[(m_first + i) % m_ring.size()])] = 0;
    m_first = 0;
    m_windowSize = 0;
}

void Penalties::penalize(Candidate &c, int32_t n) const
{
    // Dividing a negative logit would make the token more likely, so
    // negative logits are multiplied instead.
    if (c.logit <= 0.0f)
        c.logit *= m_repeat;
    else
        c.logit /= m_repeat;
    c.logit -= static_cast<float>(n) * m_frequency + m_presence;
}

void Penalties::apply(CandidateArray &candidates)
{
    if (m_lastN == 0 || m_windowSize == 0
        || (m_repeat == 1.0f && m_frequency == 0.0f && m_presence == 0.0f))
        return;
    const size_t capacity = m_ring.size();
    auto windowToken = [&](size_t k) { return static_cast<size_t>(m_ring[(m_first + k) % capacity]); };

    // Fast path: every window token sits at its own index (the whole
    // vocabulary in id order, as when penalties run first). Then only the
    // window is visited, each distinct token once: O(lastN), not O(vocabulary).
    bool indexed = true;
    for (size_t k = 0; k < m_windowSize && indexed; ++k) {
        const size_t t = windowToken(k);
        indexed = t < candidates.size && candidates.data[t].id == static_cast<Token>(t);
    }
    if (indexed) {
        if (++m_epoch == 0) {   // wrapped: forget every old stamp
            std::fill(m_seen.begin(), m_seen.end(), 0u);
            m_epoch = 1;
        }
        for (size_t k = 0; k < m_windowSize; ++k) {
            const size_t t = windowToken(k);
            if (m_seen[t] == m_epoch)
                continue;
            m_seen[t] = m_epoch;
            penalize(candidates.data[t], m_counts[t]);
        }
    } else {
        for (size_t i = 0; i < candidates.size; ++i) {
            const int32_t n = count(candidates.data[i].id);
            if (n > 0)
                penalize(candidates.data[i], n);
        }
    }
    candidates.sorted = false;
}

// ---- top-k -----------------------------------------------------------------

void TopK::apply(CandidateArray &candidates)
{
    if (m_k <= 0 || candidates.size == 0)
        return;
    keepTopSorted(candidates, std::min(static_cast<size_t>(m_k), candidates.size));
}

// ---- typical ---------------------------------------------------------------

TypicalP::TypicalP(float p, size_t minKeep, uint32_t vocabSize) : m_p(p), m_minKeep(minKeep)
{
    m_scores.reserve(vocabSize);
    m_order.reserve(vocabSize);
    m_copy.reserve(vocabSize);
}

void TypicalP::apply(CandidateArray &candidates)
{
    if (m_p >= 1.0f || candidates.size == 0)
        return;
    softmax(candidates);

    const size_t n = candidates.size;
    float entropy = 0.0f;
    for (size_t i = 0; i < n; ++i)
        entropy += -candidates.data[i].p * std::log(candidates.data[i].p);

    // resize() within the reserved capacity does not allocate.
    m_scores.resize(n);
    m_order.resize(n);
    for (size_t i = 0; i < n; ++i) {
        m_scores[i] = std::fabs(-std::log(candidates.data[i].p) - entropy);
        m_order[i] = static_cast<uint32_t>(i);
    }
    std::sort(m_order.begin(), m_order.end(),
              [this](uint32_t a, uint32_t b) { return m_scores[a] < m_scores[b]; });

    const size_t minKeep = std::max<size_t>(m_minKeep, 1);
    float cumulative = 0.0f;
    size_t keep = n;
    for (size_t i = 0; i < n; ++i) {
        cumulative += candidates.data[m_order[i]].p;
        if (cumulative > m_p && i + 1 >= minKeep) {
            keep = i + 1;
            break;
        }
    }

    m_copy.resize(keep);
    for (size_t i = 0; i < keep; ++i)
        m_copy[i] = candidates.data[m_order[i]];
    std::copy(m_copy.begin(), m_copy.end(), candidates.data);
    candidates.size = keep;
    candidates.sorted = false;
}

// ---- top-p -----------------------------------------------------------------

void TopP::apply(CandidateArray &candidates)
{
    if (m_p >= 1.0f || candidates.size == 0)
        return;
    // Probabilities over everything, but only as much of the order as the
    // nucleus needs: the head is sorted first, the tail only when the head's
    // mass falls short (same set and order as sorting everything).
    size_t sortedUpTo = candidates.size;
    if (candidates.sorted) {
        softmax(candidates);
    } else {
        softmaxUnsorted(candidates);
        sortedUpTo = std::min(candidates.size, kTopPHead);
        sortHead(candidates, sortedUpTo);
    }
    float cumulative = 0.0f;
    size_t keep = candidates.size;
    for (size_t i = 0; i < candidates.size; ++i) {
        if (i == sortedUpTo) {   // the next, 4x larger slice of the order
            const size_t next = std::min(candidates.size, sortedUpTo * 4);
            sortRange(candidates, sortedUpTo, next);
            sortedUpTo = next;
        }
        cumulative += candidates.data[i].p;
        if (cumulative >= m_p && i + 1 >= m_minKeep) {
            keep = i + 1;
            break;
        }
    }
    candidates.size = keep;
    candidates.sorted = true;
}

// ---- min-p -----------------------------------------------------------------

void MinP::apply(CandidateArray &candidates)
{
    if (m_p <= 0.0f || candidates.size == 0)
        return;

    if (!candidates.sorted) {
        // Unsorted: filter in place, keeping the order, when enough survive.
        float maxLogit = -std::numeric_limits<float>::max();
        for (size_t i = 0; i < candidates.size; ++i)
            maxLogit = std::max(maxLogit, candidates.data[i].logit);
        const float minLogit = maxLogit + std::log(m_p);   // p_i >= p * p_max
        size_t kept = 0;
        for (size_t i = 0; i < candidates.size; ++i)
            kept += candidates.data[i].logit >= minLogit ? 1 : 0;
        if (kept > 0 && kept >= m_minKeep) {
            size_t out = 0;
            for (size_t i = 0; i < candidates.size; ++i) {
                if (candidates.data[i].logit >= minLogit)
                    candidates.data[out++] = candidates.data[i];
            }
            candidates.size = out;
            return;
        }
        sortDescending(candidates);
    }

    const float minLogit = candidates.data[0].logit + std::log(m_p);
    size_t i = 1;   // the most likely token always stays
    for (; i < candidates.size; ++i) {
        if (candidates.data[i].logit < minLogit && i >= m_minKeep)
            break;
    }
    candidates.size = i;
}

// ---- temperature -----------------------------------------------------------

void Temperature::apply(CandidateArray &candidates)
{
    if (candidates.size == 0)
        return;
    if (m_t <= 0.0f) {
        const size_t best = argmaxIndex(candidates);
        for (size_t i = 0; i < candidates.size; ++i) {
            if (i != best)
                candidates.data[i].logit = -std::numeric_limits<float>::infinity();
        }
        return;
    }
    for (size_t i = 0; i < candidates.size; ++i)
        candidates.data[i].logit /= m_t;
}

// ---- dist ------------------------------------------------------------------

size_t drawDiscrete(const Candidate *data, size_t n, double *cumulative, std::mt19937 &rng)
{
    // libstdc++'s discrete_distribution: fewer than two weights means index 0
    // without touching the generator; otherwise weights are normalized by
    // their double sum, accumulated, the last set to exactly 1, and the first
    // cumulative value >= a canonical double draw wins.
    if (n < 2)
        return 0;
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i)
        sum += static_cast<double>(data[i].p);
    double running = 0.0;
    for (size_t i = 0; i < n; ++i) {
        running += static_cast<double>(data[i].p) / sum;
        cumulative[i] = running;
    }
    cumulative[n - 1] = 1.0;
    const double u = std::generate_canonical<double, std::numeric_limits<double>::digits>(rng);
    return static_cast<size_t>(std::lower_bound(cumulative, cumulative + n, u) - cumulative);
}

Dist::Dist(uint32_t seed, uint32_t vocabSize)
    : m_seed(seed), m_seedUsed(resolveSeed(seed)), m_rng(m_seedUsed), m_cumulative(vocabSize)
{
}

void Dist::apply(CandidateArray &candidates)
{
    if (candidates.size == 0)
        return;
    softmax(candidates);
    candidates.selected = static_cast<int64_t>(
        drawDiscrete(candidates.data, candidates.size, m_cumulative.data(), m_rng));
}

void Dist::applyAgainst(CandidateArray &candidates, Token draft, const Candidate *q, size_t nq)
{
    if (candidates.size == 0)
        return;
    softmax(candidates);
    const size_t vocab = m_cumulative.size();
    if (m_q.size() != vocab)
        m_q.assign(vocab, 0.0f);
    for (size_t i = 0; i < nq; ++i)
        if (q[i].id >= 0 && static_cast<size_t>(q[i].id) < vocab)
            m_q[static_cast<size_t>(q[i].id)] += q[i].p;
    const auto canonical = [this] { return std::generate_canonical<double, std::numeric_limits<double>::digits>(m_rng); };
    double pDraft = 0.0;
    int64_t draftIndex = -1;
    for (size_t i = 0; i < candidates.size; ++i)
        if (candidates.data[i].id == draft) {
            pDraft = candidates.data[i].p;
            draftIndex = static_cast<int64_t>(i);
        }
    const double qDraft = draft >= 0 && static_cast<size_t>(draft) < vocab ? m_q[static_cast<size_t>(draft)] : 0.0;
    // Accept when u < p / q, i.e. u q < p (q = 0 cannot have been drawn: never accepted).
    if (draftIndex >= 0 && qDraft > 0.0 && canonical() * qDraft < pDraft) {
        candidates.selected = draftIndex;
    } else {
        double sum = 0.0;
        for (size_t i = 0; i < candidates.size; ++i) {
            sum += std::max(0.0, static_cast<double>(candidates.data[i].p) - m_q[static_cast<size_t>(candidates.data[i].id)]);
            m_cumulative[i] = sum;
        }
        if (!(sum > 0.0)) {   // p <= q everywhere (p == q up to rounding): the residual is p
            sum = 0.0;
            for (size_t i = 0; i < candidates.size; ++i)
                m_cumulative[i] = sum += candidates.data[i].p;
        }
        const double u = canonical() * sum;
        size_t pick = static_cast<size_t>(std::upper_bound(m_cumulative.begin(), m_cumulative.begin() + static_cast<std::ptrdiff_t>(candidates.size), u) -
                                          m_cumulative.begin());
        // A zero-weight candidate is never picked: step back over equal sums (u = sum exactly).
        pick = std::min(pick, candidates.size - 1);
        while (pick > 0 && m_cumulative[pick] == m_cumulative[pick - 1])
            --pick;
        candidates.selected = static_cast<int64_t>(pick);
    }
    for (size_t i = 0; i < nq; ++i)
        if (q[i].id >= 0 && static_cast<size_t>(q[i].id) < vocab)
            m_q[static_cast<size_t>(q[i].id)] = 0.0f;
}

void Dist::reset()
{
    m_seedUsed = resolveSeed(m_seed);
    m_rng.seed(m_seedUsed);
}

// ---- greedy ----------------------------------------------------------------

void Greedy::apply(CandidateArray &candidates)
{
    if (candidates.size == 0)
        return;
    candidates.selected = static_cast<int64_t>(argmaxIndex(candidates));
}

// ---- mirostat 2.0 ----------------------------------------------------------

MirostatV2::MirostatV2(uint32_t seed, float tau, float eta, uint32_t vocabSize)
    : m_seed(seed), m_seedUsed(resolveSeed(seed)), m_tau(tau), m_eta(eta), m_mu(2.0f * tau),
      m_rng(m_seedUsed), m_cumulative(vocabSize)
{
}

void MirostatV2::apply(CandidateArray &candidates)
{
    if (candidates.size == 0)
        return;
    if (candidates.sorted) {
        softmax(candidates);
        // Sorted by descending p, so the tokens too surprising for mu are a suffix.
        size_t keep = 0;
        while (keep < candidates.size && !(-std::log2(candidates.data[keep].p) > m_mu))
            ++keep;
        candidates.size = std::max<size_t>(keep, 1);
    } else {
        // The same set without sorting everything: keep the unsurprising
        // tokens (order kept), or the most likely one when none is.
        softmaxUnsorted(candidates);
        const size_t best = argmaxIndex(candidates);
        size_t keep = 0;
        for (size_t i = 0; i < candidates.size; ++i) {
            if (!(-std::log2(candidates.data[i].p) > m_mu))
                candidates.data[keep++] = candidates.data[i];
        }
        if (keep == 0)
            candidates.data[keep++] = candidates.data[best];
        candidates.size = keep;
    }
    softmax(candidates);   // sorts the survivors and renormalizes

    const size_t index = drawDiscrete(candidates.data, candidates.size, m_cumulative.data(), m_rng);
    candidates.selected = static_cast<int64_t>(index);
    const float surprise = -std::log2(candidates.data[index].p);
    m_mu = m_mu - m_eta * (surprise - m_tau);
}

void MirostatV2::reset()
{
    m_mu = 2.0f * m_tau;
    m_seedUsed = resolveSeed(m_seed);
    m_rng.seed(m_seedUsed);
}

// ---- mirostat 1.0 ----------------------------------------------------------

Mirostat::Mirostat(uint32_t seed, float tau, float eta, uint32_t vocabSize, int32_t m)
    : m_seed(seed), m_seedUsed(resolveSeed(seed)), m_tau(tau), m_eta(eta), m_mu(2.0f * tau),
      m_vocabSize(vocabSize), m_m(std::max(m, 2)), m_rng(m_seedUsed), m_cumulative(vocabSize)
{
}

void Mirostat::apply(CandidateArray &candidates)
{
    if (candidates.size == 0)
        return;
    softmax(candidates);

    // Least-squares estimate of the Zipf exponent from the top m tokens.
    float sumTiBi = 0.0f, sumTiSq = 0.0f;
    for (size_t i = 0; i + 1 < static_cast<size_t>(m_m) && i + 1 < candidates.size; ++i) {
        const float ti = std::log(static_cast<float>(i + 2) / static_cast<float>(i + 1));
        const float bi = std::log(candidates.data[i].p / candidates.data[i + 1].p);
        sumTiBi += ti * bi;
        sumTiSq += ti * ti;
    }
    const float sHat = sumTiBi / sumTiSq;
    const float epsilonHat = sHat - 1.0f;
    const float k = std::pow((epsilonHat * std::pow(2.0f, m_mu))
                                 / (1.0f - std::pow(static_cast<float>(m_vocabSize), -epsilonHat)),
                             1.0f / sHat);
    // NaN/inf k (one candidate, flat distribution) keeps a single token, like
    // the reference's int(k) clamped to >= 1 on common platforms.
    size_t keep = 1;
    if (std::isfinite(k) && k >= 1.0f)
        keep = k >= static_cast<float>(candidates.size) ? candidates.size : static_cast<size_t>(k);
    keepTopSorted(candidates, keep);
    softmax(candidates);

    const size_t index = drawDiscrete(candidates.data, candidates.size, m_cumulative.data(), m_rng);
    candidates.selected = static_cast<int64_t>(index);
    const float surprise = -std::log2(candidates.data[index].p);
    m_mu = m_mu - m_eta * (surprise - m_tau);
}

void Mirostat::reset()
{
    m_mu = 2.0f * m_tau;
    m_seedUsed = resolveSeed(m_seed);
    m_rng.seed(m_seedUsed);
}

} // namespace burrow::sampling
