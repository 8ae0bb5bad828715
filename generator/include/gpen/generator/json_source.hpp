// A parsed JSON document that remembers where each value came from, so that
// every later error can name the JSON pointer, line and column. The text is
// read by gpen's own strict parser (json_source.cpp says why), into an
// nlohmann::json value plus the position of every value and key.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "gpen/generator/error.hpp"

namespace gpen {

class JsonSource {
 public:
  // Throws SpecError (pointer "", with line and column) on malformed JSON,
  // duplicate keys, numbers beyond float64, invalid UTF-8, nesting deeper
  // than kMaxJsonDepth or text longer than kMaxSpecBytes (limits.hpp). A
  // leading UTF-8 byte-order mark is skipped. from_file reads regular files
  // only, without blocking on a FIFO.
  static JsonSource from_file(const std::string& path);
  static JsonSource from_string(std::string text, std::string name = "<string>");
  // The value at `pointer` as a document of its own (a spec written inline
  // in a program): its pointers start there, and its errors name the whole
  // pointer and the line and column in this document's text.
  JsonSource subtree(const std::string& pointer) const;

  const nlohmann::json& root() const { return root_; }
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }

  // Position of the value at `pointer`; of the key instead with key=true.
  // Falls back to the nearest located ancestor.
  Location locate(const std::string& pointer, bool key = false) const;
  // Position of the character `offset` (0-based, decoded) inside the string
  // value at `pointer`; used to point into expressions.
  Location locate_in_string(const std::string& pointer, std::size_t offset) const;
  // The raw source text of a scalar value (e.g. "0.125" exactly as written).
  std::string raw_scalar(const std::string& pointer) const;

  // Refuses the array at `pointer` if it has more than `most` entries (one
  // of the limits of limits.hpp).
  void check_count(const std::string& pointer, std::size_t count, std::size_t most) const;

  [[noreturn]] void fail(const std::string& pointer, const std::string& message,
                         const std::string& expected = "", bool at_key = false) const;
  [[noreturn]] void fail_at(const std::string& pointer, Location where, const std::string& message,
                            const std::string& expected = "") const;

 private:
  struct Span {
    std::size_t begin = 0;  // byte offset of the first character
    std::size_t end = 0;    // one past the last
  };
  class Parser;
  JsonSource() = default;
  Location position_of(std::size_t byte) const;
  std::string excerpt(Location where) const;

  std::string name_;
  std::string prefix_;  // a subtree's pointer in the document it came from
  std::string text_;
  nlohmann::json root_;
  std::map<std::string, Span> values_;
  std::map<std::string, Span> keys_;
};

// Appends an escaped reference token to a JSON pointer (RFC 6901).
std::string json_pointer_join(const std::string& base, const std::string& token);
std::string json_pointer_join(const std::string& base, std::size_t index);

}  // namespace gpen
