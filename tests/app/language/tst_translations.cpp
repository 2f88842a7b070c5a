// The translation files in i18n/: nothing unfinished, empty or left over,
// plural forms complete, placeholders and accelerators kept, and every
// string that lupdate finds in app/ and qml/ present (nothing missing).
#include <QDir>
#include <QFile>
#include <QHash>
#include <QLibraryInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

namespace {

struct Message {
    QString context;
    QString source;
    QString comment;
    bool numerus = false;
    QString type; // "" when finished; "unfinished", "vanished", "obsolete"
    QString translation;
    QStringList forms; // numerus forms
    QString key() const { return context + QChar(u'\x1f') + source + QChar(u'\x1f') + comment; }
};

struct TsFile {
    QString language;
    QString sourceLanguage;
    QList<Message> messages;
    QString error;
};

TsFile readTs(const QString &path)
{
    TsFile ts;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        ts.error = QStringLiteral("cannot open %1").arg(path);
        return ts;
    }
    QXmlStreamReader xml(&file);
    QString context;
    Message message;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto name = xml.name();
            if (name == u"TS") {
                ts.language = xml.attributes().value(QLatin1String("language")).toString();
                ts.sourceLanguage = xml.attributes().value(QLatin1String("sourcelanguage")).toString();
            } else if (name == u"name") {
                context = xml.readElementText();
            } else if (name == u"message") {
                message = Message{};
                message.context = context;
                message.numerus = xml.attributes().value(QLatin1String("numerus")) == u"yes";
            } else if (name == u"source") {
                message.source = xml.readElementText();
            } else if (name == u"comment") {
                message.comment = xml.readElementText();
            } else if (name == u"translation") {
                message.type = xml.attributes().value(QLatin1String("type")).toString();
                if (!message.numerus)
                    message.translation = xml.readElementText();
            } else if (name == u"numerusform") {
                message.forms << xml.readElementText();
            }
        } else if (xml.isEndElement() && xml.name() == u"message") {
            ts.messages << message;
        }
    }
    if (xml.hasError())
        ts.error = QStringLiteral("%1:%2: %3").arg(path).arg(xml.lineNumber()).arg(xml.errorString());
    return ts;
}

// %1..%99 (also %L1) and %n, sorted: a translation must keep every one.
QStringList placeholders(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("%L?(\\d{1,2}|n)"));
    QStringList found;
    for (auto it = re.globalMatch(text); it.hasNext();)
        found << it.next().captured(0);
    found.sort();
    return found;
}

// Markup tags (<b>, </a>, <br/>...), sorted.
QStringList tags(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("</?[a-zA-Z][^<>]*>"));
    QStringList found;
    for (auto it = re.globalMatch(text); it.hasNext();)
        found << it.next().captured(0);
    found.sort();
    return found;
}

// A menu accelerator: "&" before a letter ("&&" is a literal ampersand).
bool hasAccelerator(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("(^|[^&])&[^&\\s]"));
    return re.match(text).hasMatch();
}

// How many plural forms a language has (Qt's rules: Chinese one, English two).
int pluralForms(const QString &language)
{
    return language.startsWith(QLatin1String("zh")) ? 1 : 2;
}

QString i18nDir()
{
    return QStringLiteral(BURROW_SOURCE_DIR "/i18n");
}

QString findLupdate()
{
    const QStringList candidates = {
        QLibraryInfo::path(QLibraryInfo::BinariesPath) + QStringLiteral("/lupdate"),
        QStringLiteral("/usr/lib/qt6/bin/lupdate"),
        QStandardPaths::findExecutable(QStringLiteral("lupdate6")),
    };
    for (const QString &candidate : candidates) {
        if (!candidate.isEmpty() && QFile::exists(candidate))
            return candidate;
    }
    return QString();
}

} // namespace

class TestTranslations : public QObject {
    Q_OBJECT
private slots:
    void languagesArePresent()
    {
        const QStringList files = QDir(i18nDir()).entryList({QStringLiteral("*.ts")}, QDir::Files, QDir::Name);
        QCOMPARE(files, (QStringList{QStringLiteral("burrow_en.ts"), QStringLiteral("burrow_zh_CN.ts"),
                                     QStringLiteral("burrow_zh_TW.ts")}));
    }

    void complete_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("language");
        QTest::newRow("en") << QStringLiteral("burrow_en.ts") << QStringLiteral("en");
        QTest::newRow("zh_CN") << QStringLiteral("burrow_zh_CN.ts") << QStringLiteral("zh_CN");
        QTest::newRow("zh_TW") << QStringLiteral("burrow_zh_TW.ts") << QStringLiteral("zh_TW");
    }

    // Every message translated, nothing unfinished or left behind, plural
    // forms complete, placeholders, markup and accelerators kept.
    void complete()
    {
        QFETCH(QString, file);
        QFETCH(QString, language);
        const TsFile ts = readTs(i18nDir() + QLatin1Char('/') + file);
        QVERIFY2(ts.error.isEmpty(), qPrintable(ts.error));
        QCOMPARE(ts.language, language);
        QCOMPARE(ts.sourceLanguage, QStringLiteral("en"));
        QVERIFY2(!ts.messages.isEmpty(), "no messages");

        QStringList problems;
        const auto where = [](const Message &m) { return QStringLiteral("%1 \"%2\"").arg(m.context, m.source); };
        QSet<QString> seen;
        for (const Message &m : ts.messages) {
            if (seen.contains(m.key()))
                problems << QStringLiteral("twice: %1").arg(where(m));
            seen.insert(m.key());
            if (!m.type.isEmpty()) {
                problems << QStringLiteral("%1: %2").arg(m.type, where(m));
                continue;
            }
            const QStringList texts = m.numerus ? m.forms : QStringList{m.translation};
            if (m.numerus && m.forms.size() != pluralForms(language))
                problems << QStringLiteral("%1 plural forms, expected %2: %3")
                                .arg(m.forms.size()).arg(pluralForms(language)).arg(where(m));
            for (const QString &text : texts) {
                if (text.trimmed().isEmpty()) {
                    problems << QStringLiteral("empty: %1").arg(where(m));
                    continue;
                }
                if (placeholders(text) != placeholders(m.source))
                    problems << QStringLiteral("placeholders %1 in \"%2\", expected %3: %4")
                                    .arg(placeholders(text).join(u' '), text,
                                         placeholders(m.source).join(u' '), where(m));
                if (tags(text) != tags(m.source))
                    problems << QStringLiteral("markup changed in \"%1\": %2").arg(text, where(m));
                if (hasAccelerator(m.source) != hasAccelerator(text))
                    problems << QStringLiteral("accelerator lost or added in \"%1\": %2").arg(text, where(m));
            }
        }
        // English is the source language: its file needs only the plural forms.
        if (language == QLatin1String("en")) {
            for (const Message &m : ts.messages) {
                if (!m.numerus)
                    problems << QStringLiteral("not a plural message in the English file: %1").arg(where(m));
            }
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    }

    // The Chinese translations read as Chinese: most messages that have
    // letters in English carry CJK characters in translation. (Catches an
    // English text pasted as "translation".)
    void chineseIsChinese_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("zh_CN") << QStringLiteral("burrow_zh_CN.ts");
        QTest::newRow("zh_TW") << QStringLiteral("burrow_zh_TW.ts");
    }
    void chineseIsChinese()
    {
        QFETCH(QString, file);
        const TsFile ts = readTs(i18nDir() + QLatin1Char('/') + file);
        QVERIFY2(ts.error.isEmpty(), qPrintable(ts.error));
        static const QRegularExpression cjk(QStringLiteral("[\\x{4e00}-\\x{9fff}]"));
        static const QRegularExpression word(QStringLiteral("[a-z]{4,}"));
        int words = 0;
        QStringList untranslated;
        for (const Message &m : ts.messages) {
            QString english = m.source;
            english.remove(QStringLiteral("Burrow"));
            if (!english.contains(word))
                continue; // "Top-p", "%1%", "Burrow": names and symbols stay as they are
            ++words;
            const QString text = m.numerus ? m.forms.value(0) : m.translation;
            if (!text.contains(cjk))
                untranslated << m.source;
        }
        QVERIFY(words > 100);
        QVERIFY2(untranslated.isEmpty(), qPrintable(QStringLiteral("no Chinese in the translation of:\n")
                                                    + untranslated.join(u'\n')));
    }

    // Traditional and simplified are different files, not copies: the
    // Taiwan file uses Taiwan's words and traditional characters.
    void taiwanVocabulary_data()
    {
        QTest::addColumn<QString>("context");
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("simplified");
        QTest::addColumn<QString>("traditional");
        QTest::newRow("file") << "AppMenuBar" << "&File" << "文件(&F)" << "檔案(&F)";
        QTest::newRow("settings") << "ChatSettingsPanel" << "Chat settings" << "对话设置" << "對話設定";
        QTest::newRow("memory") << "ModelCardDialog" << "Memory needed" << "所需内存" << "所需記憶體";
        QTest::newRow("copy") << "CodeBlock" << "Copy" << "复制" << "複製";
        QTest::newRow("message") << "ChatView" << "Jump to the latest message" << "跳到最新消息" << "跳至最新訊息";
    }
    void taiwanVocabulary()
    {
        QFETCH(QString, context);
        QFETCH(QString, source);
        QFETCH(QString, simplified);
        QFETCH(QString, traditional);
        const auto lookup = [&](const QString &file) {
            const TsFile ts = readTs(i18nDir() + QLatin1Char('/') + file);
            for (const Message &m : ts.messages) {
                if (m.context == context && m.source == source)
                    return m.translation;
            }
            return QString();
        };
        QCOMPARE(lookup(QStringLiteral("burrow_zh_CN.ts")), simplified);
        QCOMPARE(lookup(QStringLiteral("burrow_zh_TW.ts")), traditional);
    }

    // lupdate over app/ and qml/ finds exactly the strings the files hold:
    // none missing (a new qsTr() without translation) and none left over.
    void matchesTheSources()
    {
        const QString lupdate = findLupdate();
        if (lupdate.isEmpty())
            QSKIP("lupdate (qt6-l10n-tools) is not installed");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString fresh = dir.filePath(QStringLiteral("fresh_zh_CN.ts"));
        QProcess process;
        process.setWorkingDirectory(QStringLiteral(BURROW_SOURCE_DIR));
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(lupdate, {QStringLiteral("app"), QStringLiteral("qml"), QStringLiteral("-silent"),
                                QStringLiteral("-locations"), QStringLiteral("none"),
                                QStringLiteral("-source-language"), QStringLiteral("en"),
                                QStringLiteral("-target-language"), QStringLiteral("zh_CN"),
                                QStringLiteral("-ts"), fresh});
        QVERIFY2(process.waitForFinished(120000), qPrintable(process.errorString()));
        QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0,
                 process.readAll().constData());
        const TsFile sources = readTs(fresh);
        QVERIFY2(sources.error.isEmpty(), qPrintable(sources.error));
        QVERIFY2(sources.messages.size() > 100, "lupdate found too few strings in app/ and qml/");

        QHash<QString, Message> wanted;
        for (const Message &m : sources.messages)
            wanted.insert(m.key(), m);

        for (const QString &file : {QStringLiteral("burrow_zh_CN.ts"), QStringLiteral("burrow_zh_TW.ts"),
                                    QStringLiteral("burrow_en.ts")}) {
            const bool english = file == QLatin1String("burrow_en.ts");
            const TsFile ts = readTs(i18nDir() + QLatin1Char('/') + file);
            QVERIFY2(ts.error.isEmpty(), qPrintable(ts.error));
            QSet<QString> have;
            QStringList problems;
            for (const Message &m : ts.messages) {
                have.insert(m.key());
                if (!wanted.contains(m.key()))
                    problems << QStringLiteral("no longer in the sources: %1 \"%2\"").arg(m.context, m.source);
                else if (wanted.value(m.key()).numerus != m.numerus)
                    problems << QStringLiteral("plural form changed: %1 \"%2\"").arg(m.context, m.source);
            }
            for (const Message &m : sources.messages) {
                if (english && !m.numerus)
                    continue;
                if (!have.contains(m.key()))
                    problems << QStringLiteral("missing: %1 \"%2\"").arg(m.context, m.source);
            }
            if (!problems.isEmpty())
                problems << QStringLiteral("run i18n/update.sh and translate (docs/translations.md)");
            QVERIFY2(problems.isEmpty(), qPrintable(file + QStringLiteral(":\n") + problems.join(u'\n')));
        }
    }
};

QTEST_GUILESS_MAIN(TestTranslations)
#include "tst_translations.moc"
