// A home folder with the model folders of the apps Burrow's library reads
// (LM Studio, Ollama, GPT4All, Jan, the Hugging Face cache, Burrow's own),
// written by the tests into a temporary folder: small real models (the tiny
// Llama of tiny_model.h, which the engine loads), and everything a library
// must pass over safely: a text file named .gguf, a broken header, a vision
// projector, a split model and one with a part missing, an unknown
// architecture, Ollama manifests with a hostile digest and a missing blob,
// hub-cache links (two revisions of one blob, a dangling one), a symbolic
// link loop, a link back up the tree, a FIFO, and (optionally) a folder no
// one may read. expectedModels() / expectedSkipped() list what a scan must
// find, exactly, in order.
#pragma once

#include "burrow/library.h"
#include "gguf/gguf_writer.h"
#include "tiny_model.h"

#include <QDir>
#include <QFile>
#include <QList>
#include <QString>

#include <sys/stat.h>
#include <unistd.h>

namespace burrow::test {

struct ExpectedModel {
    QString path;          // below the home ("" prefix: relative)
    QString source;        // burrow::library::sourceId
    QString name;
    QString repository;
    QString family;
    QString runnable;      // "yes", "architecture", "split", "missing_part"
    int parts = 1;
};

struct ExpectedSkip {
    QString path;          // below the home
    QString reason;        // a part of the reason
};

class FakeHome {
public:
    // Writes the tree under `root` (an empty folder). `lockedFolder`: also
    // Models/locked/ with a model inside and mode 000 (only unreadable for a
    // process without CAP_DAC_OVERRIDE; the engine test drops it when root).
    bool build(const QString &root, bool lockedFolder = false)
    {
        m_root = root;
        m_locked = lockedFolder;
        TinySpec tiny;
        TinySpec mamba;
        mamba.arch = "mamba";
        TinySpec labelled;
        labelled.extraKeys = [](gguf::GgufWriter &w) { w.addString("general.size_label", "8B"); };
        TinySpec projector;
        projector.extraKeys = [](gguf::GgufWriter &w) { w.addString("general.type", "mmproj"); };

        bool ok = true;
        const auto model = [&](const QString &rel, const TinySpec &spec) { ok = ok && writeModel(rel, spec); };
        const auto text = [&](const QString &rel, const QByteArray &bytes) { ok = ok && writeBytes(rel, bytes); };
        const auto link = [&](const QString &target, const QString &rel) { ok = ok && makeLink(target, rel); };

        // Burrow's own models folder.
        model(".local/share/Burrow/models/burrow-tiny.gguf", tiny);
        text(".local/share/Burrow/models/downloading.gguf.part", QByteArray("GGUF\x03\x00\x00\x00", 8));   // passed over silently

        // LM Studio: publisher/repo/file.gguf.
        const QString lms = QStringLiteral(".lmstudio/models/");
        model(lms + "lmstudio-community/Tiny-GGUF/Tiny-Q8_0.gguf", tiny);
        model(lms + "lmstudio-community/Tiny-GGUF/mmproj-Tiny-F16.gguf", projector);
        model(lms + "bartowski/Mamba-GGUF/mamba-tiny.gguf", mamba);
        ok = ok && writeSplit(lms + "bartowski/Big-GGUF/Big", 3, 3);
        ok = ok && writeSplit(lms + "bartowski/Half-GGUF/Half", 2, 1);   // part 2 of 2 missing
        model(lms + "pub/NoExt/renamed-model", tiny);                     // a GGUF without .gguf
        text(lms + "notes/fake.gguf", "This is not a model.\n");
        text(lms + "notes/truncated.gguf", QByteArray("GGUF\x03\x00\x00\x00\xff\xff", 10));
        text(lms + "notes/README.md", "notes\n");
        link(QStringLiteral("loop"), lms + "notes/loop");                // a link to itself
        link(QStringLiteral(".."), lms + "notes/up");                    // back up the tree
        link(QStringLiteral("missing.gguf"), lms + "notes/gone.gguf");   // dangling
        ok = ok && ::mkfifo(QFile::encodeName(path(lms + "notes/pipe.gguf")).constData(), 0600) == 0;
        // LM Studio before 0.3.
        model(".cache/lm-studio/models/old/Repo/old-tiny.gguf", tiny);

        // Ollama: manifests naming blobs.
        const QString ollama = QStringLiteral(".ollama/models/");
        const QString blobA = QString(64, QLatin1Char('a')), blobB = QString(64, QLatin1Char('b'));
        model(ollama + "blobs/sha256-" + blobA, tiny);
        model(ollama + "blobs/sha256-" + blobB, labelled);
        text(ollama + "blobs/sha256-" + QString(64, QLatin1Char('c')), "{\"model_format\":\"gguf\"}");
        text(ollama + "manifests/registry.ollama.ai/library/tiny/latest", manifest(QStringLiteral("sha256:") + blobA));
        text(ollama + "manifests/hf.co/org/Tiny-GGUF/Q8_0", manifest(QStringLiteral("sha256:") + blobB));
        text(ollama + "manifests/registry.ollama.ai/library/evil/latest", manifest("sha256:../../../../etc/passwd"));
        text(ollama + "manifests/registry.ollama.ai/library/missing/latest",
             manifest(QStringLiteral("sha256:") + QString(64, QLatin1Char('d'))));

        // GPT4All: files at the top.
        model(".local/share/nomic.ai/GPT4All/gpt4all-tiny.gguf", tiny);

        // Jan 0.6+: llamacpp/models/ID/model.gguf beside model.yml.
        model(".local/share/Jan/data/llamacpp/models/jan-tiny/model.gguf", tiny);
        text(".local/share/Jan/data/llamacpp/models/jan-tiny/model.yml", "model_path: model.gguf\n");

        // The hub cache: snapshots link into blobs.
        const QString hub = QStringLiteral(".cache/huggingface/hub/models--org--Tiny-GGUF/");
        model(hub + "blobs/1111", tiny);
        text(hub + "blobs/2222", "# Tiny\n");
        text(hub + "refs/main", "rev1");
        link(QStringLiteral("../../blobs/1111"), hub + "snapshots/rev1/tiny.Q8_0.gguf");
        link(QStringLiteral("../../blobs/2222"), hub + "snapshots/rev1/README.md");
        link(QStringLiteral("../../blobs/1111"), hub + "snapshots/rev2/tiny.Q8_0.gguf");   // the same blob
        link(QStringLiteral("../../blobs/9999"), hub + "snapshots/rev2/dangling.gguf");
        model(".cache/huggingface/hub/datasets--org--data/blobs/3333", tiny);              // not a model repo

        // A folder of the user's: a model, a link to LM Studio's (listed there already).
        model("Models/own-tiny.gguf", tiny);
        link(QStringLiteral("../.lmstudio/models/lmstudio-community"), "Models/linked");
        if (lockedFolder) {
            model("Models/locked/hidden.gguf", tiny);
            ok = ok && ::chmod(QFile::encodeName(path("Models/locked")).constData(), 0) == 0;
        }
        return ok;
    }

    // Gives the locked folder its permissions back (QTemporaryDir can remove it).
    void unlock()
    {
        if (m_locked)
            ::chmod(QFile::encodeName(path("Models/locked")).constData(), 0700);
    }

    QString path(const QString &rel) const { return m_root + QLatin1Char('/') + rel; }

    // The environment of a user with this home (Ollama's folder named, so a
    // system-wide /usr/share/ollama never joins in).
    library::Environment environment() const
    {
        library::Environment e;
        e.home = m_root.toStdString();
        e.ollamaModels = path(QStringLiteral(".ollama/models")).toStdString();
        return e;
    }
    // The default places plus the user's folder.
    std::vector<library::Place> places() const
    {
        std::vector<library::Place> p = library::defaultPlaces(environment());
        p.push_back(library::userPlace(path(QStringLiteral("Models")).toStdString()));
        return p;
    }

    static QList<ExpectedModel> expectedModels()
    {
        const QString lms = QStringLiteral(".lmstudio/models/");
        const QString family = QStringLiteral("llama");
        return {
            {".local/share/Burrow/models/burrow-tiny.gguf", "burrow", "burrow-tiny", "", family, "yes"},
            {lms + "bartowski/Big-GGUF/Big-00001-of-00003.gguf", "lmstudio", "Big", "bartowski/Big-GGUF", family, "split", 3},
            {lms + "bartowski/Half-GGUF/Half-00001-of-00002.gguf", "lmstudio", "Half", "bartowski/Half-GGUF", family,
             "missing_part", 2},
            {lms + "bartowski/Mamba-GGUF/mamba-tiny.gguf", "lmstudio", "mamba-tiny", "bartowski/Mamba-GGUF", "mamba",
             "architecture"},
            {lms + "lmstudio-community/Tiny-GGUF/Tiny-Q8_0.gguf", "lmstudio", "Tiny-Q8_0", "lmstudio-community/Tiny-GGUF",
             family, "yes"},
            {lms + "pub/NoExt/renamed-model", "lmstudio", "renamed-model", "pub/NoExt", family, "yes"},
            {".cache/lm-studio/models/old/Repo/old-tiny.gguf", "lmstudio", "old-tiny", "old/Repo", family, "yes"},
            {".ollama/models/blobs/sha256-" + QString(64, QLatin1Char('b')), "ollama", "hf.co/org/Tiny-GGUF:Q8_0", "",
             family, "yes"},
            {".ollama/models/blobs/sha256-" + QString(64, QLatin1Char('a')), "ollama", "tiny:latest", "", family, "yes"},
            {".local/share/nomic.ai/GPT4All/gpt4all-tiny.gguf", "gpt4all", "gpt4all-tiny", "", family, "yes"},
            {".local/share/Jan/data/llamacpp/models/jan-tiny/model.gguf", "jan", "jan-tiny", "jan-tiny", family, "yes"},
            {".cache/huggingface/hub/models--org--Tiny-GGUF/snapshots/rev1/tiny.Q8_0.gguf", "huggingface", "tiny.Q8_0",
             "org/Tiny-GGUF", family, "yes"},
            {"Models/own-tiny.gguf", "folder", "own-tiny", "", family, "yes"},
        };
    }

    QList<ExpectedSkip> expectedSkipped() const
    {
        const QString lms = QStringLiteral(".lmstudio/models/");
        const QString hub = QStringLiteral(".cache/huggingface/hub/models--org--Tiny-GGUF/snapshots/");
        const QString manifests = QStringLiteral(".ollama/models/manifests/registry.ollama.ai/library/");
        QList<ExpectedSkip> skipped = {
            {lms + "lmstudio-community/Tiny-GGUF/mmproj-Tiny-F16.gguf", "vision projector"},
            {lms + "notes/fake.gguf", "not a GGUF file"},
            {lms + "notes/gone.gguf", "dangling"},
            {lms + "notes/loop", "loop"},
            {lms + "notes/truncated.gguf", "header"},
            {manifests + "evil/latest", "digest"},
            {manifests + "missing/latest", "missing"},
            {hub + "rev2/dangling.gguf", "dangling"},
        };
        if (m_locked)
            skipped.push_back({QStringLiteral("Models/locked"), "cannot be read"});
        return skipped;
    }

private:
    bool ensureFolder(const QString &rel) const
    {
        return QDir().mkpath(QFileInfo(path(rel)).absolutePath());
    }
    bool writeModel(const QString &rel, const TinySpec &spec) const
    {
        return ensureFolder(rel) && writeTinyModel(spec, path(rel).toStdString());
    }
    bool writeBytes(const QString &rel, const QByteArray &bytes) const
    {
        QFile f(path(rel));
        return ensureFolder(rel) && f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    }
    bool makeLink(const QString &target, const QString &rel) const
    {
        return ensureFolder(rel) &&
               ::symlink(QFile::encodeName(target).constData(), QFile::encodeName(path(rel)).constData()) == 0;
    }
    static QByteArray manifest(const QString &digest)
    {
        return QStringLiteral("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\","
                              "\"config\":{\"mediaType\":\"application/vnd.docker.container.image.v1+json\","
                              "\"digest\":\"sha256:%1\",\"size\":24},"
                              "\"layers\":[{\"mediaType\":\"application/vnd.ollama.image.model\",\"digest\":\"%2\","
                              "\"size\":1000},{\"mediaType\":\"application/vnd.ollama.image.template\","
                              "\"digest\":\"sha256:%1\",\"size\":10}]}")
            .arg(QString(64, QLatin1Char('c')), digest)
            .toUtf8();
    }
    // PREFIX-0000k-of-0000N.gguf for k = 1..written: the first a tiny model
    // with split.no 0 / split.count N, the others one tensor each.
    bool writeSplit(const QString &prefix, uint32_t count, uint32_t written) const
    {
        for (uint32_t k = 1; k <= written; ++k) {
            const QString rel = prefix + QString::asprintf("-%05u-of-%05u.gguf", k, count);
            if (!ensureFolder(rel))
                return false;
            if (k == 1) {
                TinySpec spec;
                spec.extraKeys = [count](gguf::GgufWriter &w) {
                    w.addU16("split.no", 0);
                    w.addU16("split.count", uint16_t(count));
                };
                if (!writeTinyModel(spec, path(rel).toStdString()))
                    return false;
                continue;
            }
            gguf::GgufWriter w;
            w.addU16("split.no", uint16_t(k - 1));
            w.addU16("split.count", uint16_t(count));
            std::vector<uint8_t> data(4 * 32 * 16, 0);
            w.addTensor("blk." + std::to_string(k) + ".ffn_up.weight", GgmlType::GGML_TYPE_F32, {32, 16}, data);
            if (!w.writeFile(path(rel).toStdString()))
                return false;
        }
        return true;
    }

    QString m_root;
    bool m_locked = false;
};

} // namespace burrow::test
