#include "markdownblocks.h"

#include <QVariantMap>

namespace {

// A fence line: up to 3 spaces, then 3+ backticks or tildes. Sets the fence
// character and length; `info` gets the rest of the line.
bool isFence(const QString &line, QChar *fenceChar, int *fenceLength, QString *info)
{
    int i = 0;
    while (i < line.size() && i < 4 && line.at(i) == QLatin1Char(' '))
        ++i;
    if (i > 3 || i >= line.size())
        return false;
    const QChar c = line.at(i);
    if (c != QLatin1Char('`') && c != QLatin1Char('~'))
        return false;
    int n = 0;
    while (i + n < line.size() && line.at(i + n) == c)
        ++n;
    if (n < 3)
        return false;
    const QString rest = line.mid(i + n).trimmed();
    if (c == QLatin1Char('`') && rest.contains(QLatin1Char('`')))
        return false;
    *fenceChar = c;
    *fenceLength = n;
    *info = rest;
    return true;
}

} // namespace

QList<MarkdownBlock> splitMarkdown(const QString &markdown)
{
    QList<MarkdownBlock> blocks;
    const QStringList lines = markdown.split(QLatin1Char('\n'));
    QStringList current;
    bool inCode = false;
    QChar fenceChar;
    int fenceLength = 0;
    QString language;

    auto flushText = [&] {
        QString text = current.join(QLatin1Char('\n'));
        current.clear();
        if (text.trimmed().isEmpty())
            return;
        blocks.append({MarkdownBlock::Kind::Text, text, QString(), true});
    };

    for (const QString &line : lines) {
        QChar c;
        int n = 0;
        QString info;
        if (!inCode) {
            if (isFence(line, &c, &n, &info)) {
                flushText();
                inCode = true;
                fenceChar = c;
                fenceLength = n;
                language = info.section(QLatin1Char(' '), 0, 0);
            } else {
                current.append(line);
            }
            continue;
        }
        if (isFence(line, &c, &n, &info) && c == fenceChar && n >= fenceLength && info.isEmpty()) {
            blocks.append({MarkdownBlock::Kind::Code, current.join(QLatin1Char('\n')), language, true});
            current.clear();
            inCode = false;
            continue;
        }
        current.append(line);
    }
    if (inCode)
        blocks.append({MarkdownBlock::Kind::Code, current.join(QLatin1Char('\n')), language, false});
    else
        flushText();
    return blocks;
}

QVariantList markdownBlocksToVariant(const QList<MarkdownBlock> &blocks)
{
    QVariantList list;
    list.reserve(blocks.size());
    for (const MarkdownBlock &block : blocks) {
        QVariantMap map;
        map.insert(QStringLiteral("kind"), block.kind == MarkdownBlock::Kind::Code ? QStringLiteral("code")
                                                                                   : QStringLiteral("text"));
        map.insert(QStringLiteral("text"), block.text);
        map.insert(QStringLiteral("language"), block.language);
        list.append(map);
    }
    return list;
}
