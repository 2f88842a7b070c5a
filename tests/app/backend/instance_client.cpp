// A second launch for tst_singleinstance, as main.cpp does it: takes the
// lock at argv[1] or hands argv[2..] over to whoever holds it. Prints its
// role ("first", "second", "failed"); exit status 0 when it took the lock
// or handed over (a first stays until stdin closes), 1 otherwise.
#include <QCoreApplication>
#include <QSocketNotifier>

#include <cstdio>

#include "backend/singleinstance.h"

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 2)
        return 2;
    SingleInstance instance(args.at(1));
    switch (instance.start()) {
    case SingleInstance::Role::First: {
        std::printf("first\n");
        std::fflush(stdout);
        QObject::connect(&instance, &SingleInstance::argumentsReceived, &app, [](const QStringList &files) {
            std::printf("received %s\n", qPrintable(files.join(QLatin1Char('|'))));
            std::fflush(stdout);
        });
        QSocketNotifier input(0, QSocketNotifier::Read);
        QObject::connect(&input, &QSocketNotifier::activated, &app, [] { QCoreApplication::quit(); });
        return app.exec();
    }
    case SingleInstance::Role::Second: {
        std::printf("second\n");
        const bool ok = instance.handOver(args.mid(2));
        if (!ok)
            std::printf("error %s\n", qPrintable(instance.error()));
        return ok ? 0 : 1;
    }
    case SingleInstance::Role::Failed:
        std::printf("failed %s\n", qPrintable(instance.error()));
        return 1;
    }
    return 1;
}
