// The bounds a chat template cannot break (issue 27, items 2 to 4): chains
// that would recurse as deep as they are long are refused when the template
// is parsed, with a message naming the bound; work is charged per byte and
// element touched, so quadratic searches and copies hit the step limit
// instead of running for minutes; strings are shared and every list a
// builtin makes is bounded, so memory stays bounded; a deadline and a
// cancel check end any render. Each row is a template that crashed, froze
// or exhausted memory before.
#include "burrow/engine.h"
#include "chat/chat_template.h"
#include "chat/jinja_template.h"
#include "gguf/gguf_writer.h"

#include "tiny_model.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace burrow;
using namespace burrow::jinja;

namespace {

Result<std::string> render(const std::string &source, const jinja::RenderOptions &options = {})
{
    auto t = Template::parse(source);
    if (!t)
        return t.status();
    return t->render({}, options);
}

bool contains(const std::string &text, const QString &part)
{
    return text.find(part.toStdString()) != std::string::npos;
}

// "{{ x<link>...<link> }}" with `n` links.
std::string chain(const std::string &start, const std::string &link, int n)
{
    std::string s = "{{ " + start;
    s.reserve(s.size() + link.size() * size_t(n) + 3);
    for (int i = 0; i < n; ++i)
        s += link;
    return s + " }}";
}

} // namespace

class TestJinjaBounds : public QObject {
    Q_OBJECT

private slots:
    // Item 2: a left-associative chain builds a tree as deep as the chain;
    // 5,000 links crashed render, 100,000 crashed the parse (the app while
    // it only loaded the model). Now parse refuses them, naming the bound.
    void chainsAreRefusedAtParse_data()
    {
        QTest::addColumn<QString>("start");
        QTest::addColumn<QString>("link");
        QTest::addColumn<int>("links");
        for (int n : {5000, 100000}) {
            const QByteArray suffix = " x" + QByteArray::number(n);
            QTest::newRow("plus" + suffix) << "1" << " + 1" << n;
            QTest::newRow("tilde" + suffix) << "'a'" << " ~ \"a\"" << n;
            QTest::newRow("filter" + suffix) << "'a'" << "|trim" << n;
            QTest::newRow("attribute" + suffix) << "x" << ".x" << n;
            QTest::newRow("subscript" + suffix) << "x" << "[0]" << n;
            QTest::newRow("and" + suffix) << "true" << " and true" << n;
            QTest::newRow("or" + suffix) << "false" << " or false" << n;
            QTest::newRow("call" + suffix) << "f" << "()" << n;
        }
    }
    void chainsAreRefusedAtParse()
    {
        QFETCH(QString, start);
        QFETCH(QString, link);
        QFETCH(int, links);
        auto t = Template::parse(chain(start.toStdString(), link.toStdString(), links));
        QVERIFY(!t);
        QVERIFY2(contains(t.message(), QStringLiteral("expression nested deeper than 256 levels")), t.message().c_str());
        // A filter block's chain too.
        std::string block = "{% filter trim";
        for (int i = 0; i < links; ++i)
            block += "|trim";
        block += " %}x{% endfilter %}";
        auto b = Template::parse(block);
        QVERIFY(!b);
        QVERIFY2(contains(b.message(), QStringLiteral("nested deeper than")), b.message().c_str());
    }

    // Chains real templates use (tens of links) parse and render as before.
    void chainsWithinTheBoundRender()
    {
        auto sum = render(chain("1", " + 1", 200));
        QVERIFY2(sum, sum.message().c_str());
        QCOMPARE(QString::fromStdString(*sum), QStringLiteral("201"));
        auto text = render(chain("'a'", " ~ 'b'", 250));
        QVERIFY2(text, text.message().c_str());
        QCOMPARE(text->size(), size_t(251));
    }

    // The same at model load: a .gguf whose template is a 100,000-link
    // chain is refused with the reason, and a fallback format is chosen.
    void hostileTemplateInAModelFile()
    {
        QTemporaryDir dir;
        test::TinySpec spec;
        const std::string hostile = chain("1", " + 1", 100000);
        spec.extraKeys = [&](gguf::GgufWriter &w) { w.addString("tokenizer.chat_template", hostile); };
        const std::string path = (dir.path() + "/hostile.gguf").toStdString();
        QVERIFY(test::writeTinyModel(spec, path));
        auto format = chatFormatFor(path, "auto", false);
        QVERIFY2(format, format.message().c_str());
        QVERIFY2(format->name != "template", format->name.c_str());
        QVERIFY2(contains(format->reason, QStringLiteral("nested deeper than 256 levels")), format->reason.c_str());
    }

    // Macro recursion on top of deep expressions is bounded by the nesting
    // limit (the stack), not by a crash.
    void nestedEvaluationIsBounded()
    {
        std::string body = "f(n - 1)";
        for (int i = 0; i < 200; ++i)
            body += " ~ ''";
        const std::string source =
            "{% macro f(n) %}{% if n > 0 %}{{ " + body + " }}{% endif %}{% endmacro %}{{ f(90) }}";
        auto out = render(source);
        QVERIFY(!out);
        // (A build with larger frames, a sanitizer's, may meet the stack guard first: "nested too deeply".)
        QVERIFY2(contains(out.message(), QStringLiteral("template evaluation nested")),
                 out.message().c_str());
    }

    // Item 3: work the step count did not see. Each template does ~10^8
    // byte comparisons or copies in a few hundred steps of the old count;
    // now every byte read is charged and a 2M-step budget stops them.
    void workIsCharged_data()
    {
        QTest::addColumn<QString>("source");
        const QString big = QStringLiteral("{% set s = 'a' * 1000000 %}{% for i in range(200) %}%1{% endfor %}");
        QTest::newRow("find") << big.arg("{{ s.find('b') }}");
        QTest::newRow("rfind") << big.arg("{{ s.rfind('ab') }}");
        QTest::newRow("in") << big.arg("{{ 'b' in s }}");
        QTest::newRow("in test") << big.arg("{{ 'b' is in s }}");
        QTest::newRow("count") << big.arg("{{ s.count('aab') }}");
        QTest::newRow("replace") << big.arg("{{ s.replace('b', 'c')|length }}");
        QTest::newRow("split") << big.arg("{{ s.split('b')|length }}");
        QTest::newRow("startswith tuple") << big.arg("{{ s.startswith((s, s, s)) }}");
        QTest::newRow("concatenation") << big.arg("{% set t = s ~ 'x' %}");
        QTest::newRow("upper") << big.arg("{{ (s|upper)|length }}");
        QTest::newRow("list copy") << "{% set l = range(100000)|list %}{% for i in range(200) %}{{ (l + [1])|length }}{% endfor %}";
        QTest::newRow("dict built by merging")
            << "{% set ns = namespace(d={}) %}{% for i in range(20000) %}{% set ns.d = dict(ns.d, {i: i}) %}{% endfor %}";
        QTest::newRow("list equality") << "{% set l = range(100000)|list %}{% for i in range(200) %}{{ l == l + [] }}{% endfor %}";
        QTest::newRow("sort") << "{% for i in range(100) %}{{ (range(100000)|list|reverse|sort)[0] }}{% endfor %}";
    }
    void workIsCharged()
    {
        QFETCH(QString, source);
        jinja::RenderOptions options;
        options.limits.maxSteps = 2'000'000;
        auto out = render(source.toStdString(), options);
        QVERIFY2(!out, "the work was not charged");
        QVERIFY2(contains(out.message(), QStringLiteral("limit of 2000000 evaluation steps")), out.message().c_str());
    }

    // What used to be O(n) per operation is O(1) (or hashed) now, so these
    // finish well within their step budgets. Before, each took minutes.
    void constantTimeOperations_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");
        // s[i] on non-ASCII text: the string keeps the offset of every 64th code point.
        QTest::newRow("indexing") << "{% set s = 'é' * 1000000 %}{% set ns = namespace(n=0) %}"
                                     "{% for i in range(100000) %}{% if s[i * 9] == 'é' %}{% set ns.n = ns.n + 1 %}{% endif %}{% endfor %}"
                                     "{{ ns.n }}|{{ s|length }}|{{ s[-1] }}|{{ s[999990:]|length }}"
                                  << "100000|1000000|é|10";
        QTest::newRow("unique") << "{{ (range(200000)|list + range(200000)|list)|unique|list|length }}" << "200000";
        // A dict literal of 50,000 entries: each insertion looks up a hash, not every key before it.
        QString literal = QStringLiteral("{% set d = {");
        for (int i = 0; i < 50000; ++i)
            literal += QStringLiteral("%1'k%2': %2").arg(i ? QStringLiteral(", ") : QString()).arg(i);
        literal += QStringLiteral("} %}{{ d|length }}|{{ d['k49999'] }}");
        QTest::newRow("dict literal") << literal << "50000|49999";
    }
    void constantTimeOperations()
    {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        jinja::RenderOptions options;
        options.limits.maxSeconds = 60;   // a backstop: each takes well under a second
        auto out = render(source.toStdString(), options);
        QVERIFY2(out, out.message().c_str());
        QCOMPARE(QString::fromStdString(*out), expected);
    }

    // Item 3: a wall-clock deadline and a cancel check end any render.
    void deadline()
    {
        jinja::RenderOptions options;
        options.limits.maxSteps = uint64_t(1) << 60;
        options.limits.maxSeconds = 0.3;
        QElapsedTimer timer;
        timer.start();
        auto out = render("{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}", options);
        QVERIFY(!out);
        QVERIFY2(contains(out.message(), QStringLiteral("time limit of 0.3 s")), out.message().c_str());
        QVERIFY(!out.isCancelled());
    }
    void cancel()
    {
        jinja::RenderOptions options;
        options.limits.maxSteps = uint64_t(1) << 60;
        std::atomic<int> asked{0};
        options.cancelled = [&] { return ++asked >= 3; };
        auto out = render("{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}", options);
        QVERIFY(!out);
        QVERIFY2(out.isCancelled(), out.message().c_str());
        QCOMPARE(asked.load(), 3);
        // Through the chat layer: a cancelled token ends the render the same way.
        auto t = chat::ChatTemplate::parse("{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}");
        QVERIFY(t);
        chat::ChatTemplateInputs inputs;
        inputs.render.limits.maxSteps = uint64_t(1) << 60;
        auto token = std::make_shared<CancelToken>();
        token->cancel();
        inputs.render.cancelled = [token] { return token->isCancelled(); };
        auto r = t->apply(std::vector<chat::ChatMessage>{{"user", "hi", {}, {}}}, inputs);
        QVERIFY(!r);
        QVERIFY(r.isCancelled());
    }

    // Item 4: memory. Strings are shared ([s] * n holds one s), every list
    // a builtin makes is bounded, and the bytes of all live values are.
    void memory_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");   // the output, or "!" + part of the error
        QTest::addColumn<int>("liveMiB");        // RenderLimits::maxLiveBytes
        QTest::newRow("repetition shares the string")
            << "{% set s = 'x' * 30000000 %}{{ ([s] * 100000)|length }}" << "100000" << 256;
        QTest::newRow("split past the item limit")
            << "{{ ('a,' * 800000).split(',')|length }}" << "!split(): list exceeds the limit of 100000 items" << 256;
        QTest::newRow("rsplit past the item limit")
            << "{{ ('a,' * 800000).rsplit(',', 200000)|length }}" << "!rsplit(): list exceeds the limit of 100000 items" << 256;
        QTest::newRow("splitlines past the item limit")
            << "{{ ('\\n' * 800000).splitlines()|length }}" << "!splitlines(): list exceeds the limit of 100000 items" << 256;
        QTest::newRow("split with maxsplit stays small")
            << "{{ ('a,' * 800000).split(',', 2)|length }}" << "3" << 256;
        QTest::newRow("join over a long string's characters")
            << "{% set s = 'x' * 30000000 %}{{ s|join(',') }}" << "!characters cannot be listed" << 256;
        QTest::newRow("loop over a long string's characters")
            << "{% for c in 'x' * 30000000 %}{% endfor %}" << "!characters cannot be listed" << 256;
        QTest::newRow("range past the item limit") << "{{ range(10**12)|length }}" << "!range() exceeds the limit" << 256;
        QTest::newRow("many large strings alive")
            << "{% set ns = namespace(l=[]) %}{% for i in range(10) %}{% set ns.l = ns.l + ['x' * 10000000 ~ i] %}{% endfor %}"
            << "!template values exceeded the memory limit of 64 MiB" << 64;
        QTest::newRow("many large lists alive")
            << "{% set ns = namespace(l=[]) %}{% for i in range(40) %}{% set ns.l = ns.l + [range(100000)|list] %}{% endfor %}"
            << "!template values exceeded the memory limit of 64 MiB" << 64;
        QTest::newRow("huge power is quick") << "{{ 1 ** 1000000000000000000 }}" << "1" << 256;
    }
    void memory()
    {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        QFETCH(int, liveMiB);
        jinja::RenderOptions options;
        options.limits.maxLiveBytes = size_t(liveMiB) << 20;
        options.limits.maxListItems = 100'000;   // the mechanism, at a tenth of the default (quicker under sanitizers)
        options.limits.maxSeconds = 60;
        auto out = render(source.toStdString(), options);
        if (expected.startsWith('!')) {
            QVERIFY2(!out, "expected a limit to refuse it");
            QVERIFY2(contains(out.message(), expected.mid(1)), out.message().c_str());
        } else {
            QVERIFY2(out, out.message().c_str());
            QCOMPARE(QString::fromStdString(*out), expected);
        }
    }

    // An allocation refused anyway (every bound lifted: a string of 2^62
    // bytes, which the library refuses before asking the system): an error
    // from render(), never a crash; bad_alloc and the library's other
    // exceptions are caught at the render boundary.
    void refusedAllocationIsAnError()
    {
        jinja::RenderOptions options;
        options.limits.maxSteps = UINT64_MAX;
        options.limits.maxOutputBytes = SIZE_MAX;
        options.limits.maxLiveBytes = SIZE_MAX;
        auto out = render("{{ 'x' * 4611686018427387904 }}", options);
        QVERIFY(!out);
        QVERIFY2(contains(out.message(), QStringLiteral("template")), out.message().c_str());
    }

    // A template larger than maxSourceBytes is refused at load.
    void sourceSize()
    {
        TemplateOptions o;
        o.maxSourceBytes = 1000;
        auto t = Template::parse(std::string(2000, 'x'), o);
        QVERIFY(!t);
        QVERIFY2(contains(t.message(), QStringLiteral("more than the limit of 1000")), t.message().c_str());
        QVERIFY(Template::parse(std::string(1000, 'x'), o));
    }
};

QTEST_MAIN(TestJinjaBounds)
#include "tst_jinja_bounds.moc"
