// The options every single-spec command takes: the spec file, --set
// overrides of its tunables and --dtype; and the loading they imply.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "gpen/generator/spec.hpp"

namespace gpen::cli {

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
  TunableChoice choose(const Spec& s) const { return s.choose(set); }
};

}  // namespace gpen::cli
