// Model::load's resident memory (api/model.cpp): the file pages of packed
// matrices are handed back after packing and the load's page-touching pass
// leaves them out, experts included. Measured as the resident size of the
// model file's own mappings (/proc/self/smaps): a mixture-of-experts file,
// nearly all of it expert weights, keeps well under half of it resident
// once loaded on a path with packed kernels (before experts were left out of
// that pass, all of it: every MoE model held its weights twice).
#include "burrow/engine.h"
#include "model/synthetic_model.h"
#include "quant/packed.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <string>

using namespace burrow;

namespace {

// Bytes of `path`'s mappings resident in this process (Rss lines of smaps).
qint64 residentBytesOf(const std::string &path)
{
    QFile f(QStringLiteral("/proc/self/smaps"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray all = f.readAll();
    qint64 kb = 0;
    bool inFile = false;
    for (const QByteArray &line : all.split('\n')) {
        // A mapping's header: "start-end perms offset dev inode [path]".
        const QList<QByteArray> cols = line.simplified().split(' ');
        if (!cols.isEmpty() && cols[0].contains('-') && !cols[0].endsWith(':')) {
            inFile = cols.size() >= 6 && cols[5] == QByteArray::fromStdString(path);
            continue;
        }
        if (inFile && line.startsWith("Rss:"))
            kb += line.mid(4).trimmed().split(' ').value(0).toLongLong();
    }
    return kb * 1024;
}

} // namespace

class TestModelMemory : public QObject {
    Q_OBJECT

private slots:
    void moeExpertPagesStayReleased()
    {
        if (!quant::packedKernelsActive(GgmlType::GGML_TYPE_Q8_0))
            QSKIP("this CPU path has no packed kernels: nothing is packed, every page stays mapped");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("moe.gguf")).toStdString();
        model::SyntheticSpec spec;
        spec.arch = "qwen3moe";
        spec.fileType = "Q8_0";
        spec.shape.nEmbd = 512;
        spec.shape.nHead = 8;
        spec.shape.nHeadKv = 4;
        spec.shape.headDim = 64;
        spec.shape.nFf = 0;
        spec.shape.nExpert = 16;
        spec.shape.nExpertUsed = 2;
        spec.shape.nFfExp = 512;
        spec.shape.nLayer = 2;
        spec.shape.nVocab = 512;
        spec.threads = 2;
        auto written = model::writeSyntheticModel(spec, path);
        QVERIFY2(written, written ? "" : written.message().c_str());
        const qint64 fileBytes = QFile(QString::fromStdString(path)).size();
        QVERIFY(fileBytes > 20 * 1024 * 1024);   // 2 layers x 16 experts x 3 x 512 x 512 in Q8_0, and the rest

        auto m = Model::load(path);
        QVERIFY2(m, m ? "" : m.message().c_str());
        const qint64 resident = residentBytesOf(path);
        qInfo("file %lld bytes, %lld resident after loading", static_cast<long long>(fileBytes),
              static_cast<long long>(resident));
        QVERIFY(resident >= 0);
        QVERIFY2(resident < fileBytes / 4, qPrintable(QStringLiteral("%1 of %2 bytes of the file still resident")
                                                           .arg(resident).arg(fileBytes)));
    }
};

QTEST_MAIN(TestModelMemory)
#include "tst_model_memory.moc"
