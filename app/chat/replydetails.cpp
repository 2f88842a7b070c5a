#include "replydetails.h"

#include <QLocale>
#include <QStringList>

#include "settings/settingsfields.h"
#include "storage/records.h"

QString ReplyDetails::describe(const MessageRecord &m)
{
    if (m.id < 0 || m.role != Chat::Role::Assistant)
        return QString();
    const QLocale locale;
    QStringList lines;
    if (!m.model.isEmpty())
        lines << tr("Model: %1").arg(m.model);
    QStringList counts;
    if (m.promptTokens >= 0)
        counts << tr("prompt: %1 tokens").arg(m.promptTokens);
    if (m.generatedTokens >= 0)
        counts << tr("reply: %1 tokens").arg(m.generatedTokens);
    if (m.tokensPerSecond >= 0)
        counts << tr("%1 tokens/s").arg(locale.toString(m.tokensPerSecond, 'f', 1));
    if (!counts.isEmpty())
        lines << counts.join(QStringLiteral(" · "));
    // Speculative decoding: how many guessed tokens the model checked and kept.
    // The speed-up in passes: a pass verifying drafts wrote its accepted
    // ones and one token of its own, any other pass one token, so the
    // model ran generated - accepted passes where plain decoding runs one
    // per token.
    if (m.draftedTokens > 0) {
        QString line = tr("Drafted: %1 tokens, %2 accepted (%3 %)")
                           .arg(m.draftedTokens)
                           .arg(m.acceptedTokens)
                           .arg(locale.toString(100.0 * m.acceptedTokens / m.draftedTokens, 'f', 0));
        if (m.generatedTokens > 0 && m.acceptedTokens > 0 && m.acceptedTokens < m.generatedTokens)
            line += tr(" · %1 tokens per pass of the model (1 without drafts)")
                        .arg(locale.toString(double(m.generatedTokens) / double(m.generatedTokens - m.acceptedTokens), 'f', 2));
        lines << line;
    }
    else if (m.draftedTokens == 0)
        lines << tr("Drafted: none");
    switch (m.state) {
    case Chat::State::Interrupted: lines << tr("Interrupted: Burrow stopped while this reply was being written."); break;
    case Chat::State::Stopped: lines << tr("Stopped before the end."); break;
    case Chat::State::Failed: lines << tr("Failed: %1").arg(m.error); break;
    case Chat::State::Streaming: lines << tr("Being written…"); break;
    case Chat::State::Complete: break;
    }
    const QJsonObject &s = m.settings;
    QStringList used;
    for (const SettingsField &f : SettingsFields::all()) {
        const QString name = QLatin1String(f.name);
        if (name == QLatin1String("randomSeed") || name == QLatin1String("seed")) {
            if (name == QLatin1String("seed") && s.contains(QLatin1String("randomSeed")))
                used << (s.value(QLatin1String("randomSeed")).toBool()
                             ? tr("random seed")
                             : tr("seed %1").arg(qint64(s.value(QLatin1String("seed")).toDouble())));
            continue;
        }
        if (!f.summary || !s.contains(name))
            continue;
        const QString summary = QCoreApplication::translate("ChatSettings", f.summary);
        if (f.kind == SettingsField::Kind::Choice) {
            // A choice is named only when it is not the built-in one ("auto").
            const QString value = s.value(name).toString();
            if (!value.isEmpty() && value != f.builtIn.toString())
                used << summary.arg(value);
        } else if (f.kind == SettingsField::Kind::Boolean) {
            // Likewise a switch: "thinking off".
            const bool on = s.value(name).toBool();
            if (on != f.builtIn.toBool())
                used << summary.arg(on ? tr("on") : tr("off"));
        } else {
            used << summary.arg(locale.toString(s.value(name).toDouble(), 'g', 6));
        }
    }
    if (!used.isEmpty())
        lines << tr("Settings: %1").arg(used.join(QStringLiteral(", ")));
    lines << tr("Written %1").arg(locale.toString(m.updated.toLocalTime(), QLocale::ShortFormat));
    return lines.join(QLatin1Char('\n'));
}
