// How many tokens a sequence drafts next, from its recent acceptance, so
// drafting is never much slower than plain decoding: a verification pass of
// k drafts costs more than one row, and the drafts pay only when accepted.
//
//   - all k accepted: the next allowance grows (doubles, up to max);
//   - some accepted: the next allowance is accepted + 1;
//   - none accepted twice in a row, or of several tokens before any draft
//     of the sequence was right: no drafting for `backoff` steps (8,
//     doubling on every further miss up to 64), then one token is tried.
//     (At zero acceptance a 96-token reply then verifies 4 times, not 6:
//     each verification costs 1.5-3x a plain step on a 1B model.)
// A step where the drafter finds nothing does not count. All O(1).
#pragma once

namespace burrow::speculative {

class DraftControl {
public:
    explicit DraftControl(int maxDraft);

    int maxDraft() const { return m_max; }
    // Tokens to draft in this step (0: none; counts the step of a back-off).
    int allowance();
    // The next allowance() is 0: the sequence is backed off (an MTP block's
    // rows may wait, BatchSpan::mtpLater).
    bool waiting() const { return m_max == 0 || m_wait > 0; }
    // The outcome of a verification: drafted > 0 tokens, accepted of them.
    void record(int drafted, int accepted);
    // The last verification accepted every draft token. (The scheduler lets
    // a sequence draft beside other generating sequences only then: there a
    // draft row costs about what an accepted token saves.)
    bool onStreak() const { return m_streak; }

private:
    int m_max = 0;
    int m_len = 0;
    int m_misses = 0;
    int m_wait = 0;
    int m_backoff = 8;
    bool m_hit = false;      // a draft token of this sequence was accepted
    bool m_streak = false;   // the last verification accepted all its drafts
};

} // namespace burrow::speculative
