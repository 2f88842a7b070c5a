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

// Where parsing starts: at the start of a line, either in prose with no
// block open, or inside code (the block that starts here) opened by `fence`.
struct ParseStart {
    qsizetype at = 0;
    bool inCode = false;
    QChar fenceChar;
    int fenceLength = 0;
    QString language;
    bool continued = false;
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
    auto openProse = [&](qsizetype at) {
        current = MarkdownBlock();
        current.start = at;
        proseOpen = true;
        pendingBlank = false;
        blockLines = 0;
    };
    auto closeProse = [&] {
        if (proseOpen)
            out->append(current);
        proseOpen = false;
        pendingBlank = false;
    };

    qsizetype pos = from.at;
    while (pos < text.size() || (pos == text.size() && inCode && false)) {
        const qsizetype newline = text.indexOf(u'\n', pos);
        const bool whole = newline >= 0 || complete;
        const qsizetype lineEnd = newline >= 0 ? newline : text.size();
        const QStringView line = text.mid(pos, lineEnd - pos);
        const qsizetype next = newline >= 0 ? newline + 1 : text.size();

        if (!whole) {
            // The last line of a growing text: shown, decides nothing yet.
            if (inCode) {
                current.length = lineEnd - current.start;
            } else if (!isBlank(line)) {
                if (!proseOpen)
                    openProse(pos);
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
        }
    }
    QList<MarkdownBlock> tail;
    parse(text, from, complete, &tail);
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
