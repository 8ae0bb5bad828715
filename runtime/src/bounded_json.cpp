#include "gpen/runtime/bounded_json.hpp"

#include <algorithm>

namespace gpen {
namespace {

// The deepest nesting of [ and { outside strings; no allocation, so it is
// safe on any input. Invalid JSON is left to the parser.
int nesting(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // an escaped quote does not end the string
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

nlohmann::json parse_bounded_json(const std::string& text, int max_depth) {
  if (nesting(text) > max_depth) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, false);
}

}  // namespace gpen
