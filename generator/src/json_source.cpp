#include "gpen/generator/json_source.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

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

namespace {

// Walks JSON text that nlohmann has already accepted; records spans only.
class Scanner {
 public:
  using Spans = std::map<std::string, std::pair<std::size_t, std::size_t>>;
  Scanner(const std::string& t, Spans& values, Spans& keys) : t_(t), values_(values), keys_(keys) {}

  void value(const std::string& ptr) {
    skip_ws();
    const std::size_t begin = pos_;
    const char c = peek();
    if (c == '{') {
      ++pos_;
      skip_ws();
      if (peek() == '}') { ++pos_; }
      else {
        for (;;) {
          skip_ws();
          const std::size_t kb = pos_;
          const std::string key = string_token();
          const std::string child = json_pointer_join(ptr, key);
          keys_[child] = {kb, pos_};
          skip_ws();
          ++pos_;  // ':'
          value(child);
          skip_ws();
          if (peek() == ',') { ++pos_; continue; }
          ++pos_;  // '}'
          break;
        }
      }
    } else if (c == '[') {
      ++pos_;
      skip_ws();
      if (peek() == ']') { ++pos_; }
      else {
        for (std::size_t i = 0;; ++i) {
          value(json_pointer_join(ptr, i));
          skip_ws();
          if (peek() == ',') { ++pos_; continue; }
          ++pos_;  // ']'
          break;
        }
      }
    } else if (c == '"') {
      string_token();
    } else {
      while (pos_ < t_.size() && std::string(",}] \t\r\n").find(t_[pos_]) == std::string::npos) ++pos_;
    }
    values_[ptr] = {begin, pos_};
  }

 private:
  char peek() const { return pos_ < t_.size() ? t_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) ++pos_;
  }
  // Returns the decoded string; pos_ ends after the closing quote.
  std::string string_token() {
    std::string out;
    ++pos_;  // opening quote
    while (pos_ < t_.size() && t_[pos_] != '"') {
      if (t_[pos_] == '\\') {
        ++pos_;
        const char e = t_[pos_];
        if (e == 'u') {
          const unsigned cp = std::stoul(t_.substr(pos_ + 1, 4), nullptr, 16);
          pos_ += 4;
          append_utf8(out, cp);
        } else {
          const std::string from = "\"\\/bfnrt", to = "\"\\/\b\f\n\r\t";
          out += to[from.find(e)];
        }
        ++pos_;
      } else {
        out += t_[pos_++];
      }
    }
    ++pos_;  // closing quote
    return out;
  }
  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) out += char(cp);
    else if (cp < 0x800) { out += char(0xC0 | (cp >> 6)); out += char(0x80 | (cp & 0x3F)); }
    else { out += char(0xE0 | (cp >> 12)); out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F)); }
  }

  const std::string& t_;
  Spans& values_;
  Spans& keys_;
  std::size_t pos_ = 0;
};

}  // namespace

JsonSource JsonSource::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw SpecError({path, "", {}, "cannot open the spec file", "a readable JSON file", ""});
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return from_string(ss.str(), path);
}

JsonSource JsonSource::from_string(std::string text, std::string name) {
  JsonSource s;
  s.name_ = std::move(name);
  s.text_ = std::move(text);
  try {
    s.root_ = nlohmann::json::parse(s.text_);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    std::size_t byte = std::min(e.byte > 0 ? e.byte - 1 : 0, s.text_.size());
    // nlohmann reports the end of the offending token; point at its start.
    const std::string& t = s.text_;
    if (byte < t.size() && t[byte] == '"' && byte > 0) {
      std::size_t q = byte - 1;
      while (q > 0 && !(t[q] == '"' && t[q - 1] != '\\')) --q;
      byte = q;
    } else {
      while (byte > 0 && byte <= t.size() && (std::isalnum(static_cast<unsigned char>(t[byte - 1])) || t[byte - 1] == '.' ||
                                              t[byte - 1] == '-' || t[byte - 1] == '+'))
        --byte;
    }
    std::string what = e.what();
    // Keep nlohmann's reason, drop its "[json.exception.parse_error.101] parse error at line.." prefix.
    const auto colon = what.find(": ", what.find("parse error"));
    std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    s.fail_at("", s.position_of(byte), "malformed JSON: " + reason, "");
  }
  s.index();
  return s;
}

void JsonSource::index() {
  Scanner::Spans values, keys;
  Scanner(text_, values, keys).value("");
  for (auto& [k, v] : values) values_[k] = {v.first, v.second};
  for (auto& [k, v] : keys) keys_[k] = {v.first, v.second};
}

Location JsonSource::position_of(std::size_t byte) const {
  Location loc{1, 1};
  for (std::size_t i = 0; i < byte && i < text_.size(); ++i) {
    if (text_[i] == '\n') { ++loc.line; loc.column = 1; }
    else ++loc.column;
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
  // Walk the raw string, counting one decoded character per escape sequence.
  std::size_t raw = it->second.begin + 1;
  for (std::size_t n = 0; n < offset && raw < it->second.end - 1; ++n) {
    if (text_[raw] == '\\') raw += text_[raw + 1] == 'u' ? 6 : 2;
    else ++raw;
  }
  return position_of(raw);
}

std::string JsonSource::raw_scalar(const std::string& pointer) const {
  auto it = values_.find(pointer);
  if (it == values_.end()) return {};
  return text_.substr(it->second.begin, it->second.end - it->second.begin);
}

std::string JsonSource::excerpt(Location where) const {
  if (where.line <= 0) return {};
  std::size_t begin = 0;
  for (int l = 1; l < where.line; ++l) begin = text_.find('\n', begin) + 1;
  std::size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  const std::string line = text_.substr(begin, end - begin);
  const std::string gutter = fmt::format("{:>5} | ", where.line);
  return gutter + line + "\n" + std::string(gutter.size() - 2, ' ') + "| " +
         std::string(std::max(0, where.column - 1), ' ') + "^";
}

void JsonSource::fail(const std::string& pointer, const std::string& message, const std::string& expected,
                      bool at_key) const {
  fail_at(pointer, locate(pointer, at_key), message, expected);
}

void JsonSource::fail_at(const std::string& pointer, Location where, const std::string& message,
                         const std::string& expected) const {
  throw SpecError({name_, pointer, where, message, expected, excerpt(where)});
}

}  // namespace gpen
