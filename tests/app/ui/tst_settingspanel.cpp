// The chat settings panel and the "Settings for new chats" dialog, in the
// window on an X display, by real input. On main: a refused value (a
// temperature of -1, a top-p of 2) stayed in its field when the panel was
// opened again, though the docs say the field keeps its old value; the
// dialog for new chats had two titles and two close buttons and said "these
// settings belong to this chat only"; the scroll bar covered the right edge
// of the fields.
#include "uiharness.h"
#include "apptestsupport.h"

#include <QSettings>

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using namespace burrow::test;

namespace {

QQuickItem *shown(QQuickItem *root, const QString &objectName)
{
    return ui::findShown(root, [&](QQuickItem *i) { return i->objectName() == objectName; });
}

// The shown items under `root` whose text is `text`.
int countShownTexts(QQuickItem *root, const QString &text)
{
    int n = 0;
    std::function<void(QQuickItem *)> walk = [&](QQuickItem *item) {
        if (!item->isVisible())
            return;
        if (item->inherits("QQuickText") && item->property("text").toString() == text)
            ++n;
        const QList<QQuickItem *> children = item->childItems();
        for (QQuickItem *child : children)
            walk(child);
    };
    walk(root);
    return n;
}

} // namespace

class TestSettingsPanel : public QObject {
    Q_OBJECT
private slots:
    void init() { failOnQmlErrors(); }
    void cleanup() { ui::keepScreenshotOnFailure(); }

    void refusedValueDoesNotStay_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("kept");
        QTest::newRow("temperature -1") << QStringLiteral("temperature") << QStringLiteral("-1") << QStringLiteral("0.8");
        QTest::newRow("top-p 2") << QStringLiteral("topP") << QStringLiteral("2") << QStringLiteral("0.95");
    }
    void refusedValueDoesNotStay()
    {
        QFETCH(QString, field);
        QFETCH(QString, typed);
        QFETCH(QString, kept);
        AppWindow app;
        ui::ScreenshotOnFailure screenshot;
        QVERIFY(app.open());
        QTRY_VERIFY(app.chat->store()->isReady());
        auto *drawer = app.window->findChild<QObject *>(QStringLiteral("chatSettingsDrawer"));
        QVERIFY(drawer);
        QQuickItem *root = app.window->contentItem();

        QVERIFY(ui::key(QStringLiteral("alt+c e")));   // Chat → Chat settings…
        QTRY_VERIFY(drawer->property("opened").toBool());
        QQuickItem *input = nullptr;
        QTRY_VERIFY((input = shown(root, QStringLiteral("field_") + field)));
        QCOMPARE(input->property("text").toString(), kept);
        QVERIFY(ui::click(ui::centreOf(input)));
        QVERIFY(ui::key(QStringLiteral("ctrl+a")));
        QVERIFY(ui::type(typed));
        QVERIFY(ui::key(QStringLiteral("Return")));
        // Refused: the reason under the field, the typed text still there to fix.
        QTRY_VERIFY(shown(root, QStringLiteral("error_") + field));
        QCOMPARE(input->property("text").toString(), typed);
        QCOMPARE(app.chat->conversation()->settings()->value(field).toString(), kept);

        QVERIFY(ui::key(QStringLiteral("Escape")));
        QTRY_VERIFY(!drawer->property("visible").toBool());
        QVERIFY(ui::key(QStringLiteral("alt+c e")));
        QTRY_VERIFY(drawer->property("opened").toBool());
        // Open again: the stored value, no reason left.
        QTRY_COMPARE(input->property("text").toString(), kept);
        QVERIFY(!shown(root, QStringLiteral("error_") + field));
    }

    // The scroll bar sits beside the fields, not over them.
    void scrollBarBesideTheFields()
    {
        AppWindow app;
        ui::ScreenshotOnFailure screenshot;
        QVERIFY(app.open());
        app.window->resize(800, 480);   // the panel needs its scroll bar
        auto *drawer = app.window->findChild<QObject *>(QStringLiteral("chatSettingsDrawer"));
        QVERIFY(ui::key(QStringLiteral("alt+c e")));
        QTRY_VERIFY(drawer->property("opened").toBool());
        QQuickItem *root = app.window->contentItem();
        QQuickItem *panel = nullptr;
        QTRY_VERIFY((panel = shown(root, QStringLiteral("chatSettingsPanel"))));
        QQuickItem *bar = nullptr;
        QTRY_VERIFY((bar = ui::findShown(panel, [](QQuickItem *i) {
                         return i->inherits("QQuickScrollBar") && i->property("orientation").toInt() == Qt::Vertical;
                     })));
        QTest::qWait(300);
        const qreal barLeft = bar->mapToScene(QPointF(0, 0)).x();
        for (const char *name : {"field_temperature", "field_topP", "field_contextSize", "field_seed"}) {
            QQuickItem *input = shown(panel, QString::fromLatin1(name));
            QVERIFY2(input, name);
            const qreal right = input->mapToScene(QPointF(input->width(), 0)).x();
            QVERIFY2(right <= barLeft, qPrintable(QStringLiteral("%1 ends at %2, the scroll bar begins at %3")
                                                      .arg(QLatin1String(name)).arg(right).arg(barLeft)));
        }
    }

    // Settings → Settings for new chats…: one title, one close button, and
    // words that say what these settings are.
    void newChatsDialogSaysWhatItIs()
    {
        AppWindow app;
        ui::ScreenshotOnFailure screenshot;
        QVERIFY(app.open());
        auto *dialog = app.window->findChild<QObject *>(QStringLiteral("defaultSettingsDialog"));
        QVERIFY(dialog);
        QVERIFY(ui::key(QStringLiteral("alt+s n")));
        QTRY_VERIFY(dialog->property("opened").toBool());
        QQuickItem *root = app.window->contentItem();
        QQuickItem *panel = nullptr;
        QTRY_VERIFY((panel = ui::findShown(root, [](QQuickItem *i) {
                         return i->objectName() == QLatin1String("chatSettingsPanel") && i->property("forNewChats").toBool();
                     })));
        QCOMPARE(countShownTexts(root, QStringLiteral("Settings for new chats")), 1);
        QCOMPARE(countShownTexts(root, QStringLiteral("Chat settings")), 0);
        QVERIFY(!shown(panel, QStringLiteral("closeSettings")));
        QVERIFY(ui::findButton(root, QStringLiteral("Close")));
        const QString note = shown(panel, QStringLiteral("scopeNote"))->property("text").toString();
        QVERIFY2(!note.contains(QStringLiteral("this chat only")), qPrintable(note));
        QVERIFY2(note.startsWith(QStringLiteral("New chats start with these settings")), qPrintable(note));
        QVERIFY(ui::key(QStringLiteral("Escape")));
        QTRY_VERIFY(!dialog->property("visible").toBool());
    }
};

BURROW_UI_TEST_MAIN(TestSettingsPanel)
#include "tst_settingspanel.moc"
