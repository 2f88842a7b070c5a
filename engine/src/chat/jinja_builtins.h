// Jinja builtins: the filters, tests, str/list/dict methods and global
// functions that chat templates use (see docs/chat-templates.md for the list).
// Semantics follow Jinja2 3.x and Python; tojson follows Hugging Face's
// override (json.dumps with ensure_ascii=False, insertion order kept).
#pragma once

#include "chat/jinja_value.h"

#include <optional>
#include <string>
#include <string_view>

namespace burrow::jinja {

class Interpreter;

namespace builtins {

bool hasFilter(std::string_view name);
bool hasTest(std::string_view name);

// Errors are plain messages ("trim() ..."), without position.
Result<Value> applyFilter(Interpreter &in, const std::string &name, const Value &input, CallArgs &args);
Result<bool> applyTest(Interpreter &in, const std::string &name, const Value &input, CallArgs &args);

// A method of a str, list or dict value bound to it ("strip", "items", ...);
// nullopt when the type has no such method.
std::optional<Value> boundMethod(const Value &receiver, const std::string &name);

// range, namespace, dict, raise_exception, strftime_now.
Dict globals();

} // namespace builtins
} // namespace burrow::jinja
