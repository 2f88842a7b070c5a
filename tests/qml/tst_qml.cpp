// Qt Quick Test runner for the QML component tests (tst_*.qml) of the Burrow module.
#include <QQmlEngine>
#include <QtQml/qqmlextensionplugin.h>
#include <QtQuickTest/quicktest.h>

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

class Setup : public QObject {
    Q_OBJECT

public Q_SLOTS:
    void qmlEngineAvailable(QQmlEngine *engine)
    {
        // The module's qmldir and QML files live under qrc:/Burrow (Qt 6.4's
        // resource prefix), which is not on the default import path.
        engine->addImportPath(QStringLiteral("qrc:/"));
    }
};

QUICK_TEST_MAIN_WITH_SETUP(burrow_qml, Setup)
#include "tst_qml.moc"
