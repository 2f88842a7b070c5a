// Qt Quick Test runner for the QML component tests (tst_*.qml) of the Burrow module.
#include <QDir>
#include <QQmlEngine>
#include <QtQml/qqmlextensionplugin.h>
#include <QtQuickTest/quicktest.h>
#include <memory>

#include "fakehub.h"
#include "storage/datafolder.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

namespace {
// The hub tst_downloaddialog.qml downloads from (never the real one).
std::unique_ptr<burrow::test::FakeHub> g_hub;
} // namespace

class Setup : public QObject {
    Q_OBJECT

public Q_SLOTS:
    void applicationAvailable()
    {
        using namespace burrow::test;
        g_hub = std::make_unique<FakeHub>();
        g_hub->addFile(QStringLiteral("test/tiny-GGUF"), QStringLiteral("tiny-Q8_0.gguf"), fakeModelBytes(200 * 1024, 1));
        g_hub->addFile(QStringLiteral("test/tiny-GGUF"), QStringLiteral("f16/tiny-F16.gguf"), fakeModelBytes(300 * 1024, 2));
        g_hub->addFile(QStringLiteral("test/gated-GGUF"), QStringLiteral("gated-Q4_K_M.gguf"), fakeModelBytes(100 * 1024, 3));
        g_hub->repos[QStringLiteral("test/gated-GGUF")].gated = true;
        qputenv("BURROW_HF_ENDPOINT", g_hub->endpoint().toEncoded());
        qputenv("BURROW_TOKEN_STORE", "file");
        // The downloads of an earlier run go (the data folder is the test's own, see CMakeLists.txt).
        if (!qEnvironmentVariableIsEmpty("XDG_DATA_HOME"))
            QDir(DataFolder::path() + QStringLiteral("/models")).removeRecursively();
    }
    void qmlEngineAvailable(QQmlEngine *engine)
    {
        // The module's qmldir and QML files live under qrc:/Burrow (Qt 6.4's
        // resource prefix), which is not on the default import path.
        engine->addImportPath(QStringLiteral("qrc:/"));
    }
    void cleanupTestCase() { g_hub.reset(); }
};

QUICK_TEST_MAIN_WITH_SETUP(burrow_qml, Setup)
#include "tst_qml.moc"
