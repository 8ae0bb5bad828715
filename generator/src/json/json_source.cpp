#include "gpen/generator/json_source.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/limits.hpp"
#include "gpen/generator/regular_file.hpp"
#include "gpen/generator/utf8.hpp"

namespace gpen {

std::string json_pointer_join(const std::string& base, const std::string& token) {
  std::string out = base + "/";
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string json_pointer_join(const std::string& base, std::size_t index) {
  return base + "/" + std::to_string(index);
}

// A strict JSON reader (RFC 8259) that builds the nlohmann value and records
// where each value and key stood. It is ours rather than nlohmann's parser
// because a spec must be refused, with a position, where nlohmann accepts
// silently (duplicate keys: the last wins) or throws without one (1e400),
// and because its depth must be bounded before the stack is.
class JsonSource::Parser {
 public:
  explicit Parser(JsonSource& s) : s_(s), t_(s.text_) {}

  nlohmann::json document() {
    skip_ws();
    nlohmann::json root = value("", 0);
    skip_ws();
    if (pos_ < t_.size()) fail(pos_, "malformed JSON: text after the end of the document", "nothing after the top-level value");
    return root;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& message, const std::string& expected) const {
    s_.fail_at("", s_.position_of(at), message, expected);
  }

  char peek() const { return pos_ < t_.size() ? t_[pos_] : '\0'; }
  bool at_end() const { return pos_ >= t_.size(); }

  void skip_ws() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) ++pos_;
  }

  std::string found() const {
    if (at_end()) return "end of the text";
    const unsigned char c = static_cast<unsigned char>(t_[pos_]);
    if (c >= 0x20 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
    return fmt::format("byte 0x{:02x}", c);
  }

  void expect(char c, const char* expected) {
    if (peek() != c) fail(pos_, "malformed JSON: unexpected " + found(), expected);
    ++pos_;
  }

  nlohmann::json value(const std::string& ptr, int depth) {
    if (depth > kMaxJsonDepth)
      fail(pos_, fmt::format("the JSON nests deeper than {} levels", kMaxJsonDepth), "a spec of fewer nested arrays and objects");
    // Every value is remembered by its pointer: both are bounded, so that
    // memory stays linear in the text.
    if (++values_ > kMaxJsonValues)
      fail(pos_, fmt::format("the JSON has more than {} values", kMaxJsonValues), "a spec of fewer values");
    if (ptr.size() > kMaxJsonPointer)
      fail(pos_, fmt::format("the JSON pointer of this value has {} characters", ptr.size()),
           fmt::format("at most {}: shorter keys", kMaxJsonPointer));
    const std::size_t begin = pos_;
    nlohmann::json v;
    switch (peek()) {
      case '{': v = object(ptr, depth); break;
      case '[': v = array(ptr, depth); break;
      case '"': v = string(); break;
      case 't': literal("true"); v = true; break;
      case 'f': literal("false"); v = false; break;
      case 'n': literal("null"); v = nullptr; break;
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) v = number();
        else fail(pos_, "malformed JSON: unexpected " + found(), "a value: an object, array, string, number, true, false or null");
    }
    s_.values_[ptr] = {begin, pos_};
    return v;
  }

  nlohmann::json object(const std::string& ptr, int depth) {
    ++pos_;
    nlohmann::json obj = nlohmann::json::object();
    skip_ws();
    if (peek() == '}') { ++pos_; return obj; }
    for (;;) {
      skip_ws();
      const std::size_t kb = pos_;
      if (peek() != '"') fail(pos_, "malformed JSON: unexpected " + found(), "a key in double quotes");
      const std::string key = string();
      const std::string child = json_pointer_join(ptr, key);
      if (child.size() > kMaxJsonPointer)
        fail(kb, fmt::format("a key of {} characters", key.size()), fmt::format("a JSON pointer of at most {} characters: shorter keys", kMaxJsonPointer));
      if (obj.contains(key)) {
        const Location first = s_.position_of(s_.keys_.at(child).begin);
        fail(kb, fmt::format("duplicate key '{}' (first at line {}, column {})", key, first.line, first.column),
             "each key once in an object");
      }
      s_.keys_[child] = {kb, pos_};
      skip_ws();
      expect(':', "':' after the key");
      skip_ws();
      obj[key] = value(child, depth + 1);
      skip_ws();
      if (peek() == ',') { ++pos_; continue; }
      expect('}', "',' or '}'");
      return obj;
    }
  }

  nlohmann::json array(const std::string& ptr, int depth) {
    ++pos_;
    nlohmann::json arr = nlohmann::json::array();
    skip_ws();
    if (peek() == ']') { ++pos_; return arr; }
    for (std::size_t i = 0;; ++i) {
      skip_ws();
      arr.push_back(value(json_pointer_join(ptr, i), depth + 1));
      skip_ws();
      if (peek() == ',') { ++pos_; continue; }
      expect(']', "',' or ']'");
      return arr;
    }
  }

  void literal(const char* word) {
    const std::string w = word;
    if (t_.compare(pos_, w.size(), w) != 0) fail(pos_, "malformed JSON: unexpected " + found(), "a value: an object, array, string, number, true, false or null");
    pos_ += w.size();
  }

  // Integers that fit 64 bits stay integers; others, and every number with a
  // fraction or exponent, become doubles (the raw text stays available for
  // exact coefficients and for "does not fit" messages).
  nlohmann::json number() {
    const std::size_t begin = pos_;
    bool integral = true;
    if (peek() == '-') ++pos_;
    if (peek() == '0') ++pos_;
    else if (peek() >= '1' && peek() <= '9') digits();
    else fail(pos_, "malformed JSON: a number needs digits", "a digit");
    if (peek() == '.') {
      integral = false;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail(pos_, "malformed JSON: a number needs digits after '.'", "a digit");
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail(pos_, "malformed JSON: a number needs digits in its exponent", "a digit");
      digits();
    }
    if (pos_ - begin > kMaxNumberChars)
      fail(begin, fmt::format("a number of {} characters", pos_ - begin), fmt::format("at most {} characters", kMaxNumberChars));
    const std::string text = t_.substr(begin, pos_ - begin);
    if (integral) {
      errno = 0;
      char* end = nullptr;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (errno == 0 && end == text.c_str() + text.size()) return v;
    }
    errno = 0;
    const double d = std::strtod(text.c_str(), nullptr);
    if (std::isinf(d))
      fail(begin, fmt::format("the number {} is beyond the range of a float64", text),
           "a finite number, at most about 1.8e308 in magnitude");
    return d;
  }

  void digits() {
    while (peek() >= '0' && peek() <= '9') ++pos_;
  }

  unsigned hex4() {
    unsigned cp = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = peek();
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) fail(pos_, "malformed JSON: \\u needs four hex digits", "a hex digit");
      cp = cp * 16 + static_cast<unsigned>(d);
      ++pos_;
    }
    return cp;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) out += char(cp);
    else if (cp < 0x800) { out += char(0xC0 | (cp >> 6)); out += char(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) { out += char(0xE0 | (cp >> 12)); out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F)); }
    else {
      out += char(0xF0 | (cp >> 18)); out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F));
    }
  }

  // One UTF-8 sequence, validated (no overlong forms, no surrogates).
  void utf8(std::string& out) {
    const std::size_t at = pos_;
    const unsigned char c = static_cast<unsigned char>(t_[pos_]);
    const std::size_t n = utf8_length(c);
    if (n == 0) fail(at, fmt::format("byte 0x{:02x} is not valid UTF-8", c), "UTF-8 text");
    for (std::size_t k = 1; k < n; ++k)
      if (at + k >= t_.size() || (static_cast<unsigned char>(t_[at + k]) & 0xC0) != 0x80)
        fail(at, fmt::format("byte 0x{:02x} starts a broken UTF-8 sequence", c), "UTF-8 text");
    // Whole, yet an overlong form, a surrogate or past U+10FFFF.
    if (utf8_char(t_, at).length == 0) fail(at, fmt::format("byte 0x{:02x} starts an invalid UTF-8 sequence", c), "UTF-8 text");
    out.append(t_, at, n);
    pos_ = at + n;
  }

  std::string string() {
    const std::size_t open = pos_;
    std::string out;
    ++pos_;
    for (;;) {
      if (at_end()) fail(open, "malformed JSON: the string is not closed", "a closing '\"'");
      const unsigned char c = static_cast<unsigned char>(t_[pos_]);
      if (c == '"') { ++pos_; return out; }
      if (c < 0x20) fail(pos_, fmt::format("malformed JSON: control character 0x{:02x} in a string", c), "\\n, \\t or \\u00XX for control characters");
      if (c >= 0x80) { utf8(out); continue; }
      if (c != '\\') { out += static_cast<char>(c); ++pos_; continue; }
      const std::size_t esc = pos_++;
      const char e = peek();
      ++pos_;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (peek() != '\\' || pos_ + 1 >= t_.size() || t_[pos_ + 1] != 'u')
              fail(esc, "malformed JSON: a lone high surrogate", "a \\uDC00-\\uDFFF escape after it");
            pos_ += 2;
            const unsigned lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail(esc, "malformed JSON: a high surrogate without its low half", "a \\uDC00-\\uDFFF escape after it");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail(esc, "malformed JSON: a lone low surrogate", "a high surrogate before it");
          }
          append_utf8(out, cp);
          break;
        }
        default: fail(esc, "malformed JSON: unknown escape", "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
      }
    }
  }

  JsonSource& s_;
  const std::string& t_;
  std::size_t pos_ = 0;
  std::size_t values_ = 0;
};

JsonSource JsonSource::from_file(const std::string& path) {
  std::string text;
  try {
    text = read_regular_file(path, kMaxSpecBytes, Links::Follow);
  } catch (const FileReadError& e) {
    const bool big = e.reason() == FileReadError::Reason::TooLarge;
    throw SpecError({path, "", {}, "the spec file " + e.problem(),
                     big ? fmt::format("a spec of at most {} bytes", kMaxSpecBytes) : "a readable regular file of JSON", ""});
  }
  return from_string(std::move(text), path);
}

JsonSource JsonSource::from_string(std::string text, std::string name) {
  JsonSource s;
  s.name_ = std::move(name);
  // A byte-order mark is not JSON, but editors write one: it is skipped, and
  // columns on the first line count from after it, as the editor shows them.
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  s.text_ = std::move(text);
  if (s.text_.size() > kMaxSpecBytes)
    s.fail_at("", {}, fmt::format("the spec has {} bytes", s.text_.size()), fmt::format("a spec of at most {} bytes", kMaxSpecBytes));
  s.root_ = Parser(s).document();
  return s;
}

JsonSource JsonSource::subtree(const std::string& pointer) const {
  JsonSource s;
  s.name_ = name_;
  s.prefix_ = prefix_ + pointer;
  s.text_ = text_;
  s.root_ = root_.at(nlohmann::json::json_pointer(pointer));
  // The spans below `pointer`, re-keyed from it.
  auto below = [&](const std::map<std::string, Span>& from, std::map<std::string, Span>& to) {
    for (auto it = from.lower_bound(pointer); it != from.end() && it->first.compare(0, pointer.size(), pointer) == 0; ++it) {
      const std::string rest = it->first.substr(pointer.size());
      if (rest.empty() || rest[0] == '/') to.emplace(rest, it->second);
    }
  };
  below(values_, s.values_);
  below(keys_, s.keys_);
  return s;
}

Location JsonSource::position_of(std::size_t byte) const {
  if (CountingOnly::active()) return {};  // an error only counted needs none, and this scan is linear
  Location loc{1, 1};
  for (std::size_t i = 0; i < byte && i < text_.size(); ++i) {
    if (text_[i] == '\n') { ++loc.line; loc.column = 1; }
    else if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++loc.column;  // a character, not a byte
  }
  return loc;
}

Location JsonSource::locate(const std::string& pointer, bool key) const {
  std::string p = pointer;
  for (;;) {
    const auto& table = key ? keys_ : values_;
    auto it = table.find(p);
    if (it != table.end()) return position_of(it->second.begin);
    key = false;
    if (p.empty()) return {};
    p = p.substr(0, p.rfind('/'));
  }
}

Location JsonSource::locate_in_string(const std::string& pointer, std::size_t offset) const {
  auto it = values_.find(pointer);
  if (it == values_.end() || text_[it->second.begin] != '"') return locate(pointer);
  // Walk the raw string, counting the decoded bytes each escape stands for.
  std::size_t raw = it->second.begin + 1, decoded = 0;
  const std::size_t end = it->second.end - 1;
  while (decoded < offset && raw < end) {
    if (text_[raw] != '\\') { ++raw; ++decoded; continue; }
    if (text_[raw + 1] != 'u') { raw += 2; ++decoded; continue; }
    const unsigned cp = static_cast<unsigned>(std::strtoul(text_.substr(raw + 2, 4).c_str(), nullptr, 16));
    const bool pair = cp >= 0xD800 && cp <= 0xDBFF;
    raw += pair ? 12 : 6;
    decoded += pair ? 4 : cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
  }
  return position_of(std::min(raw, end));
}

std::string JsonSource::raw_scalar(const std::string& pointer) const {
  auto it = values_.find(pointer);
  if (it == values_.end()) return {};
  return text_.substr(it->second.begin, it->second.end - it->second.begin);
}

// The line of `where` with a caret under its column; a long line is cut to a
// window around the caret, and bytes that would act on a terminal are shown as '?'.
std::string JsonSource::excerpt(Location where) const {
  if (where.line <= 0) return {};
  std::size_t begin = 0;
  for (int l = 1; l < where.line && begin != std::string::npos; ++l) {
    begin = text_.find('\n', begin);
    if (begin != std::string::npos) ++begin;
  }
  if (begin == std::string::npos) return {};
  std::size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;  // CRLF
  // The characters of the line around the caret (UTF-8 sequences kept
  // whole), found by counting, so that a long line costs no copy of itself.
  const std::size_t caret = static_cast<std::size_t>(std::max(0, where.column - 1));
  constexpr std::size_t kWindow = 60;  // characters shown on each side of the caret
  const std::size_t from = caret > kWindow ? caret - kWindow : 0, to = caret + kWindow;
  std::string line = from > 0 ? "..." : "";
  std::size_t n_char = 0, i = begin;
  for (; i < end && n_char < to; ++n_char) {
    std::size_t n = 1;
    while (i + n < end && (static_cast<unsigned char>(text_[i + n]) & 0xC0) == 0x80) ++n;
    if (n_char >= from) {
      const unsigned char c = static_cast<unsigned char>(text_[i]);
      const bool shown = n == utf8_length(c) && c >= 0x20 && c != 0x7f;
      line += shown ? text_.substr(i, n) : std::string(c == '\t' ? " " : "?");
    }
    i += n;
  }
  if (i < end) line += "...";
  const std::size_t shift = caret - from + (from > 0 ? 3 : 0);
  const std::string gutter = fmt::format("{:>5} | ", where.line);
  return gutter + line + "\n" + std::string(gutter.size() - 2, ' ') + "| " + std::string(shift, ' ') + "^";
}

void JsonSource::check_count(const std::string& pointer, std::size_t count, std::size_t most) const {
  if (count > most) fail(pointer, fmt::format("{} entries", count), fmt::format("at most {} entries (gpen's limit; specs/README.md)", most));
}

void JsonSource::fail(const std::string& pointer, const std::string& message, const std::string& expected,
                      bool at_key) const {
  fail_at(pointer, locate(pointer, at_key), message, expected);
}

void JsonSource::fail_at(const std::string& pointer, Location where, const std::string& message,
                         const std::string& expected) const {
  throw SpecError({name_, prefix_ + pointer, where, message, expected, excerpt(where)});
}

}  // namespace gpen
