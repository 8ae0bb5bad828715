// The options every single-spec command takes: the spec file, --set
// overrides of its tunables and --dtype, and the loading they imply; and
// the checks of options that several commands share.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpen/generator/codegen.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/generator/overrides.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen::cli {

// The user's --set list names each tunable once: a second value would
// silently win (Spec::choose takes the last, as gpen's own lists need).
inline void check_distinct_sets(const std::vector<std::string>& set) {
  for (std::size_t i = 0; i < set.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const std::string name = set[i].substr(0, set[i].find('='));
      if (set[j].substr(0, set[j].find('=')) == name)
        throw UsageError(fmt::format("--set {}: {} is set twice (also --set {})", set[i], name, set[j]));
    }
}

struct SpecOptions {
  std::string spec;
  std::vector<std::string> set;
  std::string dtype;

  void add_to(CLI::App& cmd) {
    cmd.add_option("spec", spec, "Spec file (JSON)")->required()->check(CLI::ExistingFile);
    cmd.add_option("--set", set, "Override a tunable: name=value (repeatable)");
    cmd.add_option("--dtype", dtype, "Override the spec's dtype (float32|float64)")->check(CLI::IsMember({"float32", "float64"}));
  }
  std::optional<Dtype> dtype_override() const { return dtype.empty() ? std::nullopt : parse_dtype(dtype); }
  Spec load() const { return load_spec(spec, dtype_override()); }
  TunableChoice choose(const Spec& s) const {
    check_distinct_sets(set);
    return s.choose(set);
  }
  // generate(s, c), a plan error that the --set brought being the --set's
  // (plan_with_overrides): a UsageError naming them.
  Variant generate(const Spec& s, const TunableChoice& c) const {
    Variant g = plan_with_overrides(s, c, set, fmt::format("--set {}", fmt::join(set, " --set ")));
    print_unit(s, g);
    return g;
  }
};

// The most timed launches a --repeat asks for: CLI::Range(1, kMaxRepeat).
constexpr int kMaxRepeat = 100000;

// An output FILE (-o, --json, --plot), checked when the options are parsed,
// before any work: a name, not a directory, in a directory that exists.
inline CLI::Validator output_file() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        namespace fs = std::filesystem;
        std::error_code ec;
        const fs::path dir = fs::path(path).parent_path();
        if (path.empty()) return "an empty file name";
        if (fs::is_directory(path, ec)) return path + " is a directory, not a file";
        if (!dir.empty() && !fs::is_directory(dir, ec))
          return "cannot write " + path + ": " + (fs::exists(dir, ec) ? dir.string() + " is not a directory" : "directory " + dir.string() + " does not exist");
        return {};
      },
      "FILE", "output file");
}

// A number that `valid` accepts, the whole value read (no trailing text,
// no overflow to infinity); else "not <expected>". `valid` sees NaN too.
inline CLI::Validator number_where(bool (*valid)(double), const char* expected, const char* type, const char* name) {
  return CLI::Validator(
      [valid, expected](std::string& v) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double x = std::strtod(v.c_str(), &end);
        return !v.empty() && *end == '\0' && errno != ERANGE && valid(x) ? "" : std::string("not ") + expected;
      },
      type, name);
}

// An option whose empty value would otherwise read as "not given" (--size,
// --ranks): given empty, it is a mistake.
inline CLI::Validator non_empty() {
  return CLI::Validator([](std::string& v) -> std::string { return v.empty() ? "an empty value" : ""; }, "", "non-empty");
}

// An output folder (--out), checked when the options are parsed: a name,
// whose nearest existing ancestor is a folder. Whether it can be made is
// found by making it (gpen simulate does, before any GPU work).
inline CLI::Validator output_folder() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        namespace fs = std::filesystem;
        std::error_code ec;
        if (path.empty()) return "an empty folder name";
        fs::path p = fs::absolute(path, ec);
        if (ec) return "cannot write " + path + ": " + ec.message();
        while (!fs::exists(p, ec) && p.has_relative_path()) p = p.parent_path();
        if (!fs::is_directory(p, ec)) return "cannot write into " + path + ": " + p.string() + " is not a folder";
        return {};
      },
      "DIR", "output folder");
}

// Writes `text` to `path`; throws std::runtime_error naming the file and why.
inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f || !(f << text) || !f.flush()) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace gpen::cli
