// ReplyDetails: what a stored reply says about itself (model, token counts,
// speed, state and the settings it was written with), as the text the
// reply's details tooltip shows. The settings are named through the
// settings field table's summaries.
#pragma once

#include <QCoreApplication>
#include <QString>

struct MessageRecord;

class ReplyDetails {
    Q_DECLARE_TR_FUNCTIONS(ReplyDetails)

public:
    // "" for a message that is not a reply.
    static QString describe(const MessageRecord &message);
};
