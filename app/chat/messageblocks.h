// MessageBlocks: the Markdown blocks of one message, as a list model for the
// message delegate's Repeater (qml/chat/MessageDelegate.qml). While a reply
// streams, grow() re-splits only the last block (MarkdownSplitter): blocks
// before it never change, so their delegates are never rebuilt; the view
// gets rowsInserted for new blocks and dataChanged for the last one.
#pragma once

#include <QAbstractListModel>
#include <QStringList>
#include <QtQml/qqmlregistration.h>

#include "markdownblocks.h"

class MessageBlocks : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("MessageBlocks belong to a MessageModel row")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)

public:
    enum Roles {
        KindRole = Qt::UserRole + 1,  // "text" (Markdown), "plain" (as written) or "code"
        TextRole,                     // prose Markdown, or the code without fences
        LanguageRole,                 // code: the fence's info string
        ClosedRole,                   // code: its closing fence has come
        ContinuedRole,                // code: goes on from the block before (no header)
        ContinuesRole,                // code: the next block goes on with it (no bottom edge)
    };
    Q_ENUM(Roles)

    explicit MessageBlocks(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    // Prose shown as written, line breaks kept, no Markdown ("plain" blocks):
    // a person's own messages. Code fences still make code blocks.
    void setPlainProse(bool plain) { m_plainProse = plain; }

    // The blocks of `text` from scratch (a stored message, an edit).
    void reset(QStringView text, bool complete);
    // `text` is the text of the last call with more at its end.
    // Cost: the last block and what was appended.
    void grow(QStringView text, bool complete);

    const QList<MarkdownBlock> &blocks() const { return m_splitter.blocks(); }
    // The whole code of the box `row` belongs to (all its continued blocks), for Copy.
    Q_INVOKABLE QString codeAt(int row) const;

Q_SIGNALS:
    void countChanged();

private:
    bool continues(int row) const;

    MarkdownSplitter m_splitter;
    bool m_plainProse = false;
    QStringList m_texts;   // each block's text (the view's pieces of the message)
};
