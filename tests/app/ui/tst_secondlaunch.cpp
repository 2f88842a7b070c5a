// A second launch while Burrow writes a reply (issue #26, "Why" 3), with the
// real binary twice on one data folder: the first loads the bench model
// (from its command line), a prompt is typed and sent; then `burrow
// stories260K.gguf` is started as a file manager does on a double click.
// It must end by itself (exit 0) without a window of its own, the first must
// have received the file (its log) and come forward, and the first's reply
// must go on streaming and being saved, still "streaming" in the database
// (a second copy used to open its own window on the same database, mark the
// first's reply "interrupted", and break its saves). A later plain `burrow`
// raises the first window after it was minimised.
#include "uiharness.h"
#include "test_support.h"

#include <QElapsedTimer>
#include <QSettings>

using namespace burrow::test;

class TestSecondLaunch : public QObject {
    Q_OBJECT

private slots:
    void cleanup() { ui::keepScreenshotOnFailure(); }

    void handsOverAndTheFirstGoesOn()
    {
        const QString bench = QStringLiteral("models/bench/llama-155M-Q4_K_M.gguf");
        BURROW_REQUIRE_SHARED(bench);
        BURROW_REQUIRE_SHARED(QStringLiteral("models/stories260K.gguf"));
        ui::BurrowProcess first;
        // The random model ends a reply with its end token now and then, and
        // on a fast machine fills its 2,048-token context in seconds: the
        // first copy's new chats (its stored defaults, Settings > Defaults)
        // draw with a fixed seed and shift a full context, so its reply is
        // the same every run and still growing at the handover.
        {
            QSettings defaults(first.configHome() + QStringLiteral("/Burrow/Burrow.conf"), QSettings::IniFormat);
            defaults.setValue(QStringLiteral("chat/defaults"),
                              QStringLiteral("{\"randomSeed\":false,\"seed\":7,\"contextPolicy\":\"shift\"}"));
        }
        QVERIFY(first.start({sharedPath(bench)}));
        QVERIFY2(first.waitForWindow(), first.log().constData());
        QTRY_COMPARE_WITH_TIMEOUT(first.title(), QStringLiteral("random-llama-bench155m — Burrow"), 30000);
        QVERIFY(ui::type(QStringLiteral("Once upon a time")));
        QVERIFY(ui::key(QStringLiteral("Return")));
        ui::StoreReader store(first.databasePath());
        const QString reply = QStringLiteral("SELECT length(content), state FROM messages WHERE role = 'assistant'");
        QTRY_VERIFY_WITH_TIMEOUT(store.rows(reply).value(0).value(0).toInt() > 0, 30000);

        // The second launch, on the same data folder, with a file.
        ui::BurrowProcess second(first.home());
        QElapsedTimer took;
        took.start();
        QVERIFY(second.start({sharedPath(QStringLiteral("models/stories260K.gguf"))}));
        QVERIFY2(second.process().waitForFinished(15000), second.log().constData());
        qInfo("the second launch ended after %lld ms", qint64(took.elapsed()));   // reported, not asserted
        QCOMPARE(second.process().exitStatus(), QProcess::NormalExit);
        QVERIFY2(second.process().exitCode() == 0, second.log().constData());
        QTRY_VERIFY_WITH_TIMEOUT(first.log().contains("a second launch handed over"), 10000);
        QVERIFY2(first.log().contains("stories260K.gguf"), first.log().constData());

        // The first goes on: its reply grows in the database for three more
        // seconds (or until it ends by itself), saved at least
        // every 1.8 s while "streaming", and never marked interrupted.
        int length = store.rows(reply).value(0).value(0).toInt();
        const int lengthAtHandover = length;
        QElapsedTimer clock;
        clock.start();
        qint64 changedAt = 0, longest = 0;
        QString state = QStringLiteral("streaming");
        while (clock.elapsed() < 3000 && state == QLatin1String("streaming")) {
            const QVariantList row = store.rows(reply).value(0);
            state = row.value(1).toString();
            if (row.value(0).toInt() != length) {
                length = row.value(0).toInt();
                changedAt = clock.elapsed();
            }
            if (state == QLatin1String("streaming"))
                longest = qMax(longest, clock.elapsed() - changedAt);
            QTest::qWait(100);
        }
        QVERIFY2(state == QLatin1String("streaming") || state == QLatin1String("complete"), qPrintable(state));
        QVERIFY2(length > lengthAtHandover, "the first copy's reply did not grow after the handover");
        QVERIFY2(longest <= 1800, qPrintable(QStringLiteral("the reply stood still for %1 ms").arg(longest)));
        QCOMPARE(store.value(QStringLiteral("SELECT count(*) FROM messages WHERE state = 'interrupted'")).toInt(), 0);

        // A plain second launch brings the minimised window back.
        QVERIFY(ui::xdotool({QStringLiteral("windowminimize"), QStringLiteral("--sync"), first.windowId()}));
        ui::BurrowProcess third(first.home());
        QVERIFY(third.start());
        QVERIFY2(third.process().waitForFinished(15000), third.log().constData());
        QCOMPARE(third.process().exitCode(), 0);
        QByteArray active;
        QTRY_VERIFY_WITH_TIMEOUT(ui::xdotool({QStringLiteral("getactivewindow")}, &active)
                                     && QString::fromLatin1(active).trimmed() == first.windowId(),
                                 10000);
        // The model card of the file handed over waits for an answer: Esc.
        QVERIFY(ui::key(QStringLiteral("Escape")));
        QVERIFY2(first.close(), first.log().constData());
    }
};

BURROW_UI_TEST_MAIN(TestSecondLaunch)
#include "tst_secondlaunch.moc"
