// Burrow's entry point: parse the command line, create the QML engine and
// load the Burrow module's Main window. Everything else lives in burrow_app.
#include <QCommandLineParser>
#include <cstdio>
#include <cstring>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQuickWindow>
#include <QQuickStyle>
#include <QtQml/qqmlextensionplugin.h>

#include <QFileInfo>
#include <QUrl>

#include "backend/singleinstance.h"
#include "common/appinfo.h"
#include "chat/chatcontroller.h"
#include "chat/replybench.h"
#include "common/renderpacing.h"
#include "models/modelloader.h"
#include "language/language.h"

Q_IMPORT_QML_PLUGIN(BurrowPlugin)

int main(int argc, char *argv[])
{
    // --version and --help need no display: answer them before the GUI
    // starts, so they work over SSH and in scripts.
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0) {
            std::printf("Burrow %s\n", BURROW_VERSION);
            return 0;
        }
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::printf("Usage: burrow [options] [model]\n"
                        "Chat with language models that run on your own computer.\n\n"
                        "Options:\n"
                        "  -h, --help     Displays help on commandline options.\n"
                        "  -v, --version  Displays version information.\n\n"
                        "Arguments:\n"
                        "  model          A model to open: a .gguf file, or one compressed\n"
                        "                 (.zip, .tar.gz, .tar.xz, .tar.zst, .gguf.gz, .gguf.xz,\n"
                        "                 .gguf.zst), which is unpacked into the models folder first.\n");
            return 0;
        }
    }

    QGuiApplication app(argc, argv);
    QGuiApplication::setApplicationName(QStringLiteral("Burrow"));
    QGuiApplication::setOrganizationName(QStringLiteral("Burrow"));
    QGuiApplication::setApplicationVersion(QStringLiteral(BURROW_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.burrow.Burrow"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Chat with language models that run on your own computer."));
    parser.addHelpOption();
    parser.addVersionOption();
    // Measurement (docs/benchmarks.md): not in --help's list for users.
    QCommandLineOption benchOption(QStringLiteral("bench"), QStringLiteral("Send PROMPT once, print the speed and quit."),
                                   QStringLiteral("PROMPT"));
    benchOption.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption benchTokensOption(QStringLiteral("bench-tokens"), QStringLiteral("Tokens the --bench reply may have."),
                                         QStringLiteral("N"), QStringLiteral("256"));
    benchTokensOption.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(benchOption);
    parser.addOption(benchTokensOption);
    parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("A model to open: a .gguf file, or a compressed one (unpacked first)."), QStringLiteral("[model]"));
    parser.process(app);
    const QStringList models = parser.positionalArguments();

    // One Burrow per user: a second launch hands its file to the running
    // window and exits; only the first opens the database.
    SingleInstance instance(SingleInstance::defaultLockPath());
    switch (instance.start()) {
    case SingleInstance::Role::First:
        break;
    case SingleInstance::Role::Second: {
        QStringList files;
        for (const QString &model : models)
            files << QFileInfo(model).absoluteFilePath();
        if (instance.handOver(files))
            return 0;
        std::fprintf(stderr, "burrow: %s\n", qPrintable(instance.error()));
        return 1;
    }
    case SingleInstance::Role::Failed:
        std::fprintf(stderr, "burrow: %s; going on without it\n", qPrintable(instance.error()));
        break;
    }

    if (QQuickStyle::name().isEmpty())
        QQuickStyle::setStyle(QStringLiteral("Fusion"));

    // Text drawn as the desktop draws it (hinted glyphs from the font
    // engine), not as distance fields: crisper at reading sizes, and a third
    // of the drawing cost when the CPU draws the window (llvmpipe).
    QQuickWindow::setTextRenderType(QQuickWindow::NativeTextRendering);
    // Without a GPU, the software backend (repaints only what changed).
    RenderPacing::applyBackend();
    // The saved language, or the system's (docs/translations.md).
    Language::installSaved();

    QQmlApplicationEngine engine;
    QObject::connect(&engine, &QQmlApplicationEngine::objectCreationFailed, &app,
                     [] { QCoreApplication::exit(1); }, Qt::QueuedConnection);
    engine.load(AppInfo::mainQmlUrl());
    if (engine.rootObjects().isEmpty())
        return 1;

    // `burrow MODEL`: opened as a drop would be (a compressed model is
    // unpacked into the models folder first), without the card unless
    // memory is short (ModelLoader::openPath).
    auto *window = qobject_cast<QQuickWindow *>(engine.rootObjects().first());
    auto *chat = engine.rootObjects().first()->property("chat").value<ChatController *>();
    // A second launch: the window comes forward and opens what it was given
    // as a drop would (the model card first: replies being written go on
    // until the user chooses to load it).
    QObject::connect(&instance, &SingleInstance::argumentsReceived, &app, [window, chat](const QStringList &files) {
        if (window) {
            if (window->visibility() == QWindow::Minimized || window->visibility() == QWindow::Hidden)
                window->showNormal();
            window->raise();
            window->requestActivate();
        }
        if (chat && !files.isEmpty())
            chat->models()->openUrls({QUrl::fromLocalFile(files.first())});
    });
    // Reply text reaches the view less often when the CPU draws the window.
    if (chat)
        RenderPacing::watch(window, [chat](bool software) {
            chat->setViewFlushInterval(RenderPacing::flushIntervalMs(software));
        });
    if (chat && parser.isSet(benchOption)) {
        if (models.isEmpty()) {
            std::fprintf(stderr, "burrow --bench PROMPT needs a model\n");
            return 2;
        }
        new ReplyBench(chat, parser.value(benchOption), parser.value(benchTokensOption).toInt(), &app);
    }
    if (chat && !models.isEmpty())
        chat->models()->openPath(models.first());
    return app.exec();
}
