// Which variants a device command runs, and on what: the tuned or chosen
// variant, a spec's strategies and block shapes, the target arch.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "json_output.hpp"
#include "spec_options.hpp"
#include "gpen/runtime/device.hpp"

namespace gpen::cli {

// The arch to compile for: `arch` when given, else the GPU's, else sm_90.
std::string arch_or_device(const std::string& arch);

// The tuned variant for this spec, size class and GPU when the tuning
// database has one and the user set no tunable; else the spec's choice.
// `size` as `gpen run --size` reads it for the spec's kind.
TunableChoice tuned_or_chosen(const SpecOptions& so, const Spec& s, const std::string& size, const DeviceInfo& d, bool use_db);

// Every strategy a spec allows; one empty name for kinds without strategies (scans).
std::vector<std::string> strategies_of(const Spec& s);

// `gpen bench`'s variants of a spec: every strategy x block shape ("X" or
// "XxY"), with the fixed overrides. `run` gets each one's overrides; a
// combination the spec refuses, or whose block this GPU cannot run, is
// printed as skipped with the reason, and the next one goes on.
void for_each_variant(const Spec& s, const std::vector<std::string>& strategies, const std::vector<std::string>& blocks,
                      const std::vector<std::string>& fixed, Json& skipped, const std::function<void(const std::vector<std::string>&)>& run);

// `gpen bench --blocks`: "X" or "XxY", numbers of threads.
CLI::Validator block_shape();

// Throws NoDeviceError: "cannot <what>: <why>".
[[noreturn]] void no_device(const std::string& why, const std::string& what);

}  // namespace gpen::cli
