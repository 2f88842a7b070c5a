// Splits a message's Markdown into the blocks the chat view renders one by
// one: prose (shown as Markdown) and fenced code (monospace, with a Copy
// button). A block is a range of the message's text, not a copy of it.
//
// Where blocks end (decided on whole lines only, so appending text never
// moves an earlier boundary):
//   - a fence line (up to 3 spaces, then ``` or ~~~) opens or closes code;
//   - prose ends at a blank line followed by a line that starts without a
//     space (a new paragraph, list item or heading; indented lines after a
//     blank line stay, they continue a list item);
//   - prose longer than MaxLines lines ends before a line that starts a list
//     item or a heading, so a long list does not grow one block forever;
//   - code longer than MaxLines lines goes on in a new block marked
//     `continued` (the view draws it as part of the same box);
//   - prose longer than MaxProseChars characters ends after a sentence (a
//     ".", "!" or "?" and a space, inside a line too; after twice that
//     without a sentence end, before any word) where no inline markup
//     is open (code span, emphasis, link text); the rest goes on in a block
//     marked `continued` (the view draws it right under, as the same
//     paragraph), so one very long paragraph does not grow one block forever.
// While a reply streams its last line may be incomplete; it is then content
// of the last block and decides nothing until its newline arrives (or the
// text is complete), except what its first character already decides (after
// a blank line, a line at the margin starts a new block) and where a long
// paragraph is cut.
//
// Cost: split() is one pass over the text. MarkdownSplitter::update()
// re-parses only from the start of the last block, which is bounded by the
// rules above (MaxLines lines; MaxProseChars characters plus a sentence, at
// most twice that plus a word; only prose without a space, or with inline
// markup left open, is not); the blocks before it are final and never looked
// at again.
#pragma once

#include <QList>
#include <QString>
#include <QStringView>

struct MarkdownBlock {
    enum class Kind { Text, Code };
    Kind kind = Kind::Text;
    qsizetype start = 0;     // range of the message's text: prose Markdown, or the code without fences
    qsizetype length = 0;
    QString language;        // code: the fence's info string ("cpp"), may be empty
    bool closed = true;      // code: its closing fence came right after it (false while it has not,
                             // and for a part that goes on in the next block)
    bool continued = false;  // goes on from the block before (code: one box; prose: one paragraph), split for cost
    // The fence that opened this code block (what closes it); re-parsing starts here.
    QChar fenceChar;
    int fenceLength = 0;

    QString textIn(QStringView message) const { return message.mid(start, length).toString(); }
    bool operator==(const MarkdownBlock &) const = default;
};

// Blocks of `markdown` in one pass. `complete`: the text will not grow, so
// its last line counts as whole (a final "```" without newline closes).
QList<MarkdownBlock> splitMarkdown(QStringView markdown, bool complete = true);

// The same blocks for a text that grows at its end (a streaming reply):
// update() after every append gives exactly what splitMarkdown() gives for
// the text so far, re-parsing only the last block.
class MarkdownSplitter {
public:
    static constexpr int MaxLines = 40;
    static constexpr int MaxProseChars = 1200;

    // `text` must start with the text of the previous call (it only grew);
    // otherwise call reset() first. Returns the index of the first block that
    // differs from before the call (blocks().size() when none did).
    qsizetype update(QStringView text, bool complete);
    void reset() { m_blocks.clear(); }
    // Characters the last update() parsed (from its last block's start): the
    // cost of one streamed take, bounded by the block rules.
    qsizetype lastParsed() const { return m_lastParsed; }
    const QList<MarkdownBlock> &blocks() const { return m_blocks; }

private:
    QList<MarkdownBlock> m_blocks;
    qsizetype m_lastParsed = 0;
};
