// `burrow-cli serve --parallel 4` on the 155M bench model (issue 30): four
// concurrent greedy requests ("Once upon a time", 24 tokens) each return
// the text the same request gets alone (the engine is batch-invariant; on
// the old code they differed after ~8 tokens), with drafting off and with
// n-gram drafting (the default), and usage reports the drafts
// (completion_tokens_details.accepted_prediction_tokens and
// rejected_prediction_tokens). Skips without the model.
#include "http_client.h"
#include "serve_process.h"
#include "test_support.h"

#include <QJsonArray>
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
};

QTEST_MAIN(TestServeInvariance)
#include "tst_serve_invariance.moc"
