// The UI language: the system's mapped to a translation, the saved choice
// applied at start-up (the main window then reads in Chinese), and a change
// in the settings retranslating the running window.
#include <QCoreApplication>
#include <QRegularExpression>
#include <QSettings>
#include <QTest>
#include <QTranslator>

#include "apptestsupport.h"
#include "language/language.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

using burrow::test::AppWindow;

namespace {

const char *const kEmptyTitle = "Drop a .gguf model here, or open one";

// The texts of the window's visible items (text, title, placeholder), in the
// order of the item tree.
QStringList visibleTexts(QQuickItem *item)
{
    QStringList texts;
    if (!item->isVisible())
        return texts;
    for (const char *property : {"text", "title", "placeholderText"}) {
        const QVariant value = item->property(property);
        if (value.typeId() == QMetaType::QString && !value.toString().trimmed().isEmpty())
            texts << value.toString();
    }
    for (QQuickItem *child : item->childItems())
        texts << visibleTexts(child);
    return texts;
}

bool hasCjk(const QString &text)
{
    static const QRegularExpression cjk(QStringLiteral("[\\x{4e00}-\\x{9fff}]"));
    return text.contains(cjk);
}

// A text that still reads as English: a word of four or more letters once
// names, keys and file types are taken out.
bool readsEnglish(QString text)
{
    for (const char *name : {"Burrow", "gguf", "GGUF", "Ctrl", "Shift", "Enter", "Top-p", "Top-k", "Min-p"})
        text.remove(QLatin1String(name));
    static const QRegularExpression word(QStringLiteral("[A-Za-z]{4,}"));
    return text.contains(word);
}

QString translated(const char *context, const char *source)
{
    return QCoreApplication::translate(context, source);
}

} // namespace

class TestLanguage : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("Burrow"));
        QCoreApplication::setApplicationName(QStringLiteral("Burrow"));
        // The test's own XDG config (see burrow_add_test): start in Chinese.
        QSettings().setValue(QStringLiteral("ui/language"), QStringLiteral("zh_CN"));
    }

    void codeForLocale_data()
    {
        QTest::addColumn<QString>("locale");
        QTest::addColumn<QString>("code");
        QTest::newRow("mainland") << "zh_CN" << "zh_CN";
        QTest::newRow("singapore") << "zh_SG" << "zh_CN";
        QTest::newRow("chinese") << "zh" << "zh_CN";
        QTest::newRow("simplified script") << "zh_Hans_HK" << "zh_CN";
        QTest::newRow("taiwan") << "zh_TW" << "zh_TW";
        QTest::newRow("hong kong") << "zh_HK" << "zh_TW";
        QTest::newRow("macau") << "zh_MO" << "zh_TW";
        QTest::newRow("traditional script") << "zh_Hant" << "zh_TW";
        QTest::newRow("english") << "en_US" << "en";
        QTest::newRow("british") << "en_GB" << "en";
        QTest::newRow("german") << "de_DE" << "en";
        QTest::newRow("japanese") << "ja_JP" << "en";
        QTest::newRow("C") << "C" << "en";
    }
    void codeForLocale()
    {
        QFETCH(QString, locale);
        QFETCH(QString, code);
        QCOMPARE(Language::codeForLocale(locale), code);
    }

    // Started with "ui/language" = zh_CN, the main window reads in Chinese.
    void mainWindowInChinese()
    {
        Language::installSaved();
        QCOMPARE(Language::instance()->choice(), QStringLiteral("zh_CN"));
        QCOMPARE(Language::instance()->current(), QStringLiteral("zh_CN"));

        AppWindow app;
        QVERIFY(app.open());
        auto *title = app.find(QStringLiteral("emptyStateTitle"));
        QVERIFY(title);
        QVERIFY(title->isVisible());
        QCOMPARE(title->property("text").toString(), QStringLiteral("将 .gguf 模型拖到这里，或打开一个模型"));

        const QStringList texts = visibleTexts(app.window->contentItem());
        QStringList chinese;
        QStringList english;
        for (const QString &text : texts) {
            if (hasCjk(text))
                chinese << text;
            else if (readsEnglish(text))
                english << text;
        }
        qInfo().noquote() << "visible texts in Chinese:" << chinese.join(QStringLiteral(" | "));
        QVERIFY2(chinese.size() >= 5, qPrintable(texts.join(u'\n')));
        QVERIFY2(english.isEmpty(), qPrintable(QStringLiteral("still in English:\n") + english.join(u'\n')));
        // The menu bar too (its titles are MenuBarItems in the header).
        const QStringList header = visibleTexts(app.window->property("menuBar").value<QQuickItem *>());
        QVERIFY2(header.contains(QStringLiteral("文件(&F)")), qPrintable(header.join(u' ')));
    }

    // Choosing another language in the running app retranslates the window
    // and is remembered.
    void switchingRetranslates()
    {
        Language *language = Language::instance();
        language->setChoice(QStringLiteral("zh_CN"));
        AppWindow app;
        QVERIFY(app.open());
        auto *title = app.find(QStringLiteral("emptyStateTitle"));
        QVERIFY(title);
        QCOMPARE(title->property("text").toString(), QStringLiteral("将 .gguf 模型拖到这里，或打开一个模型"));

        language->setChoice(QStringLiteral("zh_TW"));
        QCOMPARE(language->current(), QStringLiteral("zh_TW"));
        QCOMPARE(QSettings().value(QStringLiteral("ui/language")).toString(), QStringLiteral("zh_TW"));
        QTRY_COMPARE(title->property("text").toString(), QStringLiteral("將 .gguf 模型拖放到這裡，或開啟一個模型"));

        language->setChoice(QStringLiteral("en"));
        QCOMPARE(language->current(), QStringLiteral("en"));
        QTRY_COMPARE(title->property("text").toString(), QString::fromLatin1(kEmptyTitle));

        // "" follows the system (the test runs in the C locale unless LANG says otherwise).
        language->setChoice(QString());
        QCOMPARE(language->current(), Language::systemCode());
        QCOMPARE(QSettings().value(QStringLiteral("ui/language")).toString(), QString());
    }

    // Settings → Language lists "System language" and each language in its
    // own name; choosing one switches the window.
    void languageMenuSwitches()
    {
        Language *language = Language::instance();
        language->setChoice(QStringLiteral("en"));
        AppWindow app;
        QVERIFY(app.open());
        QObject *menu = app.window->findChild<QObject *>(QStringLiteral("languageMenu"));
        QVERIFY2(menu, "Main.qml has no language menu");
        QStringList names;
        QObject *traditional = nullptr;
        const int count = menu->property("count").toInt();
        for (int i = 0; i < count; ++i) {
            QQuickItem *item = nullptr;
            QVERIFY(QMetaObject::invokeMethod(menu, "itemAt", Q_RETURN_ARG(QQuickItem *, item), Q_ARG(int, i)));
            QVERIFY(item);
            names << item->property("text").toString();
            if (names.last() == QStringLiteral("繁體中文"))
                traditional = item;
        }
        QCOMPARE(names, (QStringList{QStringLiteral("System language"), QStringLiteral("English"),
                                     QStringLiteral("简体中文"), QStringLiteral("繁體中文")}));
        QVERIFY(traditional);
        QVERIFY(QMetaObject::invokeMethod(traditional, "triggered"));
        QCOMPARE(language->current(), QStringLiteral("zh_TW"));
        auto *title = app.find(QStringLiteral("emptyStateTitle"));
        QVERIFY(title);
        QTRY_COMPARE(title->property("text").toString(), QStringLiteral("將 .gguf 模型拖放到這裡，或開啟一個模型"));
        QTRY_VERIFY(traditional->property("checked").toBool());
    }

    // The translations are built into the app: each .qm loads from the
    // resources and translates; English supplies the plural forms.
    void compiledTranslations_data()
    {
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("about");
        QTest::newRow("zh_CN") << "zh_CN" << "文件(&F)" << "关于 Burrow";
        QTest::newRow("zh_TW") << "zh_TW" << "檔案(&F)" << "關於 Burrow";
        QTest::newRow("en") << "en" << "&File" << "About Burrow";
    }
    void compiledTranslations()
    {
        QFETCH(QString, code);
        QFETCH(QString, file);
        QFETCH(QString, about);
        Language::instance()->setChoice(code);
        QCOMPARE(translated("AppMenuBar", "&File"), file);
        QCOMPARE(translated("AboutDialog", "About Burrow"), about);
    }

    void englishPluralForms()
    {
        Language::instance()->setChoice(QStringLiteral("en"));
        QCOMPARE(QCoreApplication::translate("MessageModel", "%n tokens · %1 tokens/s", nullptr, 1),
                 QStringLiteral("1 token · %1 tokens/s"));
        QCOMPARE(QCoreApplication::translate("MessageModel", "%n tokens · %1 tokens/s", nullptr, 12),
                 QStringLiteral("12 tokens · %1 tokens/s"));
        Language::instance()->setChoice(QStringLiteral("zh_CN"));
        QCOMPARE(QCoreApplication::translate("MessageModel", "%n tokens · %1 tokens/s", nullptr, 12),
                 QStringLiteral("12 个词元 · %1 词元/秒"));
    }

    void availableLanguages()
    {
        const QVariantList available = Language::instance()->available();
        QStringList codes;
        for (const QVariant &entry : available)
            codes << entry.toMap().value(QStringLiteral("code")).toString();
        QCOMPARE(codes, (QStringList{QString(), QStringLiteral("en"), QStringLiteral("zh_CN"), QStringLiteral("zh_TW")}));
        QCOMPARE(codes.mid(1), Language::codes());
    }

    void cleanupTestCase()
    {
        Language::instance()->setChoice(QString());
    }
};

QTEST_MAIN(TestLanguage)
#include "tst_language.moc"
