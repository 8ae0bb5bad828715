// A spec's kernel for a problem size in one call: the variant `gpen tune`
// stored for this size class and GPU (tuning_db.hpp), else the spec's
// defaults.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "gpen/families/common/kernel.hpp"
#include "gpen/measure/tune/tuning_db.hpp"

namespace gpen {

struct TunedChoice {
  TunableChoice choice;
  std::optional<TuningRecord> record;  // where the choice came from; none: the defaults
};

// The tuning database's best for `spec` at `size` ("512", "256x128x64", as
// `gpen tune --size` takes it) on `device`, else the spec's defaults.
TunedChoice tuned_choice(const Spec& spec, const std::string& size, const DeviceInfo& device, const TuningDb& db = TuningDb());

// That variant's kernel, compiled through the cache and loaded on `ctx`;
// it owns a copy of the spec. `tuned`, when given, says where it came from.
std::unique_ptr<Kernel> make_tuned_kernel(const Spec& spec, const std::string& size, const Context& ctx, KernelCache& cache = process_cache(),
                                          std::optional<TuningRecord>* tuned = nullptr);

}  // namespace gpen
