// `burrow-cli serve --parallel 4` on the 155M bench model (issue 30): four
// concurrent greedy requests ("Once upon a time", 24 tokens) each return
// the text the same request gets alone (the engine is batch-invariant; on
// the old code they differed after ~8 tokens), with drafting off and with
// n-gram drafting (the default), and usage reports the drafts
// (completion_tokens_details.accepted_prediction_tokens and
// rejected_prediction_tokens). Skips without the model. And on a qwen35 file
// with an MTP block (written here by the engine's generator) the server
// drafts with it by default: the same text as with --spec off, alone and
// four at once, the drafts in usage.
#include "http_client.h"
#include "model/synthetic_model.h"
#include "serve_process.h"
#include "test_support.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace burrow::test;

namespace {

const char *const kModel = "models/bench/llama-155M-Q4_K_M.gguf";
const QByteArray kBody = R"({"prompt":"Once upon a time","max_tokens":24,"temperature":0})";

struct Completion {
    QString text;
    qint64 tokens = -1, accepted = -1, rejected = -1;
};

bool parse(const Reply &r, Completion *c)
{
    if (r.status != 200)
        return false;
    const QJsonObject o = jsonObject(r.body);
    c->text = o["choices"].toArray().at(0).toObject()["text"].toString();
    const QJsonObject usage = o["usage"].toObject();
    c->tokens = usage["completion_tokens"].toInteger(-1);
    const QJsonObject details = usage["completion_tokens_details"].toObject();
    c->accepted = details["accepted_prediction_tokens"].toInteger(-1);
    c->rejected = details["rejected_prediction_tokens"].toInteger(-1);
    return true;
}

} // namespace

class TestServeInvariance : public QObject {
    Q_OBJECT

private slots:
    void fourAtOnceEqualAlone_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::newRow("drafts off") << QStringLiteral("off");
        QTest::newRow("n-gram drafts") << QStringLiteral("ngram");
    }

    void fourAtOnceEqualAlone()
    {
        QFETCH(QString, spec);
        BURROW_REQUIRE_SHARED(QString::fromLatin1(kModel));
        ServeProcess server(sharedPath(QString::fromLatin1(kModel)),
                            {QStringLiteral("--parallel"), QStringLiteral("4"), QStringLiteral("-t"), QStringLiteral("2"),
                             QStringLiteral("-c"), QStringLiteral("256"), QStringLiteral("--spec"), spec});
        QVERIFY2(server.ok(), qPrintable(server.error()));

        Completion alone;
        QVERIFY(parse(httpExchange(httpRequest("POST", "/v1/completions", kBody), server.port(), 120000), &alone));
        QCOMPARE(alone.tokens, 24);
        QVERIFY2(alone.accepted >= 0 && alone.rejected >= 0, "usage reports the drafts");
        if (spec == QLatin1String("off"))
            QCOMPARE(alone.accepted + alone.rejected, 0);

        // Four at once: every connection's request sent before any is read.
        std::vector<std::unique_ptr<QTcpSocket>> sockets;
        for (int i = 0; i < 4; ++i) {
            auto s = std::make_unique<QTcpSocket>();
            s->connectToHost(QStringLiteral("127.0.0.1"), static_cast<quint16>(server.port()));
            QVERIFY(s->waitForConnected(5000));
            s->write(httpRequest("POST", "/v1/completions", kBody));
            s->flush();
            sockets.push_back(std::move(s));
        }
        for (int i = 0; i < 4; ++i) {
            Reply r;
            QVERIFY(readReply(*sockets[size_t(i)], &r, 120000));
            Completion c;
            QVERIFY2(parse(r, &c), r.body.constData());
            QVERIFY2(c.text == alone.text, qPrintable(QStringLiteral("request %1 of 4: '%2', alone: '%3'")
                                                          .arg(i).arg(c.text, alone.text)));
        }
    }

    void mtpByDefault()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        burrow::model::SyntheticSpec spec;
        spec.arch = "qwen35";
        spec.shape = burrow::model::findSyntheticPreset("qwen35-tiny")->shape;
        spec.shape.nextnLayers = 1;
        spec.fileType = "Q8_0";
        spec.threads = 2;
        const QString path = dir.filePath(QStringLiteral("qwen35-mtp.gguf"));
        QVERIFY(burrow::model::writeSyntheticModel(spec, path.toStdString()));
        const auto serve = [&](const QStringList &extra) {
            QStringList args{QStringLiteral("--parallel"), QStringLiteral("4"), QStringLiteral("-t"), QStringLiteral("2"),
                             QStringLiteral("-c"), QStringLiteral("256")};
            return std::make_unique<ServeProcess>(path, args + extra);
        };
        Completion plain;
        {
            auto off = serve({QStringLiteral("--spec"), QStringLiteral("off")});
            QVERIFY2(off->ok(), qPrintable(off->error()));
            QVERIFY(parse(httpExchange(httpRequest("POST", "/v1/completions", kBody), off->port(), 120000), &plain));
            QCOMPARE(plain.accepted + plain.rejected, 0);
        }
        auto server = serve({});   // --spec auto: the file's MTP block
        QVERIFY2(server->ok(), qPrintable(server->error()));
        Completion alone;
        QVERIFY(parse(httpExchange(httpRequest("POST", "/v1/completions", kBody), server->port(), 120000), &alone));
        QCOMPARE(alone.text, plain.text);
        QVERIFY2(alone.accepted + alone.rejected > 0, "the MTP block drafted (usage)");
        std::vector<std::unique_ptr<QTcpSocket>> sockets;
        for (int i = 0; i < 4; ++i) {
            auto s = std::make_unique<QTcpSocket>();
            s->connectToHost(QStringLiteral("127.0.0.1"), static_cast<quint16>(server->port()));
            QVERIFY(s->waitForConnected(5000));
            s->write(httpRequest("POST", "/v1/completions", kBody));
            s->flush();
            sockets.push_back(std::move(s));
        }
        for (int i = 0; i < 4; ++i) {
            Reply r;
            QVERIFY(readReply(*sockets[size_t(i)], &r, 120000));
            Completion c;
            QVERIFY2(parse(r, &c), r.body.constData());
            QCOMPARE(c.text, plain.text);
        }
    }
};

QTEST_MAIN(TestServeInvariance)
#include "tst_serve_invariance.moc"
