// The model library (burrow/library.h): where the apps keep models, the
// names it gives them, a fake home listed exactly (every model once, in
// order, and every file passed over with its reason), incremental rescans
// (headers read only for new or changed files), the walk's limits, and the
// reasons a model cannot run.
#include "burrow/library.h"
#include "fake_home.h"
#include "library/ollama_manifest.h"
#include "library/split_name.h"
#include "test_support.h"
#include "tiny_model.h"

#include <QDir>
#include <QFile>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <dirent.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <utime.h>

using namespace burrow;
using namespace burrow::library;

namespace {

// While alive, this thread lacks CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH
// (root reads a mode-000 folder otherwise, so "unreadable" could not be
// tested as root). A no-op for other users.
class WithoutDacOverride {
public:
    WithoutDacOverride()
    {
        if (::syscall(SYS_capget, &m_header, m_saved) != 0)
            return;
        __user_cap_data_struct reduced[2] = {m_saved[0], m_saved[1]};
        reduced[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
        m_dropped = ::syscall(SYS_capset, &m_header, reduced) == 0;
    }
    ~WithoutDacOverride()
    {
        if (m_dropped)
            ::syscall(SYS_capset, &m_header, m_saved);
    }

private:
    __user_cap_header_struct m_header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct m_saved[2] = {};
    bool m_dropped = false;
};

const char *runnableId(Runnable r)
{
    switch (r) {
    case Runnable::RUNNABLE_YES: return "yes";
    case Runnable::RUNNABLE_ARCHITECTURE: return "architecture";
    case Runnable::RUNNABLE_SPLIT: return "split";
    case Runnable::RUNNABLE_MISSING_PART: return "missing_part";
    case Runnable::RUNNABLE_SETTINGS: return "settings";
    case Runnable::RUNNABLE_WEIGHTS: return "weights";
    case Runnable::RUNNABLE_TOKENIZER: return "tokenizer";
    }
    return "?";
}

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

bool touch(const QString &path, int secondsAhead)
{
    struct utimbuf times {};
    times.actime = times.modtime = ::time(nullptr) + secondsAhead;
    return ::utime(QFile::encodeName(path).constData(), &times) == 0;
}

} // namespace

class TestLibrary : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void places_data();
    void places();
    void userPlaceLayout();
    void sizeClass_data();
    void sizeClass();
    void ollamaNames_data();
    void ollamaNames();
    void splitNames_data();
    void splitNames();
    void listsExactly_data();
    void listsExactly();
    void listsNothingElse();
    void skipsExactly();
    void placeReports();
    void incrementalRescan();
    void limits();
    void manifestLimits();
    void reasons_data();
    void reasons();

private:
    QTemporaryDir m_home;
    test::FakeHome m_fake;
    ScanResult m_result;
    bool m_lockedReadable = false;   // the locked folder could still be read (the capabilities stayed)
};

void TestLibrary::initTestCase()
{
    QVERIFY(m_home.isValid());
    QVERIFY(m_fake.build(m_home.path(), true));
    Scanner scanner;
    WithoutDacOverride unprivileged;
    // (access() and QFileInfo judge root by other rules than opendir does.)
    if (DIR *dir = ::opendir(QFile::encodeName(m_fake.path(QStringLiteral("Models/locked"))).constData())) {
        m_lockedReadable = true;
        ::closedir(dir);
    }
    m_result = scanner.scan(m_fake.places());
}

void TestLibrary::cleanupTestCase()
{
    m_fake.unlock();
}

void TestLibrary::places_data()
{
    QTest::addColumn<QStringList>("variables");   // NAME=value
    QTest::addColumn<QStringList>("expected");    // source-id path (layout f/o/h)
    const QStringList homeOnly = {
        "burrow /h/.local/share/Burrow/models f",
        "lmstudio /h/.lmstudio/models f",
        "lmstudio /h/.cache/lm-studio/models f",
        "ollama /h/.ollama/models o",
        "ollama /usr/share/ollama/.ollama/models o",
        "gpt4all /h/.local/share/nomic.ai/GPT4All f",
        "jan /h/.local/share/Jan/data/llamacpp/models f",
        "jan /h/.local/share/Jan/data/models f",
        "jan /h/.config/Jan/data/models f",
        "jan /h/jan/models f",
        "huggingface /h/.cache/huggingface/hub h",
    };
    QTest::newRow("home") << QStringList{"HOME=/h"} << homeOnly;
    QTest::newRow("relative XDG ignored") << QStringList{"HOME=/h", "XDG_DATA_HOME=rel", "XDG_CACHE_HOME=rel"}
                                          << homeOnly;
    QTest::newRow("XDG folders") << QStringList{"HOME=/h", "XDG_DATA_HOME=/d", "XDG_CONFIG_HOME=/c", "XDG_CACHE_HOME=/k"}
                                 << QStringList{
                                        "burrow /d/Burrow/models f",
                                        "lmstudio /h/.lmstudio/models f",
                                        "lmstudio /h/.cache/lm-studio/models f",
                                        "ollama /h/.ollama/models o",
                                        "ollama /usr/share/ollama/.ollama/models o",
                                        "gpt4all /d/nomic.ai/GPT4All f",
                                        "jan /d/Jan/data/llamacpp/models f",
                                        "jan /d/Jan/data/models f",
                                        "jan /c/Jan/data/models f",
                                        "jan /h/jan/models f",
                                        "huggingface /k/huggingface/hub h",
                                    };
    QStringList hfHome = homeOnly;
    hfHome.last() = QStringLiteral("huggingface /hf/hub h");
    QTest::newRow("HF_HOME") << QStringList{"HOME=/h", "HF_HOME=/hf", "XDG_CACHE_HOME=/k"} << hfHome;
    QStringList hubCache = homeOnly;
    hubCache.last() = QStringLiteral("huggingface /hub h");
    QTest::newRow("HF_HUB_CACHE first") << QStringList{"HOME=/h", "HF_HOME=/hf", "HF_HUB_CACHE=/hub"} << hubCache;
    QStringList ollama = homeOnly;
    ollama.removeAt(4);
    ollama[3] = QStringLiteral("ollama /o o");
    QTest::newRow("OLLAMA_MODELS") << QStringList{"HOME=/h", "OLLAMA_MODELS=/o"} << ollama;
    QTest::newRow("no home") << QStringList{}
                             << QStringList{"ollama /usr/share/ollama/.ollama/models o"};
}

void TestLibrary::places()
{
    QFETCH(QStringList, variables);
    QFETCH(QStringList, expected);
    Environment e;
    for (const QString &v : variables) {
        const QString name = v.section(QLatin1Char('='), 0, 0);
        const std::string value = v.section(QLatin1Char('='), 1).toStdString();
        if (name == QLatin1String("HOME")) e.home = value;
        else if (name == QLatin1String("XDG_DATA_HOME")) e.xdgDataHome = value;
        else if (name == QLatin1String("XDG_CONFIG_HOME")) e.xdgConfigHome = value;
        else if (name == QLatin1String("XDG_CACHE_HOME")) e.xdgCacheHome = value;
        else if (name == QLatin1String("HF_HOME")) e.hfHome = value;
        else if (name == QLatin1String("HF_HUB_CACHE")) e.hfHubCache = value;
        else if (name == QLatin1String("OLLAMA_MODELS")) e.ollamaModels = value;
        else QFAIL(qPrintable(name));
    }
    QStringList got;
    for (const Place &p : defaultPlaces(e)) {
        const char layout = p.layout == Layout::LAYOUT_OLLAMA ? 'o' : p.layout == Layout::LAYOUT_HF_CACHE ? 'h' : 'f';
        got << QStringLiteral("%1 %2 %3").arg(sourceId(p.source), q(p.path)).arg(QLatin1Char(layout));
    }
    QCOMPARE(got, expected);
}

void TestLibrary::userPlaceLayout()
{
    QCOMPARE(userPlace(m_fake.path(QStringLiteral(".ollama/models")).toStdString()).layout, Layout::LAYOUT_OLLAMA);
    QCOMPARE(userPlace(m_fake.path(QStringLiteral(".cache/huggingface/hub")).toStdString()).layout,
             Layout::LAYOUT_HF_CACHE);
    QCOMPARE(userPlace(m_fake.path(QStringLiteral(".lmstudio/models")).toStdString()).layout, Layout::LAYOUT_FILES);
    QCOMPARE(userPlace(m_fake.path(QStringLiteral("absent")).toStdString()).layout, Layout::LAYOUT_FILES);
}

void TestLibrary::sizeClass_data()
{
    QTest::addColumn<qulonglong>("parameters");
    QTest::addColumn<QString>("expected");
    QTest::newRow("260K") << 260000ull << "260K";
    QTest::newRow("135M") << 134515008ull << "135M";
    QTest::newRow("1.1B") << 1100048384ull << "1.1B";
    QTest::newRow("7B") << 7000000000ull << "7B";
    QTest::newRow("8B") << 8030261248ull << "8B";
    QTest::newRow("70B") << 70553706496ull << "71B";
    QTest::newRow("small") << 512ull << "512";
}

void TestLibrary::sizeClass()
{
    QFETCH(qulonglong, parameters);
    QFETCH(QString, expected);
    QCOMPARE(q(sizeClassFor(parameters)), expected);
}

void TestLibrary::ollamaNames_data()
{
    QTest::addColumn<QString>("relative");
    QTest::addColumn<QString>("expected");
    QTest::newRow("library") << "registry.ollama.ai/library/llama3.2/latest" << "llama3.2:latest";
    QTest::newRow("namespace") << "registry.ollama.ai/someone/model/q4" << "someone/model:q4";
    QTest::newRow("other registry") << "hf.co/bartowski/Qwen-GGUF/Q4_K_M" << "hf.co/bartowski/Qwen-GGUF:Q4_K_M";
    QTest::newRow("short") << "name/tag" << "name:tag";
}

void TestLibrary::ollamaNames()
{
    QFETCH(QString, relative);
    QFETCH(QString, expected);
    QCOMPARE(q(ollamaModelName(relative.toStdString())), expected);
}

void TestLibrary::splitNames_data()
{
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QString>("prefix");   // "" when not a part's name
    QTest::addColumn<int>("index");
    QTest::addColumn<int>("count");
    QTest::newRow("first") << "Qwen3-30B-Q4_K_M-00001-of-00003.gguf" << "Qwen3-30B-Q4_K_M" << 1 << 3;
    QTest::newRow("last") << "a-00003-of-00003.gguf" << "a" << 3 << 3;
    QTest::newRow("plain") << "model.gguf" << "" << 0 << 0;
    QTest::newRow("index beyond count") << "a-00004-of-00003.gguf" << "" << 0 << 0;
    QTest::newRow("four digits") << "a-0001-of-0003.gguf" << "" << 0 << 0;
    QTest::newRow("no prefix") << "-00001-of-00003.gguf" << "" << 0 << 0;
    QTest::newRow("zero") << "a-00000-of-00003.gguf" << "" << 0 << 0;
}

void TestLibrary::splitNames()
{
    QFETCH(QString, fileName);
    QFETCH(QString, prefix);
    QFETCH(int, index);
    QFETCH(int, count);
    const auto split = parseSplitName(fileName.toStdString());
    QCOMPARE(split.has_value(), !prefix.isEmpty());
    if (!split)
        return;
    QCOMPARE(q(split->prefix), prefix);
    QCOMPARE(int(split->index), index);
    QCOMPARE(int(split->count), count);
    QCOMPARE(q(splitPartName(split->prefix, split->index, split->count)), fileName);
}

void TestLibrary::listsExactly_data()
{
    QTest::addColumn<int>("row");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("repository");
    QTest::addColumn<QString>("family");
    QTest::addColumn<QString>("runnable");
    QTest::addColumn<int>("parts");
    const QList<test::ExpectedModel> expected = test::FakeHome::expectedModels();
    for (int i = 0; i < expected.size(); ++i) {
        const test::ExpectedModel &m = expected[i];
        QTest::newRow(qPrintable(m.path)) << i << m.path << m.source << m.name << m.repository << m.family
                                          << m.runnable << m.parts;
    }
}

void TestLibrary::listsExactly()
{
    QFETCH(int, row);
    QFETCH(QString, path);
    QFETCH(QString, source);
    QFETCH(QString, name);
    QFETCH(QString, repository);
    QFETCH(QString, family);
    QFETCH(QString, runnable);
    QFETCH(int, parts);
    QVERIFY(row < int(m_result.models.size()));
    const FoundModel &m = m_result.models[size_t(row)];
    QCOMPARE(q(m.path), m_fake.path(path));
    QCOMPARE(QString::fromLatin1(sourceId(m.source)), source);
    QCOMPARE(q(m.name), name);
    QCOMPARE(q(m.repository), repository);
    QCOMPARE(q(m.info.architecture), family);
    QCOMPARE(QString::fromLatin1(runnableId(m.runnable)), runnable);
    QCOMPARE(m.canRun(), runnable == QLatin1String("yes"));
    QCOMPARE(m.whyNot.empty(), m.canRun());
    QCOMPARE(int(m.partCount), parts);
    QCOMPARE(q(m.realPath), QFileInfo(m_fake.path(path)).canonicalFilePath());
    QVERIFY(!m.sizeClass.empty());
    QVERIFY(m.totalSize > 0);
    QVERIFY(m.modifiedNs > 0);

    // What each kind of row says besides.
    if (name == QLatin1String("hf.co/org/Tiny-GGUF:Q8_0"))
        QCOMPARE(q(m.sizeClass), QStringLiteral("8B"));   // general.size_label
    else if (runnable == QLatin1String("yes"))
        QCOMPARE(q(m.sizeClass), QStringLiteral("20K"));  // from the parameter count
    if (runnable == QLatin1String("architecture"))
        QCOMPARE(q(m.whyNot), QStringLiteral("the 'mamba' architecture is not supported yet"));
    if (runnable == QLatin1String("split")) {
        // The three parts: sizes and parameters added up.
        qulonglong bytes = 0;
        for (int k = 1; k <= 3; ++k)
            bytes += QFileInfo(m_fake.path(path).replace(QStringLiteral("-00001-of-"),
                                                         QString::asprintf("-%05d-of-", k))).size();
        QCOMPARE(qulonglong(m.totalSize), bytes);
        QCOMPARE(m.info.parameterCount, uint64_t(19616 + 2 * 32 * 16));
        QVERIFY(q(m.whyNot).startsWith(QStringLiteral("split into 3 files")));
    }
    if (runnable == QLatin1String("missing_part"))
        QCOMPARE(q(m.whyNot), QStringLiteral("a part of this split model is missing: Half-00002-of-00002.gguf"));
}

void TestLibrary::listsNothingElse()
{
    QStringList got;
    for (const FoundModel &m : m_result.models)
        got << q(m.path).mid(m_home.path().size() + 1);
    QStringList expected;
    for (const test::ExpectedModel &m : test::FakeHome::expectedModels())
        expected << m.path;
    if (m_lockedReadable)
        expected.insert(expected.size() - 1, QStringLiteral("Models/locked/hidden.gguf"));
    QCOMPARE(got, expected);
}

void TestLibrary::skipsExactly()
{
    QList<test::ExpectedSkip> expected = m_fake.expectedSkipped();
    if (m_lockedReadable) {
        qWarning("the locked folder stays readable (no capability to drop): its row is not checked");
        expected.removeLast();
    }
    QStringList got, want;
    QHash<QString, QString> reasons;
    for (const Skipped &s : m_result.skipped) {
        const QString rel = q(s.path).mid(m_home.path().size() + 1);
        got << rel;
        reasons.insert(rel, q(s.reason));
    }
    for (const test::ExpectedSkip &s : expected)
        want << s.path;
    got.sort();
    want.sort();
    QCOMPARE(got, want);
    for (const test::ExpectedSkip &s : expected)
        QVERIFY2(reasons.value(s.path).contains(s.reason, Qt::CaseInsensitive),
                 qPrintable(s.path + QStringLiteral(": ") + reasons.value(s.path)));
}

void TestLibrary::placeReports()
{
    QHash<QString, int> counts;
    QSet<QString> present;
    for (const PlaceReport &p : m_result.places) {
        const QString rel = q(p.place.path).mid(m_home.path().size() + 1);
        if (p.exists)
            present.insert(rel);
        counts[rel] = int(p.modelCount);
    }
    QCOMPARE(present, (QSet<QString>{".local/share/Burrow/models", ".lmstudio/models", ".cache/lm-studio/models",
                                     ".ollama/models", ".local/share/nomic.ai/GPT4All",
                                     ".local/share/Jan/data/llamacpp/models", ".cache/huggingface/hub", "Models"}));
    QCOMPARE(counts.value(QStringLiteral(".lmstudio/models")), 5);
    QCOMPARE(counts.value(QStringLiteral(".ollama/models")), 2);
    QCOMPARE(counts.value(QStringLiteral("Models")), m_lockedReadable ? 2 : 1);
}

// A second scan reads no header; a changed, a new and a removed file are
// each noticed, and only the new or changed one is read.
void TestLibrary::incrementalRescan()
{
    QTemporaryDir home;
    QVERIFY(home.isValid());
    test::FakeHome fake;
    QVERIFY(fake.build(home.path()));
    Scanner scanner;
    const std::vector<Place> places = fake.places();

    const ScanResult first = scanner.scan(places);
    QCOMPARE(first.models.size(), size_t(test::FakeHome::expectedModels().size()));
    QVERIFY(first.stats.headerReads >= first.models.size());
    QVERIFY(first.stats.magicReads >= first.stats.headerReads);

    const ScanResult second = scanner.scan(places);
    QCOMPARE(second.stats.headerReads, uint64_t(0));
    QCOMPARE(second.stats.magicReads, uint64_t(0));
    QCOMPARE(second.stats.filesSeen, first.stats.filesSeen);
    QCOMPARE(second.models.size(), first.models.size());
    for (size_t i = 0; i < first.models.size(); ++i) {
        QCOMPARE(second.models[i].path, first.models[i].path);
        QCOMPARE(second.models[i].runnable, first.models[i].runnable);
        QCOMPARE(second.models[i].info.parameterCount, first.models[i].info.parameterCount);
    }

    // A changed file (another modification time): its header only.
    QVERIFY(touch(fake.path(QStringLiteral(".local/share/nomic.ai/GPT4All/gpt4all-tiny.gguf")), 10));
    const ScanResult changed = scanner.scan(places);
    QCOMPARE(changed.stats.headerReads, uint64_t(1));
    QCOMPARE(changed.stats.magicReads, uint64_t(1));

    // A new file: its header only, and it is listed.
    QVERIFY(test::writeTinyModel(test::TinySpec{}, fake.path(QStringLiteral("Models/new-tiny.gguf")).toStdString()));
    const ScanResult added = scanner.scan(places);
    QCOMPARE(added.stats.headerReads, uint64_t(1));
    QCOMPARE(added.models.size(), first.models.size() + 1);
    QCOMPARE(q(added.models.front().name), QStringLiteral("burrow-tiny"));

    // A removed file: gone, nothing read.
    QVERIFY(QFile::remove(fake.path(QStringLiteral("Models/new-tiny.gguf"))));
    QVERIFY(QFile::remove(fake.path(QStringLiteral(".local/share/Burrow/models/burrow-tiny.gguf"))));
    const ScanResult removed = scanner.scan(places);
    QCOMPARE(removed.stats.headerReads, uint64_t(0));
    QCOMPARE(removed.models.size(), first.models.size() - 1);
    QCOMPARE(q(removed.models.front().name), QStringLiteral("Big"));
}

void TestLibrary::limits()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QString deep = root.path();
    for (int i = 0; i < 6; ++i)
        deep += QStringLiteral("/d%1").arg(i);
    QVERIFY(QDir().mkpath(deep));
    QVERIFY(test::writeTinyModel(test::TinySpec{}, (deep + QStringLiteral("/deep.gguf")).toStdString()));
    QVERIFY(test::writeTinyModel(test::TinySpec{}, (root.path() + QStringLiteral("/top.gguf")).toStdString()));
    const std::vector<Place> places{userPlace(root.path().toStdString())};

    ScanLimits shallow;
    shallow.maxDepth = 3;
    const ScanResult cut = Scanner(shallow).scan(places);
    QCOMPARE(cut.models.size(), size_t(1));
    QCOMPARE(q(cut.models[0].name), QStringLiteral("top"));
    QCOMPARE(cut.skipped.size(), size_t(1));
    QCOMPARE(q(cut.skipped[0].path), root.path() + QStringLiteral("/d0/d1/d2/d3"));
    QCOMPARE(q(cut.skipped[0].reason), QStringLiteral("deeper than 3 folders"));

    ScanLimits few;
    few.maxEntries = 3;   // d0, d1 (in d0), d2: then the walk stops
    const ScanResult stopped = Scanner(few).scan(places);
    QCOMPARE(stopped.models.size(), size_t(0));
    QCOMPARE(stopped.skipped.size(), size_t(1));
    QCOMPARE(q(stopped.skipped[0].reason), QStringLiteral("stopped after 3 entries"));

    const ScanResult all = Scanner().scan(places);
    QCOMPARE(all.models.size(), size_t(2));
    QVERIFY(all.skipped.empty());
}

void TestLibrary::manifestLimits()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString models = root.path() + QStringLiteral("/ollama");
    const QString lib = models + QStringLiteral("/manifests/registry.ollama.ai/library/");
    QVERIFY(QDir().mkpath(lib + QStringLiteral("big")));
    QVERIFY(QDir().mkpath(lib + QStringLiteral("bad")));
    QVERIFY(QDir().mkpath(lib + QStringLiteral("nolayer")));
    QVERIFY(QDir().mkpath(models + QStringLiteral("/blobs")));
    const auto write = [](const QString &path, const QByteArray &bytes) {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    };
    QVERIFY(write(lib + QStringLiteral("big/latest"), QByteArray(2 << 20, ' ')));
    QVERIFY(write(lib + QStringLiteral("bad/latest"), "{\"layers\": [}"));
    QVERIFY(write(lib + QStringLiteral("nolayer/latest"), "{\"layers\": []}"));
    const ScanResult r = Scanner().scan({userPlace(models.toStdString())});
    QCOMPARE(r.places.at(0).place.layout, Layout::LAYOUT_OLLAMA);
    QCOMPARE(r.models.size(), size_t(0));
    QCOMPARE(r.skipped.size(), size_t(3));
    QVERIFY(q(r.skipped[0].reason).contains(QStringLiteral("not JSON")));
    QVERIFY(q(r.skipped[1].reason).contains(QStringLiteral("larger than 1048576 bytes")));
    QVERIFY(q(r.skipped[2].reason).contains(QStringLiteral("no model layer")));
}

void TestLibrary::reasons_data()
{
    QTest::addColumn<QString>("variant");
    QTest::addColumn<QString>("runnable");
    QTest::addColumn<QString>("whyNot");   // a part of it
    QTest::newRow("runs") << "runs" << "yes" << "";
    QTest::newRow("missing tensor") << "missing tensor" << "weights" << "missing tensor 'output_norm.weight'";
    QTest::newRow("no embedding length") << "no embedding length" << "settings" << "its settings are not supported";
    QTest::newRow("unknown architecture") << "unknown architecture" << "architecture" << "'rwkv7' architecture";
}

void TestLibrary::reasons()
{
    QFETCH(QString, variant);
    QFETCH(QString, runnable);
    QFETCH(QString, whyNot);
    test::TinySpec spec;
    if (variant == QLatin1String("missing tensor"))
        spec.dropTensors = {"output_norm.weight"};
    else if (variant == QLatin1String("no embedding length"))
        spec.dropKeys = {"llama.embedding_length"};
    else if (variant == QLatin1String("unknown architecture"))
        spec.arch = "rwkv7";
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QVERIFY(test::writeTinyModel(spec, (root.path() + QStringLiteral("/m.gguf")).toStdString()));
    const ScanResult r = Scanner().scan({userPlace(root.path().toStdString())});
    QCOMPARE(r.models.size(), size_t(1));
    QCOMPARE(QString::fromLatin1(runnableId(r.models[0].runnable)), runnable);
    QVERIFY2(q(r.models[0].whyNot).contains(whyNot), r.models[0].whyNot.c_str());
    // The engine agrees: a runnable model loads, the others are refused.
    QCOMPARE(bool(Model::load(r.models[0].path)), runnable == QLatin1String("yes"));
}

QTEST_MAIN(TestLibrary)
#include "tst_library.moc"
