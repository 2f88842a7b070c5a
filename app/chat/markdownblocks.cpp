#include "markdownblocks.h"

namespace {

// A fence line: up to 3 spaces, then 3+ backticks or tildes. Sets the fence
// character and length; `info` gets the rest of the line, trimmed.
bool isFence(QStringView line, QChar *fenceChar, int *fenceLength, QStringView *info)
{
    qsizetype i = 0;
    while (i < line.size() && i < 4 && line.at(i) == u' ')
        ++i;
    if (i > 3 || i >= line.size())
        return false;
    const QChar c = line.at(i);
    if (c != u'`' && c != u'~')
        return false;
    qsizetype n = 0;
    while (i + n < line.size() && line.at(i + n) == c)
        ++n;
    if (n < 3)
        return false;
    const QStringView rest = line.mid(i + n).trimmed();
    if (c == u'`' && rest.contains(u'`'))
        return false;
    *fenceChar = c;
    *fenceLength = int(n);
    *info = rest;
    return true;
}

bool isBlank(QStringView line)
{
    return line.trimmed().isEmpty();
}

bool startsWithSpace(QStringView line)
{
    return !line.isEmpty() && (line.front() == u' ' || line.front() == u'\t');
}

// "- ", "* ", "+ ", "12. ", "3) " or "#" at the very start of the line.
bool startsListItemOrHeading(QStringView line)
{
    if (line.isEmpty())
        return false;
    const QChar c = line.front();
    if (c == u'#')
        return true;
    if ((c == u'-' || c == u'*' || c == u'+') && line.size() > 1 && line.at(1) == u' ')
        return true;
    qsizetype digits = 0;
    while (digits < line.size() && digits < 9 && line.at(digits).isDigit())
        ++digits;
    return digits > 0 && digits + 1 < line.size() && (line.at(digits) == u'.' || line.at(digits) == u')')
        && line.at(digits + 1) == u' ';
}

// Inline markup of a prose block so far, to cut a long paragraph only where
// nothing is open (a code span, emphasis, a link's text).
struct InlineMarks {
    int backticks = 0;   // parity decides: a code span is open when odd
    int doubleStars = 0, singleStars = 0, doubleUnderscores = 0;
    int openBrackets = 0;
    QChar previous;

    void take(QChar c)
    {
        if (c == u'`') {
            ++backticks;
        } else if (backticks % 2 == 0) {
            if (c == u'*') {
                if (previous == u'*') {
                    --singleStars;   // the pair is a double, not two singles
                    ++doubleStars;
                } else {
                    ++singleStars;
                }
            } else if (c == u'_' && previous == u'_') {
                ++doubleUnderscores;
            } else if (c == u'[') {
                ++openBrackets;
            } else if (c == u']' && openBrackets > 0) {
                --openBrackets;
            }
        }
        previous = (c == u'*' && previous == u'*') ? QChar() : c;   // "***" is a double and a single
    }
    bool balanced() const
    {
        return backticks % 2 == 0 && doubleStars % 2 == 0 && singleStars % 2 == 0 && doubleUnderscores % 2 == 0
            && openBrackets == 0;
    }
};

// A sentence ends just before `q` (text[q - 1] is a space after ".", "!" or
// "?", perhaps closed by a quote or bracket; or is a full-width "。", "！",
// "？", which need no space) and the next one starts at q.
bool sentenceStartsAt(QStringView text, qsizetype q)
{
    if (q < 1 || q >= text.size() || text.at(q).isSpace())
        return false;
    const QChar before = text.at(q - 1);
    if (before == QChar(0x3002) || before == QChar(0xFF01) || before == QChar(0xFF1F))
        return true;
    if (q < 2 || before != u' ')
        return false;
    qsizetype e = q - 2;
    if (e > 0 && (text.at(e) == u'"' || text.at(e) == u'\'' || text.at(e) == u')' || text.at(e) == QChar(0x201D)
                  || text.at(e) == QChar(0x2019)))
        --e;
    const QChar c = text.at(e);
    return c == u'.' || c == u'!' || c == u'?';
}

// Where parsing starts: at the start of a line, either in prose with no
// block open, or inside code (the block that starts here) opened by `fence`;
// or inside a line, at a prose block that continues a long paragraph.
struct ParseStart {
    qsizetype at = 0;
    bool inCode = false;
    QChar fenceChar;
    int fenceLength = 0;
    QString language;
    bool continued = false;
    bool midLine = false;   // prose continued inside a line: its first segment is not a new line
};

// Appends the blocks of text[from.at..] to *out (the rules in the header).
void parse(QStringView text, const ParseStart &from, bool complete, QList<MarkdownBlock> *out)
{
    bool inCode = from.inCode;
    bool proseOpen = false;
    bool pendingBlank = false;   // prose: blank line(s) since the block's last line
    int blockLines = 0;          // whole lines in the current block
    MarkdownBlock current;
    if (inCode) {
        current.kind = MarkdownBlock::Kind::Code;
        current.start = from.at;
        current.language = from.language;
        current.closed = false;
        current.continued = from.continued;
        current.fenceChar = from.fenceChar;
        current.fenceLength = from.fenceLength;
    }
    InlineMarks marks;
    auto openProse = [&](qsizetype at) {
        current = MarkdownBlock();
        current.start = at;
        proseOpen = true;
        pendingBlank = false;
        blockLines = 0;
        marks = InlineMarks();
    };
    // A prose segment [from, to) of the current block: cut the paragraph
    // after a sentence once the block is MaxProseChars long and no inline
    // markup is open; the rest goes on in a `continued` block. Decided by
    // the text up to the next sentence's first character, so appending never
    // moves a cut.
    auto proseSegment = [&](qsizetype from, qsizetype to) {
        for (qsizetype q = from; q < to; ++q) {
            const qsizetype length = q - current.start;
            // After a sentence; in a run of twice the length without one,
            // before any word (text without sentences: generated lists of
            // words, a random model's output).
            const bool cut = length >= MarkdownSplitter::MaxProseChars && marks.balanced()
                && (sentenceStartsAt(text, q)
                    || (length >= 2 * MarkdownSplitter::MaxProseChars && text.at(q - 1) == u' ' && !text.at(q).isSpace()));
            if (cut) {
                current.length = q - current.start;
                out->append(current);
                openProse(q);
                current.continued = true;
            }
            marks.take(text.at(q));
        }
    };
    auto closeProse = [&] {
        if (proseOpen)
            out->append(current);
        proseOpen = false;
        pendingBlank = false;
    };

    qsizetype pos = from.at;
    bool midLine = from.midLine && !inCode;
    if (midLine) {
        openProse(pos);
        current.continued = true;
    }
    while (pos < text.size() || (pos == text.size() && inCode && false)) {
        const qsizetype newline = text.indexOf(u'\n', pos);
        const bool whole = newline >= 0 || complete;
        const qsizetype lineEnd = newline >= 0 ? newline : text.size();
        const QStringView line = text.mid(pos, lineEnd - pos);
        const qsizetype next = newline >= 0 ? newline + 1 : text.size();

        if (midLine) {
            // The rest of a line whose paragraph was cut: prose, whatever it starts with.
            midLine = false;
            proseSegment(pos, lineEnd);
            current.length = lineEnd - current.start;
            if (whole)
                ++blockLines;
            pos = next;
            if (newline < 0)
                break;
            continue;
        }

        if (!whole) {
            // The last line of a growing text: shown, decides nothing yet
            // (but a long paragraph's sentences, see proseSegment).
            if (inCode) {
                current.length = lineEnd - current.start;
            } else if (!isBlank(line)) {
                // Cut inside it only once it is known which block the line
                // belongs to. After a blank line its first character tells
                // (no space: a new block, whatever the line turns out to be);
                // a line that may still become a fence, or a list item after
                // a long block, is undecided until its newline.
                const QChar first = line.trimmed().isEmpty() ? QChar() : line.trimmed().front();
                const bool mayBeFence = first == u'`' || first == u'~';
                bool decided = !mayBeFence;
                if (!proseOpen) {
                    openProse(pos);
                } else if (pendingBlank && !startsWithSpace(line)) {
                    closeProse();   // a blank line, then a line that starts at the margin
                    openProse(pos);
                } else {
                    decided = decided && !pendingBlank && blockLines < MarkdownSplitter::MaxLines;
                }
                if (decided)
                    proseSegment(pos, lineEnd);
                current.length = lineEnd - current.start;
            }
            break;
        }

        QChar c;
        int n = 0;
        QStringView info;
        if (inCode) {
            if (isFence(line, &c, &n, &info) && c == current.fenceChar && n >= current.fenceLength
                && info.isEmpty()) {
                current.closed = true;
                out->append(current);
                inCode = false;
            } else {
                if (blockLines >= MarkdownSplitter::MaxLines) {
                    // A long code block goes on in a new block of the same box.
                    out->append(current);
                    current.start = pos;
                    current.length = 0;
                    current.continued = true;
                    blockLines = 0;
                }
                current.length = lineEnd - current.start;
                ++blockLines;
            }
        } else if (isFence(line, &c, &n, &info)) {
            closeProse();
            current = MarkdownBlock();
            current.kind = MarkdownBlock::Kind::Code;
            current.start = next;
            current.closed = false;
            current.fenceChar = c;
            current.fenceLength = n;
            current.language = info.toString().section(u' ', 0, 0);
            inCode = true;
            blockLines = 0;
        } else if (isBlank(line)) {
            pendingBlank = proseOpen;
        } else {
            if (!proseOpen) {
                openProse(pos);
            } else if ((pendingBlank && !startsWithSpace(line))
                       || (blockLines >= MarkdownSplitter::MaxLines && startsListItemOrHeading(line))) {
                closeProse();
                openProse(pos);
            }
            proseSegment(pos, lineEnd);
            current.length = lineEnd - current.start;
            pendingBlank = false;
            ++blockLines;
        }
        pos = next;
        if (newline < 0)
            break;
    }
    if (inCode) {
        if (current.start > text.size())   // a fence as the very last line: empty code at the end
            current.start = text.size();
        out->append(current);
    } else {
        closeProse();
    }
}

} // namespace

QList<MarkdownBlock> splitMarkdown(QStringView markdown, bool complete)
{
    QList<MarkdownBlock> blocks;
    parse(markdown, ParseStart(), complete, &blocks);
    return blocks;
}

qsizetype MarkdownSplitter::update(QStringView text, bool complete)
{
    // The blocks before the last are final; parsing resumes where the last began.
    const qsizetype keep = m_blocks.isEmpty() ? 0 : m_blocks.size() - 1;
    ParseStart from;
    if (!m_blocks.isEmpty()) {
        const MarkdownBlock &last = m_blocks.last();
        from.at = last.start;
        if (last.kind == MarkdownBlock::Kind::Code) {
            from.inCode = true;
            from.fenceChar = last.fenceChar;
            from.fenceLength = last.fenceLength;
            from.language = last.language;
            from.continued = last.continued;
        } else if (last.continued) {
            from.midLine = true;   // a cut paragraph goes on here, inside its line
        }
    }
    QList<MarkdownBlock> tail;
    parse(text, from, complete, &tail);
    m_lastParsed = text.size() - from.at;
    qsizetype firstChanged = keep;
    while (firstChanged - keep < tail.size() && firstChanged < m_blocks.size()
           && m_blocks.at(firstChanged) == tail.at(firstChanged - keep))
        ++firstChanged;
    if (firstChanged - keep == tail.size() && firstChanged == m_blocks.size())
        return m_blocks.size();   // nothing changed
    m_blocks.resize(keep);
    m_blocks.append(tail);
    return firstChanged;
}
