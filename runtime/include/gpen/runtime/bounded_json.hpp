// JSON read from a file that someone else may have written (a kernel cache
// entry's header, the tuning database): parsed without exceptions and with
// a bound on nesting, since a line of a hundred million '[' would otherwise
// cost gigabytes before the parser found anything wrong.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gpen {

// `text` parsed, or a discarded value (is_discarded()) when it is not JSON
// or nests arrays and objects more than `max_depth` deep (a flat object is
// depth 1, an object of objects depth 2).
nlohmann::json parse_bounded_json(const std::string& text, int max_depth);

}  // namespace gpen
