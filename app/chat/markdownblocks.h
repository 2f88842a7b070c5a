// Splits a Markdown message into blocks the chat view renders separately:
// prose (shown as Markdown) and fenced code (shown monospace with a Copy
// button). Cost: one pass over the text; an unclosed fence (a reply still
// streaming) makes a code block up to the end.
#pragma once

#include <QList>
#include <QString>
#include <QVariantList>

struct MarkdownBlock {
    enum class Kind { Text, Code };
    Kind kind = Kind::Text;
    QString text;        // prose: Markdown; code: the code without fences
    QString language;    // info string of the fence ("cpp"), may be empty
    bool closed = true;  // false: a code fence that has not ended yet

    bool operator==(const MarkdownBlock &) const = default;
};

QList<MarkdownBlock> splitMarkdown(const QString &markdown);

// The blocks as QML reads them: [{kind: "text"|"code", text, language}].
QVariantList markdownBlocksToVariant(const QList<MarkdownBlock> &blocks);
