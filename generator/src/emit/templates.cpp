#include "gpen/generator/templates.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "gpen/generator/error.hpp"
#include "gpen/generator/sha256.hpp"

namespace gpen {

namespace {

struct FoundTemplate {
  std::string text;
  std::string line_name;  // what #line calls it (standalone units)
};

// A file of GPEN_TEMPLATE_DIR at one of the relative paths, if there is one.
std::optional<FoundTemplate> read_from(const std::string& dir, std::initializer_list<std::string> rels) {
  for (const std::string& rel : rels) {
    if (rel.empty()) continue;
    std::ifstream in(dir + "/" + rel, std::ios::binary);
    if (in) {
      std::ostringstream ss;
      ss << in.rdbuf();
      return FoundTemplate{ss.str(), rel};
    }
  }
  return std::nullopt;
}

// Every embedded template as GPEN_TEMPLATE_DIR `dir` gives it (its file
// there, else the embedded text), read once a process: the texts this
// process compiles and the hash its cache keys hold come from that one
// reading, so a template edited while it runs is not compiled under the
// key of the text it replaced (a new process sees the edit).
const std::map<std::string, FoundTemplate>& dir_templates(const std::string& dir) {
  static std::mutex mu;
  static std::map<std::string, std::map<std::string, FoundTemplate>> read;  // by directory; nodes stay put
  std::lock_guard<std::mutex> lock(mu);
  auto [it, fresh] = read.try_emplace(dir);
  if (fresh)
    for (const auto& t : embedded_templates())
      it->second[t.path] = read_from(dir, {std::string(t.source), std::string(t.path)}).value_or(FoundTemplate{t.text, t.source});
  return it->second;
}

// A template by include name, from GPEN_TEMPLATE_DIR when that holds it,
// else embedded. The directory is either a source tree (the template at its
// file, families/stencil/device/stencil_march.cuh) or laid out by include
// name (gpen/stencil_march.cuh, stencil_unit.cu.in). #line names the file in
// gpen's source tree, or the include name for a directory of the second
// kind (its path is the environment's, and is not printed into CUDA).
FoundTemplate find_template(const std::string& path) {
  const char* dir = std::getenv("GPEN_TEMPLATE_DIR");
  const bool override_dir = dir && *dir;
  if (override_dir) {
    const auto& texts = dir_templates(dir);
    if (auto it = texts.find(path); it != texts.end()) return it->second;
    // A header only the directory has: `gen --standalone` inlines it (NVRTC is given the embedded set).
    if (auto found = read_from(dir, {path})) return *found;
  }
  for (const auto& t : embedded_templates())
    if (path == t.path) return {t.text, t.source};
  throw std::runtime_error("gpen: no template named '" + path + "'");
}

}  // namespace

std::string template_text(const std::string& path) { return find_template(path).text; }

namespace {
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

// The headers: the .cuh files and the argument blocks (.h) the host shares;
// cmake/embed_templates.cmake fingerprints the same set at build time.
std::vector<std::pair<std::string, std::string>> template_headers() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& t : embedded_templates()) {
    const std::string p = t.path;
    if (ends_with(p, ".cuh") || ends_with(p, ".h")) out.emplace_back(p, template_text(p));
  }
  return out;
}

std::string headers_sha256(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string material;
  for (const auto& [name, text] : headers) material += std::to_string(name.size()) + ":" + name + std::to_string(text.size()) + ":" + text;
  return sha256_hex(material);
}

std::string template_headers_sha256() {
  if (const char* dir = std::getenv("GPEN_TEMPLATE_DIR"); dir && *dir) return headers_sha256(template_headers());
  return embedded_headers_sha256();
}

std::string templates_sha256() {
  const char* dir = std::getenv("GPEN_TEMPLATE_DIR");
  if (!dir || !*dir) return embedded_templates_sha256();
  static std::mutex mu;
  static std::map<std::string, std::string> hashed;  // by directory
  std::lock_guard<std::mutex> lock(mu);
  auto [it, fresh] = hashed.try_emplace(dir);
  if (fresh) {
    std::vector<std::pair<std::string, std::string>> all;
    for (const auto& t : embedded_templates()) all.emplace_back(t.path, template_text(t.path));
    it->second = headers_sha256(all);
  }
  return it->second;
}

std::string instantiate(const std::string& path, const std::map<std::string, std::string>& values) {
  return fill_template(path, template_text(path), values);
}

std::string fill_template(const std::string& name, const std::string& text,
                          const std::map<std::string, std::string>& values) {
  std::string out;
  std::set<std::string> used;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t open = text.find("${", pos);
    if (open == std::string::npos) break;
    const std::size_t close = text.find('}', open);
    GPEN_INTERNAL_CHECK(close != std::string::npos, fmt::format("template {}: unterminated placeholder", name));
    const std::string key = text.substr(open + 2, close - open - 2);
    auto it = values.find(key);
    GPEN_INTERNAL_CHECK(it != values.end(), fmt::format("template {}: no value for ${{{}}}", name, key));
    out += text.substr(pos, open - pos) + it->second;
    used.insert(key);
    pos = close + 1;
  }
  out += text.substr(pos);
  for (const auto& [k, v] : values)
    GPEN_INTERNAL_CHECK(used.count(k), fmt::format("template {}: value for ${{{}}} is never used", name, k));
  return out;
}

namespace {
void inline_into(const std::string& text, const std::string& name, std::set<std::string>& done, std::string& out) {
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const auto inc = line.find("#include \"gpen/");
    if (inc == 0) {
      const auto q1 = line.find('"');
      const std::string path = line.substr(q1 + 1, line.find('"', q1 + 1) - q1 - 1);
      if (done.insert(path).second) {
        const FoundTemplate t = find_template(path);
        out += fmt::format("#line 1 \"{}\"\n", t.line_name);
        inline_into(t.text, t.line_name, done, out);
        out += fmt::format("#line {} \"{}\"\n", lineno + 1, name);
      }
      continue;
    }
    if (line == "#pragma once") {
      out += "\n";  // keep line numbers
      continue;
    }
    out += line + "\n";
  }
}
}  // namespace

std::string inline_includes(const std::string& source, const std::string& source_name) {
  std::set<std::string> done;
  std::string out;
  inline_into(source, source_name, done, out);
  return out;
}

}  // namespace gpen
