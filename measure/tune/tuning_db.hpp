// What tuning found, remembered on disk next to the kernel cache
// (<cache dir>/tuning.json) so that `gpen run` and `gpen compile` use a
// tuned variant on the next run with no search. Keyed by everything that
// can change the answer: the spec's hash (its dtype included), the problem
// size class (each axis rounded up to a power of two), the GPU's name and
// compute capability, and the driver and NVRTC versions.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpen/families/common/tuning_key.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

struct TuningRecord {
  std::string spec, size, strategy, date;
  TunableChoice choice;
  double ms = 0, teff_gbs = 0, copy_gbs = 0;
  double pairs_per_s = 0;  // pairwise specs (teff_gbs and copy_gbs 0)
  int evaluations = 0;
};

class TuningDb {
 public:
  static std::string default_path();  // KernelCache::default_dir() + "/tuning.json"
  explicit TuningDb(std::string path = default_path());
  const std::string& path() const { return path_; }
  // The record, if any, whose choice is still valid for `spec` (a spec
  // edited since may have dropped a value; then the record is ignored).
  std::optional<TuningRecord> find(const TuningKey& key, const Spec& spec) const;
  // Read-modify-write under an exclusive lock on path().lock (processes
  // tuning at once keep each other's records), through a new temporary file
  // (created exclusively, never through a link) and a rename. Something at
  // path() that cannot be read as a database (a link, a FIFO, damaged
  // JSON) is moved aside to path().damaged with a warning, its target
  // untouched, and the database starts over. Throws where it cannot write.
  void store(const TuningKey& key, const TuningRecord& record) const;
  // Every record, by TuningKey::str(), as stored: choices are not checked
  // against any spec; records of the wrong shape are left out.
  std::vector<std::pair<std::string, TuningRecord>> list() const;
  // Removes the file (a link there is removed, never its target); returns
  // how many records it held. Throws where it cannot be removed.
  std::size_t clear() const;

 private:
  std::string path_;
};

}  // namespace gpen
