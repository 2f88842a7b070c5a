// ChatSettings and DefaultSettings: validation of every field, defaults and
// reset, JSON round trip, engine parameters, persistence of the defaults.
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "settings/chatsettings.h"
#include "storage/conversationstore.h"
#include "settings/defaultsettings.h"
#include "archive/conversationbundle.h"

#include <QDir>

class TestChatSettings : public QObject {
    Q_OBJECT

private slots:
    void builtInDefaultsAreValid()
    {
        ChatSettings s;
        QVERIFY(s.isValid());
        QVERIFY(s.errors().isEmpty());
        QVERIFY(s.changedFields().isEmpty());
        QCOMPARE(s.temperature(), 0.8);
        QCOMPARE(s.topP(), 0.95);
        QCOMPARE(s.topK(), 40);
        QCOMPARE(s.minP(), 0.05);
        QCOMPARE(s.repeatLastN(), 64);
        QVERIFY(s.randomSeed());
        QCOMPARE(s.maxTokens(), -1);
        QCOMPARE(s.contextSize(), 0);   // Automatic (ContextLimit::decide)
        QCOMPARE(s.toEngine().contextSize, 0);
        QCOMPARE(s.contextPolicy(), QStringLiteral("stop"));
        QVERIFY(s.toEngine().contextOverflow == burrow::ContextOverflow::CONTEXT_OVERFLOW_STOP);
        QCOMPARE(s.systemPrompt(), QString());
        QCOMPARE(s.chatFormat(), QStringLiteral("auto"));
        QCOMPARE(s.toEngine().chatFormat, std::string("auto"));
        // One set of defaults: what a reply gets from a fresh chat is the
        // table's, not the engine's own (its repeat penalty is 1.0).
        QCOMPARE(s.repeatPenalty(), 1.1);
        QCOMPARE(s.toEngine().sampling.repeatPenalty, 1.1f);
        QVERIFY(s.thinking());
        QCOMPARE(s.reasoningEffort(), QStringLiteral("medium"));
        QCOMPARE(s.toEngine().enableThinking, true);
        QCOMPARE(s.toEngine().reasoningEffort, std::string("medium"));
        QCOMPARE(s.kvCacheType(), QStringLiteral("f16"));
        QVERIFY(s.toEngine().kvCacheType == burrow::KvCacheType::KV_CACHE_F16);
        QVERIFY(s.tools());   // the tools of Settings → Tools, when there are any
        QCOMPARE(s.speculative(), QStringLiteral("auto"));
        QCOMPARE(s.draftModel(), QString());
        QVERIFY(s.toEngine().speculative.mode == burrow::SpeculativeMode::SPECULATIVE_AUTO);
        QCOMPARE(ChatSettings::fieldNames().size(), 19);
        for (const QString &f : ChatSettings::fieldNames())
            QVERIFY2(ChatSettings::builtInDefault(f).isValid(), qPrintable(f));
    }

    // Every field: values that are taken and values that are refused (with
    // the start of the reason the panel shows).
    void validation_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QVariant>("value");
        QTest::addColumn<bool>("accepted");
        QTest::addColumn<QString>("reason");  // a fragment of the message

        auto ok = [](const char *name, const QString &field, const QVariant &v) {
            QTest::newRow(name) << field << v << true << QString();
        };
        auto bad = [](const char *name, const QString &field, const QVariant &v, const QString &why) {
            QTest::newRow(name) << field << v << false << why;
        };
        const QString t = QStringLiteral("temperature");
        ok("temperature 0 (greedy)", t, 0.0);
        ok("temperature 1.5", t, 1.5);
        ok("temperature max", t, 10.0);
        ok("temperature as text", t, QStringLiteral("0.7"));
        bad("temperature negative", t, -0.1, QStringLiteral("cannot be negative"));
        bad("temperature too high", t, 10.5, QStringLiteral("at most 10"));
        bad("temperature NaN", t, qQNaN(), QStringLiteral("Enter a number"));
        bad("temperature infinite", t, qInf(), QStringLiteral("Enter a number"));
        bad("temperature not a number", t, QStringLiteral("warm"), QStringLiteral("Enter a number"));
        bad("temperature empty text", t, QString(), QStringLiteral("Enter a number"));
        bad("temperature bool", t, true, QStringLiteral("Enter a number"));

        const QString p = QStringLiteral("topP");
        ok("top-p 1 (off)", p, 1.0);
        ok("top-p small", p, 0.001);
        bad("top-p 0", p, 0.0, QStringLiteral("greater than 0 and at most 1"));
        bad("top-p negative", p, -0.5, QStringLiteral("greater than 0 and at most 1"));
        bad("top-p above 1", p, 1.01, QStringLiteral("greater than 0 and at most 1"));

        const QString k = QStringLiteral("topK");
        ok("top-k 0 (off)", k, 0);
        ok("top-k 100", k, 100);
        ok("top-k 40.0 is whole", k, 40.0);
        bad("top-k negative", k, -1, QStringLiteral("cannot be negative"));
        bad("top-k fraction", k, 2.5, QStringLiteral("whole number"));
        bad("top-k huge", k, 5000000, QStringLiteral("at most"));

        const QString m = QStringLiteral("minP");
        ok("min-p 0 (off)", m, 0.0);
        ok("min-p 1", m, 1.0);
        bad("min-p negative", m, -0.01, QStringLiteral("between 0 and 1"));
        bad("min-p above 1", m, 1.5, QStringLiteral("between 0 and 1"));

        const QString r = QStringLiteral("repeatPenalty");
        ok("repeat penalty 1 (off)", r, 1.0);
        ok("repeat penalty 0.5", r, 0.5);
        bad("repeat penalty 0", r, 0.0, QStringLiteral("greater than 0"));
        bad("repeat penalty negative", r, -1.0, QStringLiteral("greater than 0"));
        bad("repeat penalty huge", r, 11.0, QStringLiteral("at most 10"));

        const QString n = QStringLiteral("repeatLastN");
        ok("repeat window -1 (all)", n, -1);
        ok("repeat window 0", n, 0);
        ok("repeat window 256", n, 256);
        bad("repeat window -2", n, -2, QStringLiteral("0 or more"));
        bad("repeat window fraction", n, 1.5, QStringLiteral("whole number"));

        const QString rs = QStringLiteral("randomSeed");
        ok("random seed off", rs, false);
        ok("random seed on", rs, true);
        bad("random seed text", rs, QStringLiteral("maybe"), QStringLiteral("on or off"));

        const QString s = QStringLiteral("seed");
        ok("seed 0", s, 0);
        ok("seed max", s, ChatSettings::MaxSeed);
        bad("seed negative", s, -1, QStringLiteral("between 0 and 4294967294"));
        bad("seed 2^32-1 (means random)", s, qint64(0xFFFFFFFFLL), QStringLiteral("between 0 and"));
        bad("seed fraction", s, 1.5, QStringLiteral("whole number"));

        const QString mt = QStringLiteral("maxTokens");
        ok("max tokens -1 (no limit)", mt, -1);
        ok("max tokens 1", mt, 1);
        ok("max tokens 512", mt, 512);
        bad("max tokens 0", mt, 0, QStringLiteral("at least 1 token"));
        bad("max tokens -2", mt, -2, QStringLiteral("at least 1 token"));
        bad("max tokens huge", mt, 2000000000, QStringLiteral("at most"));

        const QString c = QStringLiteral("contextSize");
        ok("context 64", c, 64);
        ok("context 8192", c, 8192);
        ok("context as text", c, QStringLiteral(" 2048 "));
        bad("context 63", c, 63, QStringLiteral("at least 64"));
        ok("context automatic", c, 0);
        bad("context 63", c, 63, QStringLiteral("at least 64"));
        bad("context negative", c, -4096, QStringLiteral("at least 64"));
        bad("context beyond any", c, 4000000, QStringLiteral("at most 1048576"));
        bad("context fraction", c, 100.5, QStringLiteral("whole number"));

        const QString sp = QStringLiteral("systemPrompt");
        ok("system prompt", sp, QStringLiteral("You are a pirate. 🏴‍☠️"));
        ok("system prompt empty", sp, QString());

        const QString cf = QStringLiteral("chatFormat");
        ok("chat format auto", cf, QStringLiteral("auto"));
        for (const char *name : {"chatml", "llama2", "llama3", "gemma", "phi3", "mistral", "zephyr"})
            QTest::addRow("chat format %s", name) << cf << QVariant(QString::fromLatin1(name)) << true << QString();
        bad("chat format unknown", cf, QStringLiteral("vicuna"), QStringLiteral("no chat format called \"vicuna\""));
        bad("chat format empty", cf, QString(), QStringLiteral("no chat format called"));
        bad("chat format engine-internal name", cf, QStringLiteral("model"), QStringLiteral("no chat format called"));
        bad("chat format number", cf, 3, QStringLiteral("name of a chat format"));
        bad("chat format bool", cf, true, QStringLiteral("name of a chat format"));
        bad("reasoning effort unknown", QStringLiteral("reasoningEffort"), QStringLiteral("extreme"),
            QStringLiteral("The reasoning effort is one of"));
        bad("reasoning effort number", QStringLiteral("reasoningEffort"), 2, QStringLiteral("listed choices"));
        bad("thinking text", QStringLiteral("thinking"), QStringLiteral("yes"), QStringLiteral("on or off"));

        bad("unknown field", QStringLiteral("typicalP"), 0.5, QStringLiteral("no setting called"));
    }
    void validation()
    {
        QFETCH(QString, field);
        QFETCH(QVariant, value);
        QFETCH(bool, accepted);
        QFETCH(QString, reason);

        // Chat formats are always built in: a format the table expects is a chat format.
        if (field == QLatin1String("chatFormat") && accepted)
            QVERIFY2(ChatSettings::chatFormats().contains(value.toString()), qPrintable(value.toString()));
        ChatSettings s;
        const QVariant before = s.value(field);
        QSignalSpy changed(&s, &ChatSettings::changed);
        QCOMPARE(s.validate(field, value).isEmpty(), accepted);
        QCOMPARE(s.setValue(field, value), accepted);
        if (accepted) {
            QCOMPARE(s.error(field), QString());
            QVERIFY(s.isValid());
            if (value.typeId() != QMetaType::QString || field == QLatin1String("systemPrompt"))
                QVERIFY2(s.value(field) == value, qPrintable(s.value(field).toString()));
        } else {
            QVERIFY2(s.validate(field, value).contains(reason), qPrintable(s.validate(field, value)));
            QCOMPARE(s.value(field), before);  // refused: unchanged
            QCOMPARE(changed.count(), 0);
            if (ChatSettings::fieldNames().contains(field)) {
                QCOMPARE(s.error(field), s.validate(field, value));
                QCOMPARE(s.errors().value(field).toString(), s.error(field));
            }
            QVERIFY(s.isValid());  // the kept value is still fine
        }
    }

    void validValueClearsTheError()
    {
        ChatSettings s;
        QSignalSpy errors(&s, &ChatSettings::errorsChanged);
        QVERIFY(!s.setValue(QStringLiteral("topP"), 2.0));
        QCOMPARE(errors.count(), 1);
        QVERIFY(!s.error(QStringLiteral("topP")).isEmpty());
        s.setTopP(0.5);  // the QML property path validates too
        QCOMPARE(s.topP(), 0.5);
        QVERIFY(s.error(QStringLiteral("topP")).isEmpty());
        QCOMPARE(errors.count(), 2);
        s.setTopP(-3);
        QCOMPARE(s.topP(), 0.5);
        QVERIFY(!s.error(QStringLiteral("topP")).isEmpty());
    }

    // The choices are the engine's names; any case is taken and stored in lower case.
    void chatFormatChoices()
    {
        QStringList engineNames;
        for (const std::string &name : burrow::chatFormatNames())
            engineNames << QString::fromStdString(name);
        const QStringList choices = ChatSettings::chatFormats();
        QCOMPARE(choices.first(), QStringLiteral("auto"));
        QVERIFY2(choices.size() > 1, "the engine's chat formats are missing: only \"auto\"");
        QCOMPARE(choices, engineNames);
        ChatSettings s;
        QVERIFY(s.setValue(QStringLiteral("chatFormat"), QStringLiteral(" ChatML ")));
        QCOMPARE(s.chatFormat(), QStringLiteral("chatml"));
        QVERIFY(s.changedFields().contains(QStringLiteral("chatFormat")));
        QCOMPARE(s.toEngine().chatFormat, std::string("chatml"));
        s.setChatFormat(QStringLiteral("nonsense"));   // the QML property path validates too
        QCOMPARE(s.chatFormat(), QStringLiteral("chatml"));
        QVERIFY(!s.error(QStringLiteral("chatFormat")).isEmpty());
        s.resetField(QStringLiteral("chatFormat"));
        QCOMPARE(s.chatFormat(), QStringLiteral("auto"));
        QVERIFY(s.error(QStringLiteral("chatFormat")).isEmpty());
        QVERIFY(s.changedFields().isEmpty());
        // How the choices are named to the user.
        QCOMPARE(s.chatFormatLabel(QStringLiteral("auto")), QStringLiteral("Automatic (from the model)"));
        QCOMPARE(s.chatFormatLabel(QStringLiteral("llama3")), QStringLiteral("Llama 3"));
    }

    void commaDecimalInUserLocale()
    {
        const QLocale old;
        QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
        ChatSettings s;
        QVERIFY(s.setValue(QStringLiteral("temperature"), QStringLiteral("0,7")));
        QCOMPARE(s.temperature(), 0.7);
        QLocale::setDefault(old);
    }

    void contextLimits_data()
    {
        QTest::addColumn<int>("trained");
        QTest::addColumn<int>("memory");
        QTest::addColumn<int>("context");
        QTest::addColumn<QString>("reason");
        QTest::newRow("fits both") << 8192 << 6000 << 4096 << QString();
        QTest::newRow("equal to trained") << 4096 << 0 << 4096 << QString();
        QTest::newRow("beyond trained") << 2048 << 0 << 4096 << QStringLiteral("trained for at most 2048");
        QTest::newRow("beyond memory") << 32768 << 3000 << 4096 << QStringLiteral("about 3000 tokens");
        QTest::newRow("unknown limits") << 0 << 0 << 100000 << QString();
    }
    void contextLimits()
    {
        QFETCH(int, trained);
        QFETCH(int, memory);
        QFETCH(int, context);
        QFETCH(QString, reason);
        ChatSettings s;
        s.setTrainedContext(trained);
        s.setMemoryContextLimit(memory);
        const QString why = s.validate(QStringLiteral("contextSize"), context);
        QVERIFY2(reason.isEmpty() ? why.isEmpty() : why.contains(reason), qPrintable(why));
        QCOMPARE(s.setValue(QStringLiteral("contextSize"), context), reason.isEmpty());
    }

    void limitsChangeMarksTheCurrentValue()
    {
        ChatSettings s;
        s.setContextSize(8192);
        QVERIFY(s.isValid());
        QSignalSpy errors(&s, &ChatSettings::errorsChanged);
        s.setTrainedContext(4096);  // a smaller model was loaded
        QVERIFY(errors.count() >= 1);
        QVERIFY(!s.isValid());
        QCOMPARE(s.contextSize(), 8192);  // kept: the user sees what the chat asked for
        QVERIFY(s.error(QStringLiteral("contextSize")).contains(QStringLiteral("4096")));
        s.setContextSize(4096);
        QVERIFY(s.isValid());
        QVERIFY(s.error(QStringLiteral("contextSize")).isEmpty());
        s.setTrainedContext(0);
        s.setMemoryContextLimit(1024);
        QVERIFY(!s.isValid());
        s.setMemoryContextLimit(0);
        QVERIFY(s.isValid());
    }

    void defaultsMarkAndReset()
    {
        ChatSettings defaults;
        defaults.setTemperature(0.3);
        ChatSettings chat;
        QSignalSpy changed(&chat, &ChatSettings::changed);
        chat.setDefaults(&defaults);
        chat.copyFrom(&defaults);
        QVERIFY(chat.changedFields().isEmpty());
        QCOMPARE(chat.temperature(), 0.3);

        chat.setTopK(5);
        chat.setSystemPrompt(QStringLiteral("Be brief."));
        QCOMPARE(chat.changedFields(), (QStringList{QStringLiteral("topK"), QStringLiteral("systemPrompt")}));
        QVERIFY(!chat.isDefault(QStringLiteral("topK")));
        QVERIFY(chat.isDefault(QStringLiteral("temperature")));
        QCOMPARE(chat.defaultValue(QStringLiteral("topK")).toInt(), 40);

        // Changing the defaults later does not change the chat, only the marks.
        const int before = changed.count();
        defaults.setTemperature(0.9);
        QVERIFY(changed.count() > before);  // changedFields must be re-read
        QCOMPARE(chat.temperature(), 0.3);
        QVERIFY(chat.changedFields().contains(QStringLiteral("temperature")));

        chat.resetField(QStringLiteral("topK"));
        QCOMPARE(chat.topK(), 40);
        chat.resetAll();
        QVERIFY(chat.changedFields().isEmpty());
        QCOMPARE(chat.temperature(), 0.9);
        QCOMPARE(chat.systemPrompt(), QString());

        // Without defaults the built-in values are the reference.
        ChatSettings lone;
        lone.setMinP(0.2);
        QCOMPARE(lone.changedFields(), QStringList{QStringLiteral("minP")});
        lone.resetField(QStringLiteral("minP"));
        QCOMPARE(lone.minP(), 0.05);
    }

    // A fresh install on a model trained for 2,048 tokens: the default
    // (Automatic) is valid, and so is Reset (issue #26: it showed "trained
    // for at most 2048 tokens" and Reset did nothing). Chats saved with the
    // old default 4,096 (settings version 1) read as Automatic; a 4,096 the
    // user chose in a version-2 chat stays, flagged when too large.
    void automaticContextOnASmallModel()
    {
        ChatSettings s;
        s.setTrainedContext(2048);
        s.setMemoryContextLimit(1500);
        QVERIFY(s.isValid());
        QCOMPARE(s.error(QStringLiteral("contextSize")), QString());
        QVERIFY(s.setValue(QStringLiteral("contextSize"), 1024));
        s.resetField(QStringLiteral("contextSize"));
        QCOMPARE(s.contextSize(), 0);
        QVERIFY(s.isValid());

        ChatSettings old;
        old.setTrainedContext(2048);
        QVERIFY(old.fromJson(QJsonObject{{QStringLiteral("version"), 1}, {QStringLiteral("contextSize"), 4096}}));
        QCOMPARE(old.contextSize(), 0);
        QVERIFY(old.isValid());
        QVERIFY(old.fromJson(QJsonObject{{QStringLiteral("version"), 1}, {QStringLiteral("contextSize"), 1024}}));
        QCOMPARE(old.contextSize(), 1024);
        QVERIFY(!old.fromJson(QJsonObject{{QStringLiteral("version"), 2}, {QStringLiteral("contextSize"), 4096}}));
        QCOMPARE(old.contextSize(), 4096);
        QVERIFY(old.error(QStringLiteral("contextSize")).contains(QLatin1String("2048")));
        // An import normalizes the same way.
        QCOMPARE(ChatSettings::normalizedJson(QJsonObject{{QStringLiteral("version"), 1},
                                                          {QStringLiteral("contextSize"), 4096}})
                     .value(QStringLiteral("contextSize")).toInt(),
                 0);
    }

    void resetToADefaultBeyondTheModelIsFlagged()
    {
        ChatSettings defaults;
        defaults.setContextSize(8192);
        ChatSettings chat;
        chat.setDefaults(&defaults);
        chat.setTrainedContext(4096);
        chat.setContextSize(2048);
        chat.resetField(QStringLiteral("contextSize"));
        QCOMPARE(chat.contextSize(), 8192);
        QVERIFY(!chat.isValid());
        QVERIFY(!chat.error(QStringLiteral("contextSize")).isEmpty());
    }

    void jsonRoundTrip()
    {
        ChatSettings a;
        a.setTemperature(0.123456789);
        a.setTopP(0.5);
        a.setTopK(7);
        a.setMinP(0.0);
        a.setRepeatPenalty(1.3);
        a.setRepeatLastN(-1);
        a.setRandomSeed(false);
        a.setSeed(ChatSettings::MaxSeed);
        a.setMaxTokens(300);
        a.setContextSize(16384);
        a.setSystemPrompt(QStringLiteral("Line one\n\"two\" — 三"));
        const bool haveFormats = ChatSettings::chatFormats().contains(QLatin1String("gemma"));
        if (haveFormats)
            a.setChatFormat(QStringLiteral("gemma"));
        const QJsonObject json = a.toJson();
        QCOMPARE(json.value(QStringLiteral("version")).toInt(), 2);
        QCOMPARE(json.value(QStringLiteral("seed")).toDouble(), 4294967294.0);

        ChatSettings b;
        QVERIFY(b.fromJson(json));
        for (const QString &f : ChatSettings::fieldNames())
            QVERIFY2(b.value(f) == a.value(f), qPrintable(f));
        QCOMPARE(b.toJson(), json);
        QCOMPARE(b.changedFields().size(), haveFormats ? 12 : 11);
        if (haveFormats)
            QCOMPARE(json.value(QStringLiteral("chatFormat")).toString(), QStringLiteral("gemma"));
    }

    void fromJsonIsForgiving()
    {
        ChatSettings s;
        s.setTopK(3);
        const QJsonObject json{
            {QStringLiteral("temperature"), 0.2},
            {QStringLiteral("topP"), 7.0},                // invalid: refused, default kept
            {QStringLiteral("minP"), QStringLiteral("0.1")},  // text is not a stored number
            {QStringLiteral("futureSampler"), 1},         // unknown: ignored
            {QStringLiteral("chatFormat"), QStringLiteral("vicuna")},  // unknown format: refused, default kept
        };
        QVERIFY(!s.setValue(QStringLiteral("maxTokens"), 0));  // a refusal from before the load...
        QVERIFY(!s.fromJson(json));
        QVERIFY(s.error(QStringLiteral("maxTokens")).isEmpty());  // ...is forgotten
        QCOMPARE(s.temperature(), 0.2);
        QCOMPARE(s.topP(), 0.95);
        QCOMPARE(s.minP(), 0.05);
        QCOMPARE(s.topK(), 40);  // missing: the default
        QVERIFY(!s.error(QStringLiteral("topP")).isEmpty());
        QCOMPARE(s.chatFormat(), QStringLiteral("auto"));
        QVERIFY(s.error(QStringLiteral("chatFormat")).contains(QStringLiteral("vicuna")));
        // A settings JSON from before the chat format existed: "auto".
        ChatSettings old;
        old.setDefaults(nullptr);
        QVERIFY(old.fromJson(QJsonObject{{QStringLiteral("version"), 1}, {QStringLiteral("temperature"), 0.5}}));
        QCOMPARE(old.chatFormat(), QStringLiteral("auto"));
        QVERIFY(s.isValid());

        // A context too large for the loaded model is kept and flagged.
        ChatSettings c;
        c.setTrainedContext(2048);
        QVERIFY(!c.fromJson(QJsonObject{{QStringLiteral("contextSize"), 8192}}));
        QCOMPARE(c.contextSize(), 8192);
        QVERIFY(!c.isValid());
    }

    void engineParameters()
    {
        ChatSettings s;
        s.setTemperature(0.25);
        s.setTopK(12);
        s.setTopP(0.8);
        s.setMinP(0.1);
        s.setRepeatPenalty(1.2);
        s.setRepeatLastN(128);
        s.setMaxTokens(99);
        s.setContextSize(1024);
        s.setSystemPrompt(QStringLiteral("sys"));
        const ReplySettings r = s.toEngine();
        QCOMPARE(r.sampling.temperature, 0.25f);
        QCOMPARE(r.sampling.topK, 12);
        QCOMPARE(r.sampling.topP, 0.8f);
        QCOMPARE(r.sampling.minP, 0.1f);
        QCOMPARE(r.sampling.repeatPenalty, 1.2f);
        QCOMPARE(r.sampling.penaltyLastN, 128);
        QCOMPARE(r.sampling.seed, 0xFFFFFFFFu);  // random
        QCOMPARE(r.maxTokens, 99);
        QCOMPARE(r.contextSize, 1024);
        QCOMPARE(r.systemPrompt, std::string("sys"));
        s.setRandomSeed(false);
        s.setSeed(42);
        QCOMPARE(s.toEngine().sampling.seed, 42u);
        s.setMaxTokens(-1);
        QCOMPARE(s.toEngine().maxTokens, -1);
    }

    // The field table is the one list of the settings: every field it has
    // goes through validation, storage (the store's JSON), an export bundle
    // and back, and reaches the engine's types, with a value that is not its
    // default; a value the table refuses is refused on every one of those paths.
    void fieldTableRoundTrip_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QVariant>("value");      // valid, not the default
        QTest::addColumn<QVariant>("refused");    // invalid (null: the field has none)
        const QVariant none;
        const QHash<QString, QPair<QVariant, QVariant>> values = {
            {QStringLiteral("temperature"), {0.3, -1.0}},
            {QStringLiteral("topP"), {0.5, 1.5}},
            {QStringLiteral("topK"), {7, -1}},
            {QStringLiteral("minP"), {0.2, 2.0}},
            {QStringLiteral("repeatPenalty"), {1.3, 0.0}},
            {QStringLiteral("repeatLastN"), {32, -2}},
            {QStringLiteral("randomSeed"), {false, QStringLiteral("maybe")}},
            {QStringLiteral("seed"), {qint64(987654321), qint64(-1)}},
            {QStringLiteral("maxTokens"), {77, 0}},
            {QStringLiteral("contextSize"), {1536, 10}},
            {QStringLiteral("contextPolicy"), {QStringLiteral("shift"), QStringLiteral("wrap")}},
            {QStringLiteral("kvCacheType"), {QStringLiteral("q8_0"), QStringLiteral("q4_0")}},
            {QStringLiteral("systemPrompt"), {QStringLiteral("Réponds brièvement."), true}},
            {QStringLiteral("chatFormat"), {QStringLiteral("chatml"), QStringLiteral("vicuna")}},
            {QStringLiteral("thinking"), {false, QStringLiteral("perhaps")}},
            {QStringLiteral("tools"), {false, QStringLiteral("perhaps")}},
            {QStringLiteral("reasoningEffort"), {QStringLiteral("high"), QStringLiteral("extreme")}},
            {QStringLiteral("speculative"), {QStringLiteral("draft"), QStringLiteral("mtp-ish")}},
            {QStringLiteral("draftModel"), {QStringLiteral("/models/small-draft.gguf"), QStringLiteral("small-draft.gguf")}},
        };
        for (const SettingsField &f : SettingsFields::all()) {
            const QString name = QLatin1String(f.name);
            QVERIFY2(values.contains(name), qPrintable(QStringLiteral("a field without a row here: ") + name));
            QTest::newRow(f.name) << name << values.value(name).first << values.value(name).second;
        }
        QCOMPARE(values.size(), SettingsFields::all().size());
    }

    void fieldTableRoundTrip()
    {
        QFETCH(QString, field);
        QFETCH(QVariant, value);
        QFETCH(QVariant, refused);
        if (field == QLatin1String("chatFormat"))
            QVERIFY2(ChatSettings::chatFormats().contains(value.toString()), qPrintable(value.toString()));
        // Validation.
        ChatSettings s;
        QVERIFY(s.setValue(field, value));
        QVERIFY(!s.isDefault(field));
        if (field == QLatin1String("seed"))
            s.setRandomSeed(false);   // the seed reaches the engine only when it is not random
        QVERIFY(!s.setValue(field, refused));
        QVERIFY(!s.error(field).isEmpty());
        QVERIFY(s.setValue(field, value));   // clears the error
        const QVariant stored = s.value(field);

        // Storage: the store's settings JSON, across a reopen.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        qint64 id = -1;
        {
            ConversationStore store;
            store.setDatabasePath(dir.filePath(QStringLiteral("a.db")));
            QVERIFY(store.open());
            id = store.createConversation(QStringLiteral("chat"), QString(), 0, s.toJson());
            QVERIFY(store.appendMessage(id, Chat::Role::User, QStringLiteral("hi")) > 0);
        }
        ConversationStore store;
        store.setDatabasePath(dir.filePath(QStringLiteral("a.db")));
        QVERIFY(store.open());
        ChatSettings fromStore;
        QVERIFY(fromStore.fromJson(store.settings(id)));
        QCOMPARE(fromStore.value(field), stored);

        // Export: a bundle, imported into another database.
        const QString bundle = dir.filePath(QStringLiteral("bundle"));
        QVERIFY(QDir().mkpath(bundle));
        QString error;
        QVERIFY2(ConversationBundle::writeFolder(store, {id}, bundle, &error), qPrintable(error));
        ConversationStore other;
        other.setDatabasePath(dir.filePath(QStringLiteral("b.db")));
        QVERIFY(other.open());
        QVERIFY(ConversationBundle::importFolder(other, bundle).ok);
        ChatSettings imported;
        QVERIFY(imported.fromJson(other.settings(other.conversations().first().id)));
        QCOMPARE(imported.value(field), stored);

        // A refused value in an imported bundle does not come in.
        QJsonObject bad = s.toJson();
        bad.insert(field, QJsonValue::fromVariant(refused));
        const QJsonObject normalized = ChatSettings::normalizedJson(bad);
        QVERIFY2(!normalized.contains(field) || normalized.value(field) != QJsonValue::fromVariant(refused),
                 qPrintable(field));

        // The engine mapping: the field's value, in the engine's types.
        const ReplySettings r = imported.toEngine();
        const ReplySettings base = ChatSettings().toEngine();
        auto differs = [&] {
            if (field == QLatin1String("temperature")) return r.sampling.temperature == float(value.toDouble());
            if (field == QLatin1String("topP")) return r.sampling.topP == float(value.toDouble());
            if (field == QLatin1String("topK")) return r.sampling.topK == value.toInt();
            if (field == QLatin1String("minP")) return r.sampling.minP == float(value.toDouble());
            if (field == QLatin1String("repeatPenalty")) return r.sampling.repeatPenalty == float(value.toDouble());
            if (field == QLatin1String("repeatLastN")) return r.sampling.penaltyLastN == value.toInt();
            if (field == QLatin1String("randomSeed")) return r.sampling.seed != base.sampling.seed;   // the fixed seed (0)
            if (field == QLatin1String("seed")) return r.sampling.seed == uint32_t(value.toLongLong());
            if (field == QLatin1String("maxTokens")) return r.maxTokens == value.toInt();
            if (field == QLatin1String("contextSize")) return r.contextSize == value.toInt();
            if (field == QLatin1String("contextPolicy"))
                return r.contextOverflow == burrow::ContextOverflow::CONTEXT_OVERFLOW_SHIFT
                       && base.contextOverflow == burrow::ContextOverflow::CONTEXT_OVERFLOW_STOP;
            if (field == QLatin1String("kvCacheType"))
                return r.kvCacheType == burrow::KvCacheType::KV_CACHE_Q8_0 && base.kvCacheType == burrow::KvCacheType::KV_CACHE_F16;
            if (field == QLatin1String("systemPrompt")) return r.systemPrompt == value.toString().toStdString();
            if (field == QLatin1String("chatFormat")) return r.chatFormat == value.toString().toStdString();
            if (field == QLatin1String("thinking")) return r.enableThinking == value.toBool() && base.enableThinking;
            if (field == QLatin1String("tools")) return r.tools == value.toBool() && base.tools;
            if (field == QLatin1String("reasoningEffort"))
                return r.reasoningEffort == value.toString().toStdString() && base.reasoningEffort == "medium";
            if (field == QLatin1String("speculative"))
                return r.speculative.mode == burrow::SpeculativeMode::SPECULATIVE_DRAFT
                       && base.speculative.mode == burrow::SpeculativeMode::SPECULATIVE_AUTO;
            if (field == QLatin1String("draftModel"))
                return r.speculative.draftModel == value.toString().toStdString() && base.speculative.draftModel.empty();
            return false;
        };
        QVERIFY2(differs(), qPrintable(field));
    }

    // What the app does across a quit and restart: the chat's settings go
    // into the store as JSON and come back identical.
    void settingsSurviveRestartThroughTheStore()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("burrow.db"));
        ChatSettings original;
        original.setTemperature(0.33);
        original.setTopK(17);
        original.setRandomSeed(false);
        original.setSeed(123456789);
        original.setContextSize(2048);
        original.setSystemPrompt(QStringLiteral("Réponds brièvement."));
        const bool haveFormats = ChatSettings::chatFormats().contains(QLatin1String("phi3"));
        if (haveFormats)
            original.setChatFormat(QStringLiteral("phi3"));
        qint64 id = -1;
        {
            ConversationStore store;
            store.setDatabasePath(path);
            QVERIFY(store.open());
            id = store.createConversation(QStringLiteral("chat"), QStringLiteral("/m/a.gguf"), 1, original.toJson());
            original.setMinP(0.2);  // a later change, saved as the app does on ChatSettings::changed
            QVERIFY(store.setSettings(id, original.toJson()));
        }
        ConversationStore store;
        store.setDatabasePath(path);
        QVERIFY(store.open());
        ChatSettings restored;
        QVERIFY(restored.fromJson(store.settings(id)));
        for (const QString &f : ChatSettings::fieldNames())
            QVERIFY2(restored.value(f) == original.value(f), qPrintable(f));
        QCOMPARE(restored.toEngine().sampling.seed, 123456789u);
        if (haveFormats)
            QCOMPARE(restored.chatFormat(), QStringLiteral("phi3"));
    }

    // A chat format chosen for new chats survives a restart, is copied into a
    // new chat, and "restore built-in" brings back "auto".
    void defaultChatFormatPersistsAndIsCopied()
    {
        QVERIFY2(ChatSettings::chatFormats().contains(QLatin1String("mistral")), qPrintable(ChatSettings::chatFormats().join(u' ')));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("burrow.ini"));
        {
            DefaultSettings d(file);
            QVERIFY(d.settings()->setValue(QStringLiteral("chatFormat"), QStringLiteral("Mistral")));
        }
        DefaultSettings d(file);
        QCOMPARE(d.settings()->chatFormat(), QStringLiteral("mistral"));
        ChatSettings chat;
        chat.setDefaults(d.settings());
        chat.copyFrom(d.settings());
        QCOMPARE(chat.chatFormat(), QStringLiteral("mistral"));
        QVERIFY(chat.changedFields().isEmpty());
        chat.setChatFormat(QStringLiteral("auto"));
        QCOMPARE(chat.changedFields(), QStringList{QStringLiteral("chatFormat")});
        QCOMPARE(chat.defaultValue(QStringLiteral("chatFormat")).toString(), QStringLiteral("mistral"));
        chat.resetAll();
        QCOMPARE(chat.chatFormat(), QStringLiteral("mistral"));
        d.restoreBuiltIn();
        QCOMPARE(d.settings()->chatFormat(), QStringLiteral("auto"));
        DefaultSettings again(file);
        QCOMPARE(again.settings()->chatFormat(), QStringLiteral("auto"));
    }

    void defaultsPersist()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("burrow.ini"));
        {
            DefaultSettings d(file);
            QVERIFY(d.settings()->changedFields().isEmpty());
            d.settings()->setTemperature(0.4);
            d.settings()->setSystemPrompt(QStringLiteral("Answer in French."));
        }
        {
            DefaultSettings d(file);
            QCOMPARE(d.settings()->temperature(), 0.4);
            QCOMPARE(d.settings()->systemPrompt(), QStringLiteral("Answer in French."));
            QCOMPARE(d.settings()->changedFields().size(), 2);

            ChatSettings chat;
            chat.setTopK(9);
            d.takeFrom(&chat);  // "use for new chats"
            QCOMPARE(d.settings()->topK(), 9);
            QCOMPARE(d.settings()->temperature(), 0.8);
        }
        {
            DefaultSettings d(file);
            QCOMPARE(d.settings()->topK(), 9);
            d.restoreBuiltIn();
            QVERIFY(d.settings()->changedFields().isEmpty());
        }
        DefaultSettings d(file);
        QVERIFY(d.settings()->changedFields().isEmpty());
    }
};

QTEST_MAIN(TestChatSettings)
#include "tst_chatsettings.moc"
