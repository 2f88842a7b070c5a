// The Jinja interpreter construct by construct: data-driven tables of
// (template, context JSON, expected output) with Jinja2/Python semantics,
// error messages with their line and column, and the limits that stop
// endless or exploding templates.
#include "chat/jinja_template.h"
#include "chat/chat_template.h"
#include "common/json.h"

#include <QTest>

using namespace burrow;
using namespace burrow::jinja;

namespace {

Result<std::string> renderWith(const QString &source, const QString &contextJson, const RenderOptions &options = {})
{
    auto t = Template::parse(source.toStdString());
    if (!t)
        return t.status();
    Dict context;
    if (!contextJson.isEmpty()) {
        auto json = json::parseJson(contextJson.toStdString(), "context");
        if (!json)
            return json.status();
        const Value v = chat::jsonToValue(*json);
        if (v.isDict())
            context = v.asDict();
    }
    RenderOptions o = options;
    if (!o.clock)
        o.clock = [] { return std::time_t(1721995200); };   // 2024-07-26 12:00 UTC
    return t->render(context, o);
}

} // namespace

class TestJinja : public QObject {
    Q_OBJECT

private slots:
    void render_data();
    void render();
    void errors_data();
    void errors();
    void limits_data();
    void limits();
    void nesting();
    void templateOptions();
    void referencedNames();
    void fixedStrftime();
    void json_data();
    void json();
    void jsonErrors_data();
    void jsonErrors();
};

void TestJinja::render_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QString>("expected");

    // --- text, output, comments ---------------------------------------------------------
    QTest::newRow("text") << "plain text" << "" << "plain text";
    QTest::newRow("output") << "{{ a }}-{{ b }}" << R"({"a": "x", "b": 2})" << "x-2";
    QTest::newRow("comment") << "a{# gone #}b" << "" << "ab";
    QTest::newRow("undefined prints empty") << "[{{ missing }}]" << "" << "[]";
    QTest::newRow("none prints None") << "{{ none }} {{ None }}" << "" << "None None";
    QTest::newRow("booleans print Python") << "{{ true }} {{ False }}" << "" << "True False";
    QTest::newRow("trailing newline dropped") << "x\n" << "" << "x";
    QTest::newRow("only one trailing newline dropped") << "x\n\n" << "" << "x\n";
    QTest::newRow("crlf normalized") << "a\r\nb\rc" << "" << "a\nb\nc";
    QTest::newRow("raw") << "{% raw %}{{ x }}{% endraw %}" << "" << "{{ x }}";
    QTest::newRow("raw whitespace") << "A\n  {% raw %}\n{{ x }}\n  {% endraw %}\nB" << "" << "A\n\n{{ x }}\nB";
    QTest::newRow("raw minus") << "A  {%- raw -%}  {{ x }}  {%- endraw -%}  B" << "" << "A{{ x }}B";

    // --- whitespace control, trim_blocks, lstrip_blocks ---------------------------------
    QTest::newRow("trim_blocks") << "{% if true %}\nyes\n{% endif %}\nend" << "" << "yes\nend";
    QTest::newRow("trim_blocks only one newline") << "{% if true %}\n\nyes{% endif %}" << "" << "\nyes";
    QTest::newRow("no trim after variable") << "{{ 'a' }}\nb" << "" << "a\nb";
    QTest::newRow("lstrip_blocks") << "  {% if true %}x{% endif %}" << "" << "x";
    QTest::newRow("lstrip only at line start") << "a  {% if true %}x{% endif %}" << "" << "a  x";
    QTest::newRow("lstrip not for variables") << "  {{ 'x' }}" << "" << "  x";
    QTest::newRow("lstrip after trimmed newline") << "{% if true %}\n    {% if true %}y{% endif %}\n{% endif %}" << "" << "y";
    QTest::newRow("plus disables lstrip") << "  {%+ if true %}x{% endif %}" << "" << "  x";
    QTest::newRow("plus disables trim") << "{% if true +%}\nx{% endif %}" << "" << "\nx";
    QTest::newRow("minus strips left") << "a  \n  {{- 'b' }}" << "" << "ab";
    QTest::newRow("minus strips right") << "{{ 'a' -}}  \n  b" << "" << "ab";
    QTest::newRow("minus on blocks") << "x\n  {%- if true -%}\n  y\n  {%- endif -%}\n z" << "" << "xyz";
    QTest::newRow("comment lstrip and trim") << "a\n  {# c #}\nb" << "" << "a\nb";
    QTest::newRow("comment minus") << "a   {#- c -#}   b" << "" << "ab";
    QTest::newRow("loop with trim and lstrip")
        << "{% for x in xs %}\n    {{ x }}\n{% endfor %}" << R"({"xs": [1, 2]})" << "    1\n    2\n";

    // --- literals and operators ----------------------------------------------------------
    QTest::newRow("string escapes") << R"({{ 'a\nb\t\'' ~ "\"" ~ '\u00e9' }})" << "" << "a\nb\t'\"é";
    QTest::newRow("adjacent strings") << "{{ 'a' 'b' }}" << "" << "ab";
    QTest::newRow("integers") << "{{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 7 - 10 }}" << "" << "7 9 -3";
    QTest::newRow("true division is float") << "{{ 7 / 2 }} {{ 6 / 2 }}" << "" << "3.5 3.0";
    QTest::newRow("floor division and modulo") << "{{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 7 % -3 }}" << "" << "3 -4 2 -2";
    QTest::newRow("power") << "{{ 2 ** 10 }} {{ 2 ** -1 }}" << "" << "1024 0.5";
    QTest::newRow("float formatting") << "{{ 0.1 + 0.2 }} {{ 1e20 * 10 }} {{ 2.5 }} {{ 1.0e-5 }}" << "" << "0.30000000000000004 1e+21 2.5 1e-05";
    QTest::newRow("int plus float") << "{{ 1 + 1.5 }}" << "" << "2.5";
    QTest::newRow("unary") << "{{ -3 }} {{ +3 }} {{ - -3 }} {{ -x }}" << R"({"x": 2.5})" << "-3 3 3 -2.5";
    QTest::newRow("string concatenation") << "{{ 'a' + 'b' }}" << "" << "ab";
    QTest::newRow("string repetition") << "{{ '-' * 3 }}{{ 2 * 'ab' }}" << "" << "---abab";
    QTest::newRow("tilde converts") << "{{ 1 ~ 'a' ~ none ~ true ~ missing }}" << "" << "1aNoneTrue";
    QTest::newRow("list concatenation") << "{{ [1] + [2, 3] }}" << "" << "[1, 2, 3]";
    QTest::newRow("list repr") << "{{ ['a', 1, 1.5, none, true, {'k': 'v'}] }}" << "" << "['a', 1, 1.5, None, True, {'k': 'v'}]";
    QTest::newRow("repr quotes") << R"({{ ["it's", 'say "hi"', 'a\nb'] }})" << "" << R"(["it's", 'say "hi"', 'a\nb'])";
    QTest::newRow("dict literal") << "{{ {'a': 1, 'b': [2]} }}" << "" << "{'a': 1, 'b': [2]}";
    QTest::newRow("tuple") << "{{ (1, 'a') }}{{ () }}" << "" << "(1, 'a')()";
    QTest::newRow("comparisons") << "{{ 1 < 2 }} {{ 2 <= 1 }} {{ 'a' < 'b' }} {{ [1, 2] < [1, 3] }} {{ 1 == 1.0 }} {{ 1 != 2 }}"
                                 << "" << "True False True True True True";
    QTest::newRow("chained comparison") << "{{ 1 < 2 < 3 }} {{ 1 < 3 < 2 }}" << "" << "True False";
    QTest::newRow("equality of containers") << "{{ [1, 'a'] == [1, 'a'] }} {{ {'a': 1} == {'a': 1} }} {{ 'a' == 1 }}" << "" << "True True False";
    QTest::newRow("and or return operands") << "{{ 0 or 'x' }} {{ 'a' and 'b' }} {{ '' and 'b' }}|{{ none or [] }}" << "" << "x b |[]";
    QTest::newRow("not") << "{{ not true }} {{ not '' }} {{ not missing }}" << "" << "False True True";
    QTest::newRow("not binds looser than is") << "{{ not x is defined }}" << "" << "True";
    QTest::newRow("in string") << "{{ 'ell' in 'hello' }} {{ 'z' in 'hello' }} {{ 'z' not in 'hello' }}" << "" << "True False True";
    QTest::newRow("in list") << "{{ 2 in [1, 2] }} {{ 'b' in ['a'] }}" << "" << "True False";
    QTest::newRow("in dict") << "{{ 'role' in m }} {{ 'x' in m }}" << R"({"m": {"role": "user"}})" << "True False";
    QTest::newRow("in undefined") << "{{ 'a' in missing }}" << "" << "False";
    QTest::newRow("conditional expression") << "{{ 'y' if x else 'n' }}{{ 'y' if not x else 'n' }}" << R"({"x": 1})" << "yn";
    QTest::newRow("conditional without else") << "[{{ 'y' if false }}]" << "" << "[]";
    QTest::newRow("filter binds tighter than plus") << "{{ 'a' + ' b ' | trim + 'c' }}" << "" << "abc";

    // --- subscripts, attributes, slices ---------------------------------------------------
    QTest::newRow("subscript") << "{{ m['role'] }} {{ m.role }} {{ xs[0] }} {{ xs[-1] }} {{ xs.1 }}"
                               << R"({"m": {"role": "user"}, "xs": [1, 2, 3]})" << "user user 1 3 2";
    QTest::newRow("string index") << "{{ s[0] }}{{ s[-1] }}" << R"({"s": "héllo"})" << "ho";
    QTest::newRow("slices") << "{{ xs[1:] }} {{ xs[:-1] }} {{ xs[::2] }} {{ xs[::-1] }} {{ xs[-2:] }} {{ xs[5:] }}"
                            << R"({"xs": [1, 2, 3, 4]})" << "[2, 3, 4] [1, 2, 3] [1, 3] [4, 3, 2, 1] [3, 4] []";
    QTest::newRow("string slices") << "{{ s[::-1] }} {{ s[1:3] }} {{ s[-2:] }} {{ s[:-10] }}|" << R"({"s": "añb🦙"})" << "🦙bña ñb b🦙 |";
    QTest::newRow("negative step bounds") << "{{ xs[2::-1] }} {{ xs[:0:-1] }}" << R"({"xs": [1, 2, 3, 4]})" << "[3, 2, 1] [4, 3, 2]";
    QTest::newRow("missing attribute is undefined") << "[{{ m.nope }}][{{ m['nope'] }}][{{ xs[9] }}]" << R"({"m": {}, "xs": []})" << "[][][]";
    QTest::newRow("dict method wins over key") << "{{ m.items()|list }}" << R"({"m": {"items": 1}})" << "[('items', 1)]";

    // --- tests ------------------------------------------------------------------------------
    QTest::newRow("defined") << "{{ x is defined }} {{ y is defined }} {{ y is undefined }} {{ m.a is defined }} {{ m.b is defined }}"
                             << R"({"x": null, "m": {"a": 1}})" << "True False True True False";
    QTest::newRow("none test") << "{{ x is none }} {{ y is none }} {{ x is not none }}" << R"({"x": null})" << "True False False";
    QTest::newRow("type tests") << "{{ 's' is string }} {{ 1 is number }} {{ 1.5 is number }} {{ 's' is number }} "
                                   "{{ {} is mapping }} {{ [] is mapping }} {{ [] is iterable }} {{ 's' is iterable }} "
                                   "{{ 1 is iterable }} {{ [] is sequence }} {{ true is boolean }} {{ 1 is boolean }} "
                                   "{{ 1 is integer }} {{ 1.0 is float }}"
                                << "" << "True True True False True False True True False True True False True True";
    QTest::newRow("true false tests") << "{{ true is true }} {{ 1 is true }} {{ false is false }} {{ 0 is false }}" << ""
                                      << "True False True False";
    QTest::newRow("even odd divisibleby") << "{{ 4 is even }} {{ 3 is odd }} {{ 4 is odd }} {{ 9 is divisibleby 3 }} {{ 9 is divisibleby(2) }}"
                                          << "" << "True True False True False";
    QTest::newRow("comparison tests") << "{{ 'a' is equalto 'a' }} {{ 1 is eq(2) }} {{ 3 is gt 2 }} {{ 'b' is in ['a', 'b'] }}"
                                      << "" << "True False True True";
    QTest::newRow("callable test") << "{{ range is callable }} {{ 1 is callable }} {{ strftime_now is defined }}" << ""
                                   << "True False True";

    // --- statements -------------------------------------------------------------------------
    QTest::newRow("if elif else") << "{% for x in [1, 2, 3] %}{% if x == 1 %}one{% elif x == 2 %}two{% else %}many{% endif %},{% endfor %}"
                                  << "" << "one,two,many,";
    QTest::newRow("for over dict") << "{% for k in d %}{{ k }}{% endfor %}" << R"({"d": {"b": 1, "a": 2}})" << "ba";
    QTest::newRow("for unpacking items") << "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}" << R"({"d": {"b": 1, "a": 2}})" << "b=1;a=2;";
    QTest::newRow("for unpacking parenthesized") << "{% for (a, b) in [[1, 2], [3, 4]] %}{{ a + b }}{% endfor %}" << "" << "37";
    QTest::newRow("for over string") << "{% for c in 'añ' %}[{{ c }}]{% endfor %}" << "" << "[a][ñ]";
    QTest::newRow("for over undefined") << "{% for x in missing %}x{% endfor %}ok" << "" << "ok";
    QTest::newRow("for else") << "{% for x in [] %}x{% else %}empty{% endfor %}" << "" << "empty";
    QTest::newRow("loop variables")
        << "{% for x in 'abc' %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}"
           "{{ loop.first|int }}{{ loop.last|int }}{{ loop.length }} {% endfor %}"
        << "" << "1032103 2121003 3210013 ";
    QTest::newRow("loop previtem nextitem") << "{% for x in [1, 2, 3] %}{{ loop.previtem }}<{{ x }}>{{ loop.nextitem }} {% endfor %}" << ""
                                            << "<1>2 1<2>3 2<3> ";
    QTest::newRow("loop cycle") << "{% for x in range(4) %}{{ loop.cycle('a', 'b') }}{% endfor %}" << "" << "abab";
    QTest::newRow("loop filter") << "{% for x in range(10) if x is odd %}{{ x }}{{ loop.length }} {% endfor %}" << "" << "15 35 55 75 95 ";
    QTest::newRow("break continue") << "{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 5 %}{% break %}{% endif %}{{ x }}{% endfor %}"
                                    << "" << "0134";
    QTest::newRow("nested loops") << "{% for a in [1, 2] %}{% for b in [1, 2] %}{{ loop.index }}{% endfor %}{{ loop.index }}|{% endfor %}" << ""
                                  << "121|122|";
    QTest::newRow("set") << "{% set x = 1 %}{% set y = x + 1 %}{{ y }}" << "" << "2";
    QTest::newRow("set tuple") << "{% set a, b = 1, 2 %}{{ b }}{{ a }}" << "" << "21";
    QTest::newRow("set in loop does not leak") << "{% set x = 0 %}{% for i in [1, 2] %}{% set x = i %}{% endfor %}{{ x }}" << "" << "0";
    QTest::newRow("set in if leaks") << "{% if true %}{% set x = 5 %}{% endif %}{{ x }}" << "" << "5";
    QTest::newRow("set shadows context") << "{% set messages = messages[1:] %}{{ messages|length }}" << R"({"messages": [1, 2, 3]})" << "2";
    QTest::newRow("namespace") << "{% set ns = namespace(n=0, s='') %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}"
                               << "" << "6";
    QTest::newRow("namespace from dict") << "{% set ns = namespace({'a': 1}, b=2) %}{{ ns.a }}{{ ns.b }}{{ ns.c is defined }}" << "" << "12False";
    QTest::newRow("block set") << "{% set x %}a{{ 1 + 1 }}b{% endset %}[{{ x }}]" << "" << "[a2b]";
    QTest::newRow("block set with filter") << "{% set x | upper %} ab {% endset %}[{{ x }}]" << "" << "[ AB ]";
    QTest::newRow("filter block") << "{% filter trim | upper %}\n  hello  \n{% endfilter %}!" << "" << "HELLO!";
    QTest::newRow("macro") << "{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}{{ greet('A') }} {{ greet('B', '?') }} {{ greet(punct='.', name='C') }}"
                           << "" << "Hi A! Hi B? Hi C.";
    QTest::newRow("macro missing argument") << "{% macro f(a, b) %}[{{ a }}{{ b }}]{% endmacro %}{{ f(1) }}" << "" << "[1]";
    QTest::newRow("macro varargs kwargs") << "{% macro f(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ f(1, 2, x=3) }}" << ""
                                          << "1(2,){'x': 3}";
    QTest::newRow("macro recursion") << "{% macro fact(n) %}{% if n <= 1 %}1{% else %}{{ n * fact(n - 1)|int }}{% endif %}{% endmacro %}{{ fact(5) }}"
                                     << "" << "120";
    QTest::newRow("macro sees globals and namespaces")
        << "{% set ns = namespace(x=0) %}{% macro bump() %}{% set ns.x = ns.x + 1 %}{% endmacro %}{{ bump() }}{{ bump() }}{{ ns.x }}" << "" << "2";
    QTest::newRow("macro result is a string") << "{% macro f() %}ab{% endmacro %}{{ f() + 'c' }}{{ f()|length }}" << "" << "abc2";
    QTest::newRow("generation block") << "{% generation %}x{% endgeneration %}" << "" << "x";

    // --- filters ------------------------------------------------------------------------------
    QTest::newRow("trim") << "[{{ '  a b \n'|trim }}][{{ 'xxaxx'|trim('x') }}][{{ '\u3000a\u00a0'|trim }}]" << "" << "[a b][a][a]";
    QTest::newRow("length count") << "{{ 'héllo'|length }} {{ [1, 2]|length }} {{ {'a': 1}|count }} {{ missing|length }}" << "" << "5 2 1 0";
    QTest::newRow("upper lower") << "{{ 'aBç'|upper }} {{ 'AbÇ'|lower }}" << "" << "ABÇ abç";
    QTest::newRow("title capitalize") << "{{ 'hello big-world'|title }} {{ 'hELLO wORLD'|capitalize }}" << "" << "Hello Big-World Hello world";
    QTest::newRow("join") << "{{ [1, 2, 3]|join(', ') }}|{{ ['a', 'b']|join }}|{{ users|join(',', attribute='name') }}"
                          << R"({"users": [{"name": "x"}, {"name": "y"}]})" << "1, 2, 3|ab|x,y";
    QTest::newRow("default") << "{{ missing|default('d') }} {{ ''|default('d') }} {{ ''|default('d', true) }} {{ none|d('d') }}" << ""
                             << "d  d None";
    QTest::newRow("replace") << "{{ 'aaa'|replace('a', 'b') }} {{ 'aaa'|replace('a', 'b', 2) }} {{ 'ab'|replace('', '-') }}" << ""
                             << "bbb bba -a-b-";
    QTest::newRow("first last") << "{{ [1, 2, 3]|first }} {{ [1, 2, 3]|last }} {{ 'abc'|first }} [{{ []|first }}]" << "" << "1 3 a []";
    QTest::newRow("list") << "{{ 'ab'|list }} {{ {'k': 1}|list }}" << "" << "['a', 'b'] ['k']";
    QTest::newRow("string") << "{{ true|string }} {{ none|string }} {{ 1.0|string }} {{ [1]|string + 'x' }}" << "" << "True None 1.0 [1]x";
    QTest::newRow("int") << "{{ '42'|int }} {{ '4.7'|int }} {{ 4.7|int }} {{ 'x'|int }} {{ 'x'|int(7) }} {{ true|int }}" << ""
                         << "42 4 4 0 7 1";
    QTest::newRow("float") << "{{ '2.5'|float }} {{ 3|float }} {{ 'x'|float }}" << "" << "2.5 3.0 0.0";
    QTest::newRow("abs round") << "{{ -3|abs }} {{ -2.5|abs }} {{ 2.567|round(2) }} {{ 2.5|round }} {{ 2.1|round(0, 'ceil') }} {{ 2.9|round(method='floor') }} {{ 2.675|round(2) }} {{ 3|round }} {{ 1234|round(-2) }}"
                               << "" << "3 2.5 2.57 2.0 3.0 2.0 2.67 3 1200";
    QTest::newRow("map") << "{{ users|map(attribute='name')|list }} {{ ['a', 'b']|map('upper')|join }} {{ users|map(attribute='age', default=0)|list }}"
                         << R"({"users": [{"name": "x", "age": 3}, {"name": "y"}]})" << "['x', 'y'] AB [3, 0]";
    QTest::newRow("select reject") << "{{ range(6)|select('odd')|list }} {{ range(6)|reject('odd')|list }} {{ [0, 1, '', 'a']|select|list }}"
                                   << "" << "[1, 3, 5] [0, 2, 4] [1, 'a']";
    QTest::newRow("selectattr rejectattr")
        << "{{ ts|selectattr('type', 'equalto', 'a')|map(attribute='n')|list }} {{ ts|rejectattr('type', 'equalto', 'a')|map(attribute='n')|list }} {{ ts|selectattr('on')|map(attribute='n')|list }}"
        << R"({"ts": [{"type": "a", "n": 1, "on": true}, {"type": "b", "n": 2}]})" << "[1] [2] [1]";
    QTest::newRow("select on none") << "{{ none|selectattr('x')|list|length }}" << "" << "0";
    QTest::newRow("items") << "{% for k, v in d|items %}{{ k }}{{ v }}{% endfor %}{{ missing|items|list }}" << R"({"d": {"z": 1, "a": 2}})" << "z1a2[]";
    QTest::newRow("dictsort") << "{{ d|dictsort }} {{ d|dictsort(reverse=true) }} {{ d|dictsort(by='value') }} {{ d|dictsort(true) }}"
                              << R"({"d": {"b": 1, "A": 3, "c": 2}})"
                              << "[('A', 3), ('b', 1), ('c', 2)] [('c', 2), ('b', 1), ('A', 3)] [('b', 1), ('c', 2), ('A', 3)] [('A', 3), ('b', 1), ('c', 2)]";
    QTest::newRow("unique") << "{{ [1, 2, 1, 3]|unique|list }} {{ ['a', 'A', 'b']|unique|list }}" << "" << "[1, 2, 3] ['a', 'b']";
    QTest::newRow("indent") << "[{{ 'a\nb\n\nc'|indent(2) }}][{{ 'a\nb'|indent(2, true) }}][{{ 'a\n\nb'|indent(1, blank=true) }}][{{ 'a\nb'|indent('> ') }}]"
                            << "" << "[a\n  b\n\n  c][  a\n  b][a\n \n b][a\n> b]";
    QTest::newRow("safe escape") << "{{ '<a>'|safe }} {{ '<a & \"b\">'|e }}" << "" << "<a> &lt;a &amp; &#34;b&#34;&gt;";
    QTest::newRow("sort reverse sum min max") << "{{ [3, 1, 2]|sort }} {{ [1, 2]|reverse|list }} {{ 'ab'|reverse }} {{ [1, 2.5]|sum }} {{ [3, 1]|min }} {{ [3, 1]|max }}"
                                              << "" << "[1, 2, 3] [2, 1] ba 3.5 1 3";
    QTest::newRow("tojson") << "{{ d|tojson }}" << R"({"d": {"b": [1, 2.5, true, null], "a": "é\"\n🦙"}})"
                            << "{\"b\": [1, 2.5, true, null], \"a\": \"é\\\"\\n🦙\"}";
    QTest::newRow("tojson indent") << "{{ d|tojson(indent=2) }}" << R"({"d": {"a": [1, {}], "b": []}})"
                                   << "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": []\n}";
    QTest::newRow("tojson options") << "{{ d|tojson(sort_keys=true, ensure_ascii=true, separators=(',', ':')) }} {{ 'x'|tojson }} {{ 1.0|tojson }}"
                                    << R"({"d": {"b": "é", "a": 1}})" << "{\"a\":1,\"b\":\"\\u00e9\"} \"x\" 1.0";
    QTest::newRow("attr") << "[{{ d|attr('a') }}]{{ d|attr('keys')()|list }}" << R"({"d": {"a": 5}})" << "[]['a']";

    // --- string, dict and list methods --------------------------------------------------------
    QTest::newRow("strip methods") << "[{{ ' a '.strip() }}][{{ ' a '.lstrip() }}][{{ ' a '.rstrip() }}][{{ 'xax'.strip('x') }}]" << ""
                                   << "[a][a ][ a][a]";
    QTest::newRow("split") << "{{ 'a b  c'.split() }} {{ 'a,b,,c'.split(',') }} {{ 'a,b,c'.split(',', 1) }} {{ '<t>x</think>y'.split('</think>')[-1] }}"
                              " {{ '  a  b  '.split(None, 1) }} {{ '  a  b  '.rsplit(None, 1) }} {{ 'a,b,c'.rsplit(',', 1) }} {{ ''.split() }} {{ ''.split(',') }}"
                           << "" << "['a', 'b', 'c'] ['a', 'b', '', 'c'] ['a', 'b,c'] y ['a', 'b  '] ['  a', 'b'] ['a,b', 'c'] [] ['']";
    QTest::newRow("startswith endswith") << "{{ 'hello'.startswith('he') }} {{ 'hello'.endswith('lo') }} {{ 'hello'.startswith(('x', 'h')) }} {{ 'h'.endswith('oh') }}"
                                         << "" << "True True True False";
    QTest::newRow("case methods") << "{{ 'ab'.upper() }} {{ 'AB'.lower() }} {{ 'hello world'.title() }} {{ 'they\\'re'.title() }} {{ 'aB'.capitalize() }}"
                                  << "" << "AB ab Hello World They'Re Ab";
    QTest::newRow("replace method") << "{{ 'a-b-c'.replace('-', '+') }} {{ 'a-b-c'.replace('-', '', 1) }}" << "" << "a+b+c ab-c";
    QTest::newRow("find count join") << "{{ 'héllo'.find('l') }} {{ 'abc'.find('z') }} {{ 'aaa'.count('a') }} {{ '-'.join(['a', 'b']) }}" << ""
                                     << "2 -1 3 a-b";
    QTest::newRow("dict methods") << "{{ d.keys()|list }} {{ d.values()|list }} {{ d.get('a') }} {{ d.get('z') }} {{ d.get('z', 0) }} {{ d.items()|list }}"
                                  << R"({"d": {"a": 1, "b": 2}})" << "['a', 'b'] [1, 2] 1 None 0 [('a', 1), ('b', 2)]";
    QTest::newRow("list methods") << "{{ [1, 2, 2].count(2) }} {{ ['a', 'b'].index('b') }}" << "" << "2 1";

    // --- globals -------------------------------------------------------------------------------
    QTest::newRow("range") << "{{ range(3)|list }} {{ range(1, 7, 2)|list }} {{ range(3, 0, -1)|list }} {{ range(0)|list }}" << ""
                           << "[0, 1, 2] [1, 3, 5] [3, 2, 1] []";
    QTest::newRow("dict global") << "{{ dict(a=1, b=2) }}" << "" << "{'a': 1, 'b': 2}";
    QTest::newRow("strftime_now") << "{{ strftime_now('%d %b %Y') }}|{{ strftime_now('%Y-%m-%d %A %B') }}|{{ strftime_now('%-m/%-d %H:%M %p %%') }}" << ""
                                  << "26 Jul 2024|2024-07-26 Friday July|7/26 12:00 PM %";
}

void TestJinja::render()
{
    QFETCH(QString, source);
    QFETCH(QString, context);
    QFETCH(QString, expected);
    auto out = renderWith(source, context);
    QVERIFY2(out.isOk(), out.message().c_str());
    QCOMPARE(QString::fromStdString(*out), expected);
}

void TestJinja::errors_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QString>("expected");   // the whole message: name:line:column: text

    // Syntax errors (at parse time).
    QTest::newRow("unclosed if") << "{% if x %}a" << "" << "template:1:12: unexpected end of template, expected 'elif' or 'else' or 'endif'";
    QTest::newRow("unclosed for") << "{% for x in y %}\n  a" << "" << "template:2:4: unexpected end of template, expected 'else' or 'endfor'";
    QTest::newRow("unclosed variable") << "ab\n{{ x" << "" << "template:2:1: unexpected end of template, expected '}}' to close this tag";
    QTest::newRow("unclosed comment") << "{# x" << "" << "template:1:1: missing end of comment tag '#}'";
    QTest::newRow("unterminated string") << "{{ 'abc }}" << "" << "template:1:4: unterminated string literal";
    QTest::newRow("bad character") << "{{ a $ b }}" << "" << "template:1:6: unexpected character '$' in expression";
    QTest::newRow("unknown tag") << "x\n  {% include 'a' %}" << "" << "template:2:6: unknown or unsupported tag 'include'";
    QTest::newRow("missing expression") << "{{ }}" << "" << "template:1:4: expected an expression, got '}}'";
    QTest::newRow("unknown filter") << "{{ x | frobnicate }}" << "" << "template:1:8: no filter named 'frobnicate'";
    QTest::newRow("unknown test") << "{% if x is frob %}{% endif %}" << "" << "template:1:12: no test named 'frob'";
    QTest::newRow("break outside loop") << "{% break %}" << "" << "template:1:4: 'break' outside of a loop";
    QTest::newRow("stray endif") << "{% endif %}" << "" << "template:1:4: unknown or unsupported tag 'endif'";
    QTest::newRow("missing in") << "{% for x y %}{% endfor %}" << "" << "template:1:10: expected 'in', got 'y'";
    QTest::newRow("columns count code points") << "{{ 'é' ~ }}" << "" << "template:1:10: expected an expression, got '}}'";

    // Runtime errors (at render time), at the failing expression.
    QTest::newRow("raise_exception") << "line one\n{% if true %}{{ raise_exception('Bad role') }}{% endif %}" << ""
                                     << "template:2:17: Bad role";
    QTest::newRow("undefined in arithmetic") << "{{ 'a' + missing }}" << "" << "template:1:8: 'missing' is undefined";
    QTest::newRow("attribute of undefined") << "{{ missing.x }}" << "" << "template:1:11: 'missing' is undefined";
    QTest::newRow("missing key in arithmetic") << "{{ m.x + 1 }}" << R"({"m": {}})" << "template:1:8: 'dict object' has no attribute 'x'";
    QTest::newRow("index out of range used") << "{{ xs[3] ~ '' }}{{ xs[3] + 1 }}" << R"({"xs": [1]})" << "template:1:26: list object has no element 3";
    QTest::newRow("str plus int") << "{{ 'a' + 1 }}" << "" << "template:1:8: can only concatenate str (not \"int\") to str";
    QTest::newRow("int plus str") << "{{ 1 + 'a' }}" << "" << "template:1:6: unsupported operand type(s) for +: 'int' and 'str'";
    QTest::newRow("division by zero") << "{{ 1 / 0 }}" << "" << "template:1:6: division by zero";
    QTest::newRow("compare str int") << "{{ 'a' < 1 }}" << "" << "template:1:4: '<' not supported between instances of 'str' and 'int'";
    QTest::newRow("in string needs string") << "{{ 1 in 'abc' }}" << "" << "template:1:4: 'in <string>' requires string as left operand, not int";
    QTest::newRow("iterate none") << "{% for x in none %}{% endfor %}" << "" << "template:1:13: 'NoneType' object is not iterable";
    QTest::newRow("call non-callable") << "{{ x() }}" << R"({"x": 1})" << "template:1:4: 'int' object is not callable";
    QTest::newRow("call undefined") << "{{ nothing() }}" << "" << "template:1:4: 'nothing' is undefined";
    QTest::newRow("items of list") << "{{ [1]|items }}" << "" << "template:1:8: Can only get item pairs from a mapping.";
    QTest::newRow("tojson undefined") << "{{ missing|tojson }}" << "" << "template:1:12: Object of type Undefined is not JSON serializable";
    QTest::newRow("unpack mismatch") << "{% for a, b in [[1, 2, 3]] %}{% endfor %}" << "" << "template:1:4: too many values to unpack (expected 2)";
    QTest::newRow("set attribute on non-namespace") << "{% set d = {} %}{% set d.x = 1 %}" << "" << "template:1:20: cannot assign attribute on non-namespace object";
    QTest::newRow("slice step zero") << "{{ [1][::0] }}" << "" << "template:1:7: slice step cannot be zero";
    QTest::newRow("error inside macro") << "{% macro f() %}\n  {{ 1 + none }}\n{% endmacro %}{{ f() }}" << ""
                                        << "template:2:8: unsupported operand type(s) for +: 'int' and 'NoneType'";
    QTest::newRow("bad filter argument") << "{{ 'a'|trim(1, 2) }}" << "" << "template:1:8: trim() takes at most 1 positional argument (2 given)";
}

void TestJinja::errors()
{
    QFETCH(QString, source);
    QFETCH(QString, context);
    QFETCH(QString, expected);
    auto out = renderWith(source, context);
    QVERIFY2(!out.isOk(), out.isOk() ? out->c_str() : "");
    QCOMPARE(QString::fromStdString(out.message()), expected);
}

void TestJinja::limits_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("expected");   // part of the message
    // Endless work: a macro recursing forever is stopped by the call depth...
    QTest::newRow("endless recursion") << "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}" << "macro calls nested deeper than 100 levels";
    // ...and a loop that would run for hours by the step limit.
    QTest::newRow("huge loop") << "{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}"
                               << "evaluation steps";
    // Output that grows without bound.
    QTest::newRow("exploding output") << "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}" << "output exceeded the limit";
    QTest::newRow("exploding string") << "{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s + ns.s %}{% endfor %}"
                                      << "exceeds the output size limit";
    QTest::newRow("exploding repetition") << "{{ 'x' * 10000000000 }}" << "exceeds the output size limit";
    QTest::newRow("exploding concat") << "{% set ns = namespace(s='ab') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"
                                      << "output exceeded the limit";
    QTest::newRow("exploding list") << "{% set ns = namespace(l=['abcdefgh']) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}"
                                    << "list exceeds the limit of 1000000 items";
    QTest::newRow("exploding list repetition") << "{{ ([1] * 1000)|length }}{{ [1, 2] * 600000 }}" << "list repetition exceeds the limit";
    QTest::newRow("deep nesting") << "{% set ns = namespace(x=1) %}{% for i in range(5000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}"
                                  << "value nested deeper than 1000 levels";
    QTest::newRow("deep dict nesting") << "{% set ns = namespace(x=1) %}{% for i in range(5000) %}{% set ns.x = dict(a=ns.x) %}{% endfor %}"
                                       << "value nested deeper than 1000 levels";
    QTest::newRow("shared sublists printed") << "{% set ns = namespace(a=[1]) %}{% for i in range(60) %}{% set ns.a = [ns.a, ns.a] %}{% endfor %}{{ ns.a == ns.a }}{{ ns.a }}"
                                             << "output exceeded the limit";
    QTest::newRow("shared sublists as json") << "{% set ns = namespace(a=[1]) %}{% for i in range(60) %}{% set ns.a = [ns.a, ns.a] %}{% endfor %}{{ ns.a|tojson }}"
                                             << "tojson: result exceeds the output size limit";
    QTest::newRow("exploding join") << "{% set ns = namespace(l=['abcdefghij']) %}{% for i in range(19) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|join }}"
                                    << "output exceeded the limit";
}

void TestJinja::limits()
{
    QFETCH(QString, source);
    QFETCH(QString, expected);
    RenderOptions options;
    options.limits.maxSteps = 3'000'000;   // work is charged per byte and item: room for the other limits to be reached first
    options.limits.maxOutputBytes = size_t(4) << 20;
    options.limits.maxCallDepth = 100;
    auto out = renderWith(source, {}, options);
    QVERIFY2(!out.isOk(), "expected the limit to stop the template");
    QVERIFY2(out.message().find(expected.toStdString()) != std::string::npos, out.message().c_str());
    QVERIFY2(out.message().rfind("template:1:", 0) == 0, out.message().c_str());   // with a position
}

void TestJinja::nesting()
{
    // Self-referencing namespaces print (with "...") and are freed; long
    // namespace chains are freed without recursion.
    auto cyclic = renderWith("{% set ns = namespace(a=1) %}{% set ns.me = ns %}{% set ns.l = [ns] %}{{ (ns|string)[:30] }}|{{ ns.me.me.me.a }}", {});
    QVERIFY2(cyclic.isOk(), cyclic.message().c_str());
    QCOMPARE(QString::fromStdString(*cyclic), QStringLiteral("<Namespace {'a': 1, 'me': <Nam|1"));
    auto chain = renderWith("{% set ns = namespace(x=0) %}{% for i in range(500) %}{% set ns.x = namespace(x=ns.x) %}{% endfor %}ok", {});
    QVERIFY2(chain.isOk(), chain.message().c_str());
    QCOMPARE(QString::fromStdString(*chain), QStringLiteral("ok"));
    // Chains are bounded like lists, whether built with namespace() or by assignment.
    for (const char *source : {"{% set ns = namespace(x=0) %}{% for i in range(100000) %}{% set ns.x = namespace(x=ns.x) %}{% endfor %}",
                               "{% set ns = namespace(x=0) %}{% for i in range(100000) %}{% set n = namespace() %}{% set n.x = ns.x %}{% set ns.x = n %}{% endfor %}",
                               "{% set ns = namespace(x=0) %}{% for i in range(100000) %}{% set ns.x = [namespace(x=ns.x)] %}{% endfor %}{% set ns.x = 0 %}"}) {
        auto deep = renderWith(source, {});
        QVERIFY(!deep.isOk());
        QVERIFY2(deep.message().find("value nested deeper than 1000 levels") != std::string::npos, deep.message().c_str());
    }

    // Deeply nested expressions and blocks are refused by the parser, not by a crash.
    const QString deep = "{{ " + QString("(").repeated(5000) + "1" + QString(")").repeated(5000) + " }}";
    auto parsed = Template::parse(deep.toStdString());
    QVERIFY(!parsed.isOk());
    QVERIFY2(parsed.message().find("nesting deeper than") != std::string::npos, parsed.message().c_str());
    const QString deepIf = QString("{% if true %}").repeated(5000);
    parsed = Template::parse(deepIf.toStdString());
    QVERIFY(!parsed.isOk());
    QVERIFY2(parsed.message().find("nesting deeper than") != std::string::npos, parsed.message().c_str());
    // Nesting within the limit is fine.
    const QString ok = "{{ " + QString("(").repeated(50) + "1" + QString(")").repeated(50) + " }}";
    auto fine = Template::parse(ok.toStdString());
    QVERIFY2(fine.isOk(), fine.message().c_str());
    // A long single-line template keeps exact columns (and lexes in linear time).
    const QString longLine = QString("{{ 'x' }}").repeated(20000) + "{{ 1 + none }}";
    auto t = Template::parse(longLine.toStdString());
    QVERIFY(t.isOk());
    auto r = t->render({});
    QVERIFY(!r.isOk());
    QCOMPARE(QString::fromStdString(r.message()), QStringLiteral("template:1:180006: unsupported operand type(s) for +: 'int' and 'NoneType'"));
}

void TestJinja::templateOptions()
{
    TemplateOptions o;
    o.name = "t.jinja";
    o.trimBlocks = false;
    o.lstripBlocks = false;
    o.keepTrailingNewline = true;
    auto t = Template::parse("  {% if true %}\nx{% endif %}\n", o);
    QVERIFY(t.isOk());
    auto out = t->render({});
    QVERIFY(out.isOk());
    QCOMPARE(QString::fromStdString(*out), QStringLiteral("  \nx\n"));
    auto bad = Template::parse("{{ x", o);
    QVERIFY(!bad.isOk());
    QVERIFY2(bad.message().rfind("t.jinja:1:1:", 0) == 0, bad.message().c_str());
}

// The names a template reads, found at parse time: in every kind of
// expression and statement; assignment targets are not reads.
void TestJinja::referencedNames()
{
    auto t = Template::parse("{% set x = 1 %}{% if enable_thinking is defined and enable_thinking is false %}a{% endif %}"
                             "{% for m in messages if m.role != skip %}{{ m.content | replace(old, 'n') }}{% endfor %}"
                             "{% macro f(p=default_p) %}{{ p ~ inner }}{% endmacro %}{{ f() if cond else [reasoning_effort] }}"
                             "{% set ns = namespace(v=start) %}{% set ns.v = ns.v + 1 %}{{ {'k': dict_value}['k'] }}"
                             "{% filter upper %}{{ filtered }}{% endfilter %}");
    QVERIFY2(t, t.message().c_str());
    const std::vector<std::string> expected = {"cond", "default_p", "dict_value", "enable_thinking", "f", "filtered",
                                               "inner", "m", "messages", "namespace", "ns", "old", "p", "reasoning_effort",
                                               "skip", "start"};
    QCOMPARE(t->referencedNames(), expected);
    QVERIFY(t->readsName("enable_thinking"));
    QVERIFY(t->readsName("reasoning_effort"));
    QVERIFY(!t->readsName("x"));        // only assigned
    QVERIFY(!t->readsName("upper"));    // a filter, not a variable
    QVERIFY(!t->readsName("role"));     // an attribute
    QVERIFY(Template().referencedNames().empty());
    QVERIFY(!Template().readsName("messages"));
}

// RenderOptions::fixedStrftime: strftime_now() returns the text whatever
// the format (the stub Hugging Face fixtures use); unset, the clock counts.
void TestJinja::fixedStrftime()
{
    RenderOptions options;
    options.clock = [] { return std::time_t(1721995200); };
    auto real = renderWith("{{ strftime_now('%Y-%m-%d') }}|{{ strftime_now('%d %b %Y') }}", "", options);
    QVERIFY2(real, real.message().c_str());
    QCOMPARE(QString::fromStdString(*real), QStringLiteral("2024-07-26|26 Jul 2024"));
    options.fixedStrftime = "26 Jul 2024";
    auto fixed = renderWith("{{ strftime_now('%Y-%m-%d') }}|{{ strftime_now('%d %b %Y') }}", "", options);
    QVERIFY2(fixed, fixed.message().c_str());
    QCOMPARE(QString::fromStdString(*fixed), QStringLiteral("26 Jul 2024|26 Jul 2024"));
    QVERIFY(!renderWith("{{ strftime_now(3) }}", "", options));   // the format is still checked
}

void TestJinja::json_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("compact");   // toJsonString() of the parse
    QTest::newRow("scalars") << R"([1, -2, 2.5, 1e3, true, false, null, "s"])" << R"([1,-2,2.5,1000,true,false,null,"s"])";
    QTest::newRow("order kept") << R"({"b": 1, "a": {"d": [], "c": {}}})" << R"({"b":1,"a":{"d":[],"c":{}}})";
    QTest::newRow("escapes") << R"(["\u00e9\ud83e\udd99\n\"\\\/"])" << "[\"é🦙\\n\\\"\\\\/\"]";
    QTest::newRow("duplicate key keeps last") << R"({"a": 1, "a": 2})" << R"({"a":2})";
    QTest::newRow("whitespace") << " \n\t{ } \r\n" << "{}";
    QTest::newRow("big integer becomes number") << "[123456789012345678901234]" << "[1.2345678901234569e+23]";
}

void TestJinja::json()
{
    QFETCH(QString, text);
    QFETCH(QString, compact);
    auto v = json::parseJson(text.toStdString());
    QVERIFY2(v.isOk(), v.message().c_str());
    QCOMPARE(QString::fromStdString(json::toJsonString(*v)), compact);
}

void TestJinja::jsonErrors_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty") << "" << "json:1:1: unexpected end of input, expected a value";
    QTest::newRow("trailing comma") << "[1,]" << "json:1:4: unexpected character ']', expected a value";
    QTest::newRow("unquoted key") << "{a: 1}" << "json:1:2: expected a string key in object";
    QTest::newRow("second line") << "[\n  1 2]" << "json:2:5: expected ',' or ']' in array";
    QTest::newRow("bad escape") << R"(["\q"])" << "json:1:4: invalid escape '\\q' in string";
    QTest::newRow("lone surrogate") << R"(["\udc00"])" << "json:1:9: unpaired low surrogate in \\u escape";
    QTest::newRow("control character") << "[\"a\nb\"]" << "json:1:4: control character in string (must be escaped)";
    QTest::newRow("trailing text") << "{} x" << "json:1:4: unexpected text after the JSON value";
    QTest::newRow("leading zero") << "[01]" << "json:1:3: expected ',' or ']' in array";
    QTest::newRow("too deep") << QString("[").repeated(600) << "nesting deeper than 512 levels";
}

void TestJinja::jsonErrors()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    auto v = json::parseJson(text.toStdString());
    QVERIFY(!v.isOk());
    QVERIFY2(QString::fromStdString(v.message()).contains(expected), v.message().c_str());
}

QTEST_MAIN(TestJinja)
#include "tst_jinja.moc"
