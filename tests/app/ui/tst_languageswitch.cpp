// Switching the language live, through Settings → Language by real key
// presses, in a window with chats, a reply and a model: every string the
// window shows is then checked against the catalogue (i18n/burrow_zh_CN.ts):
// in Chinese none may still be an English source string the catalogue
// translates, or one of Qt's own English button and file-dialog strings; back
// in English none may be a Chinese translation. The chat settings, About and
// the import file dialog are opened and checked too, and the menus' Alt
// letters still open them. On main: context hints, "Automatic (from the
// model)", the reply stats, the chat list's "Today" and "New chat" stayed in
// the old language, and Qt's Close/Open/Cancel stayed English.
#include "uiharness.h"
#include "apptestsupport.h"
#include "language/language.h"

#include <QDir>
#include <QRegularExpression>
#include <QSettings>
#include <QXmlStreamReader>

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

// One way of writing a catalogue string, as a pattern over a whole shown
// text: its placeholders (%1, %L2, %n) stand for any text.
struct Pattern {
    QString text;
    QRegularExpression re;      // the whole shown text
    QRegularExpression inside;  // a part of it (sentences only: "prompt: %1 new, %2 reused")
};

// Whether a catalogue string is a sentence of its own, long enough to be
// recognised inside a longer shown text (a glued status line): three words.
bool isSentence(const QString &text)
{
    static const QRegularExpression word(QStringLiteral("[A-Za-z]{2,}"));
    qsizetype words = 0;
    for (auto it = word.globalMatch(text); it.hasNext(); it.next())
        ++words;
    return words >= 3;
}

QRegularExpression patternFor(const QString &text, bool whole = true)
{
    static const QRegularExpression placeholder(QStringLiteral("%L?(\\d{1,2}|n)"));
    QString re;
    qsizetype at = 0;
    for (auto it = placeholder.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        re += QRegularExpression::escape(text.mid(at, m.capturedStart() - at)) + QStringLiteral(".+?");
        at = m.capturedEnd();
    }
    re += QRegularExpression::escape(text.mid(at));
    if (!whole)
        return QRegularExpression(re, QRegularExpression::DotMatchesEverythingOption);
    return QRegularExpression(QStringLiteral("\\A") + re + QStringLiteral("\\z"),
                              QRegularExpression::DotMatchesEverythingOption);
}
Pattern makePattern(const QString &text)
{
    return {text, patternFor(text), isSentence(text) ? patternFor(text, false) : QRegularExpression()};
}

// Text that identifies a language: three letters or one Han character,
// once the placeholders are out (a pattern of placeholders alone, "%1 (%2)",
// matches anything).
bool worthMatching(const QString &text)
{
    static const QRegularExpression placeholder(QStringLiteral("%L?(\\d{1,2}|n)"));
    static const QRegularExpression words(QStringLiteral("[A-Za-z]{3}|[\\x{4e00}-\\x{9fff}]"));
    QString rest = text;
    rest.remove(placeholder);
    return rest.contains(words);
}

// The English sources and the translations of i18n/burrow_<language>.ts
// that differ (a name such as "Burrow" reads the same in both).
void readCatalogue(const QString &language, QList<Pattern> *english, QList<Pattern> *translated)
{
    QFile file(QStringLiteral(BURROW_SOURCE_DIR "/i18n/burrow_%1.ts").arg(language));
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
    QXmlStreamReader xml(&file);
    QString source;
    QStringList translations;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            if (xml.name() == u"message") {
                source.clear();
                translations.clear();
            } else if (xml.name() == u"source") {
                source = xml.readElementText();
            } else if (xml.name() == u"translation" && xml.attributes().value(QLatin1String("type")).isEmpty()) {
                const QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
                if (!text.trimmed().isEmpty())
                    translations << text.trimmed();
            } else if (xml.name() == u"numerusform") {
                translations << xml.readElementText();
            }
        } else if (xml.isEndElement() && xml.name() == u"message") {
            for (const QString &t : std::as_const(translations)) {
                if (t == source)
                    continue;
                if (worthMatching(source))
                    english->append(makePattern(source));
                if (worthMatching(t))
                    translated->append(makePattern(t));
            }
        }
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(english->size() > 300);
}

// The texts the window shows: every shown Text/Label/button/menu text,
// field placeholder, the window title. Message bodies (TextEdit: the user's
// and the model's words) are not the catalogue's.
QStringList shownTexts(QQuickItem *item, const QString &leaveOut)
{
    QStringList texts;
    if (!item || !item->isVisible() || item->opacity() == 0 || (!leaveOut.isEmpty() && item->objectName() == leaveOut))
        return texts;
    if (!item->inherits("QQuickTextEdit")) {
        for (const char *property : {"text", "title", "placeholderText"}) {
            const QVariant value = item->property(property);
            if (value.typeId() == QMetaType::QString && !value.toString().trimmed().isEmpty())
                texts << value.toString();
        }
    }
    const QList<QQuickItem *> children = item->childItems();
    for (QQuickItem *child : children)
        texts << shownTexts(child, leaveOut);
    return texts;
}

// Qt's own English strings the window can show (dialog buttons, the file dialog).
const QStringList kQtStrings = {QStringLiteral("OK"), QStringLiteral("Cancel"), QStringLiteral("Close"),
                                QStringLiteral("Open"), QStringLiteral("Save"), QStringLiteral("Filter"),
                                QStringLiteral("File name")};

} // namespace

class TestLanguageSwitch : public QObject {
    Q_OBJECT
    QList<Pattern> m_english;      // sources zh_CN translates
    QList<Pattern> m_chinese;      // their zh_CN translations

    // The shown texts that are in the other language, one per line ("" when
    // none); the status line's reply summary is left out (staleStatus()).
    QString stale(AppWindow &app, bool inChinese)
    {
        QStringList texts = shownTexts(app.window->contentItem(), QStringLiteral("statusSpeed"));
        texts << app.window->title();
        return staleAmong(texts, inChinese);
    }
    // The same for the status line's reply summary alone.
    QString staleStatus(AppWindow &app, bool inChinese)
    {
        QQuickItem *status = app.find(QStringLiteral("statusSpeed"));
        return status ? staleAmong({status->property("text").toString()}, inChinese) : QString();
    }
    QString staleAmong(const QStringList &texts, bool inChinese)
    {
        QStringList found;
        for (const QString &text : std::as_const(texts)) {
            const QList<Pattern> &other = inChinese ? m_english : m_chinese;
            for (const Pattern &p : other) {
                if (p.re.match(text).hasMatch() || (p.inside.isValid() && !p.inside.pattern().isEmpty()
                                                     && p.inside.match(text).hasMatch())) {
                    found << QStringLiteral("\"%1\" (catalogue: \"%2\")").arg(text, p.text);
                    break;
                }
            }
            if (inChinese && kQtStrings.contains(QString(text).remove(u'&')))
                found << QStringLiteral("\"%1\" (Qt's own)").arg(text);
        }
        found.removeDuplicates();
        return found.join(u'\n');
    }

    // Settings → Language → the `row`-th entry (System, English, 简体中文, 繁體中文), by keys.
    void chooseLanguage(AppWindow &app, int row, const QString &expected)
    {
        QVERIFY(ui::key(QStringLiteral("alt+s")));
        QVERIFY(ui::key(QStringLiteral("l")));        // Language (a submenu: highlighted)
        QVERIFY(ui::key(QStringLiteral("Right")));    // opened, its first entry marked
        for (int i = 0; i < row; ++i)
            QVERIFY(ui::key(QStringLiteral("Down")));
        QVERIFY(ui::key(QStringLiteral("Return")));
        QTRY_COMPARE(Language::instance()->current(), expected);
        QTest::qWait(300);   // the bindings and the rebuilt menus settle
        Q_UNUSED(app);
    }

    // Opens a popup by keys, checks what it shows, closes it with Escape.
    void checkPopup(AppWindow &app, const QString &keys, const QString &objectName, bool inChinese)
    {
        QVERIFY(ui::key(keys));
        QObject *popup = nullptr;
        QTRY_VERIFY2((popup = app.window->findChild<QObject *>(objectName)) && popup->property("visible").toBool(),
                      qPrintable(objectName));
        const QString found = stale(app, inChinese);
        QVERIFY2(found.isEmpty(), qPrintable(objectName + QStringLiteral(" shows the other language:\n") + found));
        QVERIFY(ui::key(QStringLiteral("Escape")));
        QTRY_VERIFY(!popup->property("visible").toBool());
    }

private slots:
    void initTestCase()
    {
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        readCatalogue(QStringLiteral("zh_CN"), &m_english, &m_chinese);
        QSettings().setValue(QStringLiteral("chat/defaults"), QStringLiteral("{\"maxTokens\":8}"));
        Language::instance()->setChoice(QStringLiteral("en"));
    }
    void init() { failOnQmlErrors(); }
    void cleanup() { ui::keepScreenshotOnFailure(); }

    void everyShownStringFollows()
    {
        AppWindow app;
        ui::ScreenshotOnFailure screenshot;
        QVERIFY(app.open());
        QTRY_VERIFY(app.chat->store()->isReady());
        QSignalSpy loaded(app.chat, &ChatController::loadFinished);
        app.chat->models()->openFile(sharedPath(QStringLiteral("models/stories260K.gguf")), false);
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 20000);

        // A chat with a reply (its stats shown), then a new chat (untitled: "New chat").
        QVERIFY(ui::type(QStringLiteral("Once upon a time")));
        QVERIFY(ui::key(QStringLiteral("Return")));
        auto *messages = app.find(QStringLiteral("messageList"));
        QTRY_VERIFY_WITH_TIMEOUT(!app.chat->reply()->isActive() && messages->property("count").toInt() == 2, 30000);
        QTRY_VERIFY(ui::findShown(messages, [](QQuickItem *i) {
            return i->objectName() == QLatin1String("messageStats") && !i->property("text").toString().isEmpty();
        }));
        QVERIFY(stale(app, false).isEmpty());

        chooseLanguage(app, 2, QStringLiteral("zh_CN"));
        if (QTest::currentTestFailed())
            return;
        QString found = stale(app, true);
        QVERIFY2(found.isEmpty(), qPrintable(QStringLiteral("still in English:\n") + found));
        // The status line's summary of the last reply is ReplyStream's
        // lastReplyStats, a string made once when the reply ended
        // (app/chat/replystream.cpp, the backend half of issue 26): it stays
        // in the old language until the next reply. An XPASS here means it
        // is now made when read: remove this QEXPECT_FAIL.
        found = staleStatus(app, true);
        QEXPECT_FAIL("", "ReplyStream::lastReplyStats is made once, when the reply ends", Continue);
        QVERIFY2(found.isEmpty(), qPrintable(QStringLiteral("the reply summary is still in English:\n") + found));
        // The Alt letters still open the menus, and the dialogs follow.
        checkPopup(app, QStringLiteral("alt+c e"), QStringLiteral("chatSettingsDrawer"), true);
        if (QTest::currentTestFailed())
            return;
        checkPopup(app, QStringLiteral("alt+h a"), QStringLiteral("aboutDialog"), true);
        if (QTest::currentTestFailed())
            return;
        checkPopup(app, QStringLiteral("alt+f i"), QStringLiteral("importDialog"), true);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(ui::key(QStringLiteral("ctrl+n")));
        QTRY_VERIFY(messages->property("count").toInt() == 0);
        found = stale(app, true);
        QVERIFY2(found.isEmpty(), qPrintable(QStringLiteral("still in English (a new chat):\n") + found));

        chooseLanguage(app, 1, QStringLiteral("en"));
        if (QTest::currentTestFailed())
            return;
        found = stale(app, false);
        QVERIFY2(found.isEmpty(), qPrintable(QStringLiteral("still in Chinese:\n") + found));
        checkPopup(app, QStringLiteral("alt+c e"), QStringLiteral("chatSettingsDrawer"), false);
        if (QTest::currentTestFailed())
            return;
        checkPopup(app, QStringLiteral("alt+h a"), QStringLiteral("aboutDialog"), false);
        if (QTest::currentTestFailed())
            return;
    }

    void cleanupTestCase() { Language::instance()->setChoice(QString()); }
};

BURROW_UI_TEST_MAIN(TestLanguageSwitch)
#include "tst_languageswitch.moc"
