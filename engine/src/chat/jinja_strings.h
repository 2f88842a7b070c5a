// Python's str operations for the Jinja builtins: strip, case mapping,
// replace, split, splitlines, find, join, ... and the str methods templates
// call ("a b".split(), s.startswith(...)).
//
// Contract: each follows the Python function of the same name (code points,
// not bytes; invalid UTF-8 reads as U+FFFD). Errors are plain messages
// without position ("empty separator").
// Cost: each charges the interpreter one step per 32 bytes it reads or
// writes before doing the work, searches in linear time (SubstringSearch),
// and refuses a result past the output size limit or a list past the item
// limit while building it, so no call does unbounded work or allocation.
#pragma once

#include "chat/jinja_value.h"

#include <string>
#include <string_view>

namespace burrow::jinja {

class Interpreter;

namespace strings {

// str(v) for a builtin: bounded by the output limit and charged by its bytes.
Result<std::string> text(Interpreter &in, const Value &v);

// `chars`: a string of characters to strip; anything else: whitespace.
Result<std::string> strip(Interpreter &in, std::string_view s, const Value &chars, bool left, bool right);
Result<std::string> mapCase(Interpreter &in, std::string_view s, bool upper);
Result<std::string> capitalize(Interpreter &in, std::string_view s);
Result<std::string> pyTitle(Interpreter &in, std::string_view s);      // str.title()
Result<std::string> jinjaTitle(Interpreter &in, std::string_view s);   // the title filter
Result<std::string> escapeHtml(Interpreter &in, std::string_view s);  // the escape filter
Result<std::string> reversed(Interpreter &in, std::string_view s);     // by code point
// count < 0: every occurrence.
Result<std::string> replace(Interpreter &in, std::string_view s, std::string_view from, std::string_view to,
                            int64_t count);
// str.split / str.rsplit: `sep` None or Undefined splits on whitespace runs.
Result<Value> split(Interpreter &in, std::string_view s, const Value &sep, int64_t maxsplit, bool fromRight);
Result<Value> splitLines(Interpreter &in, std::string_view s, bool keepEnds);
// Every code point satisfies `upper` ? "is upper" : "is lower" (the lower / upper tests).
bool isAllCase(std::string_view s, bool upper);

bool isStringMethod(std::string_view name);
// `receiver`.name(args) for a str method (the receiver is shared, not copied).
Result<Value> callMethod(Interpreter &in, const Value &receiver, const std::string &name, CallArgs &args);

} // namespace strings
} // namespace burrow::jinja
