// Typed reads of a spec's JSON document: each names the JSON pointer (and
// so the line and column) of what it found, and what was expected.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/json_source.hpp"
#include "gpen/generator/rational.hpp"

namespace gpen {

// "an object", "a string", ...: what a value is, for messages.
const char* json_type_name(const nlohmann::json& j);

// Typed access to the document with errors that name the pointer.
class JsonReader {
 public:
  JsonReader(const JsonSource& src, Diagnostics& diag) : src_(src), diag_(diag) {}

  const nlohmann::json& at(const std::string& ptr) const { return src_.root().at(nlohmann::json::json_pointer(ptr)); }
  bool has(const std::string& ptr) const { return src_.root().contains(nlohmann::json::json_pointer(ptr)); }

  struct Keys {
    bool complete = true;         // every required key is there
    std::set<std::string> meant;  // known keys that an unknown one looks like (it was misspelt)
  };
  // The keys of the object at ptr. Each unknown key is recorded and each
  // missing required key too, unless an unknown key is its misspelling (one
  // mistake, one error); neither stops the caller, who decides what a missing
  // key costs. Throws when the value is no object.
  Keys object(const std::string& ptr, const std::vector<std::string>& required, const std::vector<std::string>& optional) const {
    const nlohmann::json& j = at(ptr);
    if (!j.is_object()) src_.fail(ptr, fmt::format("found {}", json_type_name(j)), "an object");
    std::vector<std::string> all = required;
    all.insert(all.end(), optional.begin(), optional.end());
    Keys k;
    k.meant = record_unknown_keys(j, ptr, all, src_, diag_);
    for (const auto& key : required) {
      if (j.contains(key)) continue;
      k.complete = false;
      if (!k.meant.count(key))
        diag_.unit([&] { src_.fail(ptr, fmt::format("missing key '{}'", key), fmt::format("an object with '{}'", key)); });
    }
    return k;
  }
  // object() for an entry that cannot go on without its required keys.
  Keys entry(const std::string& ptr, const std::vector<std::string>& required, const std::vector<std::string>& optional) const {
    Keys k = object(ptr, required, optional);
    if (!k.complete) throw UnitFailed{};
    return k;
  }

  // The length of the array at ptr, refused past `most` entries (limits.hpp).
  std::size_t array(const std::string& ptr, bool non_empty, std::size_t most) const {
    const nlohmann::json& j = at(ptr);
    if (!j.is_array()) src_.fail(ptr, fmt::format("found {}", json_type_name(j)), "an array");
    if (non_empty && j.empty()) src_.fail(ptr, "the array is empty", "at least one entry");
    src_.check_count(ptr, j.size(), most);
    return j.size();
  }

  std::string string(const std::string& ptr) const {
    const nlohmann::json& j = at(ptr);
    if (!j.is_string()) src_.fail(ptr, fmt::format("found {}", json_type_name(j)), "a string");
    return j.get<std::string>();
  }

  long long integer(const std::string& ptr, long long lo, long long hi) const {
    const nlohmann::json& j = at(ptr);
    if (!j.is_number_integer()) {
      // An integer past 64 bits is read as a double: say that it does not fit.
      const std::string raw = src_.raw_scalar(ptr);
      const bool too_big = j.is_number_float() && raw.find_first_of(".eE") == std::string::npos;
      src_.fail(ptr, too_big ? fmt::format("{} is out of range", quoted_text(raw, 40)) : fmt::format("found {}", json_type_name(j)),
                fmt::format("an integer in [{}, {}]", lo, hi));
    }
    const long long v = j.get<long long>();
    if (v < lo || v > hi) src_.fail(ptr, fmt::format("{} is out of range", v), fmt::format("an integer in [{}, {}]", lo, hi));
    return v;
  }

  bool boolean(const std::string& ptr) const {
    const nlohmann::json& j = at(ptr);
    if (!j.is_boolean()) src_.fail(ptr, fmt::format("found {}", json_type_name(j)), "true or false");
    return j.get<bool>();
  }

  double number(const std::string& ptr) const {
    const nlohmann::json& j = at(ptr);
    if (!j.is_number()) src_.fail(ptr, fmt::format("found {}", json_type_name(j)), "a number");
    return j.get<double>();
  }

  // A coefficient: an integer, a decimal written in the file, or "p/q".
  Rational rational(const std::string& ptr) const {
    const nlohmann::json& j = at(ptr);
    std::string text;
    if (j.is_number()) text = src_.raw_scalar(ptr);
    else if (j.is_string()) text = j.get<std::string>();
    else src_.fail(ptr, fmt::format("found {}", json_type_name(j)), "a number or a fraction string such as \"-1/12\"");
    auto r = Rational::parse(text);
    if (!r) src_.fail(ptr, fmt::format("'{}' is not an exact rational that fits in 64 bits", quoted_text(text)), "a number or a fraction string such as \"-1/12\"");
    return *r;
  }

  std::string choice(const std::string& ptr, const std::vector<std::string>& allowed) const {
    const std::string s = string(ptr);
    if (!std::count(allowed.begin(), allowed.end(), s)) {
      src_.fail(ptr, fmt::format("'{}' is not allowed here{}", quoted_text(s), did_you_mean(s, allowed)),
                fmt::format("one of: {}", fmt::join(allowed, ", ")));
    }
    return s;
  }

  std::string identifier(const std::string& ptr) const {
    const std::string s = string(ptr);
    const bool ok = !s.empty() && std::isalpha(static_cast<unsigned char>(s[0])) &&
                    std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) &&
                    s.size() <= 64;
    if (!ok) src_.fail(ptr, fmt::format("'{}' is not a valid name", quoted_text(s, 80)), "a letter followed by letters, digits or '_' (at most 64)");
    return s;
  }

  const JsonSource& src() const { return src_; }

 private:
  const JsonSource& src_;
  Diagnostics& diag_;
};

}  // namespace gpen
