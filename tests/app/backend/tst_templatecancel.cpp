// Stop (Esc) ends a reply whose chat template is still rendering (issue 27,
// item 3: in the app Esc did not stop a render; a template that loops for
// its whole step budget held the engine thread for as long). The real
// EngineBackend on a tiny model whose template never ends by itself: the
// reply's cancel token is cancelled while the template renders, and the
// reply ends as stopped, not after the template's limits.
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include "backend/enginebackend.h"
#include "burrow/engine.h"
#include "gguf/gguf_writer.h"
#include "settings/chatsettings.h"
#include "tiny_model.h"

#include <chrono>
#include <future>

class TestTemplateCancel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void stopEndsATemplateStillRendering()
    {
        QTemporaryDir dir;
        burrow::test::TinySpec spec;
        spec.nCtx = 256;
        // Renders until its own limits stop it (its 10 million steps).
        const std::string endless = "{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}";
        spec.extraKeys = [&](burrow::gguf::GgufWriter &w) { w.addString("tokenizer.chat_template", endless); };
        const QString path = dir.filePath(QStringLiteral("endless-template.gguf"));
        QVERIFY(burrow::test::writeTinyModel(spec, path.toStdString()));

        EngineBackend backend;
        QString error;
        QVERIFY2(backend.load(path, 256, {}, &error), qPrintable(error));

        ChatSettings settings;
        settings.setMaxTokens(2);
        settings.setContextSize(256);
        ChatRequest request;
        request.id = 1;
        request.messages = {{"user", "Hi", {}, {}}};
        request.rows = {0};
        request.settings = settings.toEngine();
        request.cancel = std::make_shared<burrow::CancelToken>();

        std::promise<GenerationOutcome> done;
        auto outcome = done.get_future();
        ChatBackend::ReplySinks sinks;
        sinks.onText = [](const QString &, int, bool) { return true; };
        sinks.onPromptProgress = [](int, int) {};
        sinks.onPlan = [](const PromptPlan &) {};
        sinks.onDone = [&done](const GenerationOutcome &o) { done.set_value(o); };
        // The engine thread's part: generate() renders the prompt first.
        auto running = std::async(std::launch::async, [&] { backend.generate(request, std::move(sinks)); });
        // Well inside the render (its step budget alone takes about a second).
        QVERIFY(outcome.wait_for(std::chrono::milliseconds(100)) == std::future_status::timeout);

        QElapsedTimer timer;
        timer.start();
        request.cancel->cancel();   // what Esc does
        QVERIFY2(outcome.wait_for(std::chrono::seconds(5)) == std::future_status::ready,
                 "the render went on after Stop");
        const GenerationOutcome o = outcome.get();
        QVERIFY2(o.stop == GenerationOutcome::Stop::Cancelled, qPrintable(o.error));
        QCOMPARE(o.generatedTokens, 0);
        running.get();
        qInfo("stopped %lld ms after the cancel", static_cast<long long>(timer.elapsed()));
    }
};

QTEST_GUILESS_MAIN(TestTemplateCancel)
#include "tst_templatecancel.moc"
