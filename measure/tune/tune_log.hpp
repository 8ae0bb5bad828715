// The log of a search, one JSON object a line, written as each variant's
// measurement finishes (`gpen tune --log FILE`) and read back to go on
// where a search stopped (`--resume FILE`). The first line says what was
// searched; a resumed search must be of the same spec (hash, dtype
// included), size and GPU, since times of another are no evidence:
//
//   {"schema":"gpen.tune-log/1","spec":"lap","spec_hash":"...","size":"256x256x256","gpu":"NVIDIA H100 80GB HBM3","arch":"sm_90"}
//   {"variant":"strategy=march block_x=32 ...","ms":0.162,"teff_gbs":2031.4,"pairs_per_s":0,"registers":40,"spill_bytes":0,"refused":false,"reason":""}
//   {"variant":"strategy=tile ...","ms":null,"teff_gbs":0,"pairs_per_s":0,"registers":-1,"spill_bytes":-1,"refused":false,"reason":"does not compile: ..."}
//
// "ms" is null for a variant that failed, "reason" says why. A last line
// cut short (the process killed mid-write) is skipped with a warning.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "gpen/measure/tune/tune.hpp"

namespace gpen {

constexpr const char* kTuneLogSchema = "gpen.tune-log/1";
constexpr std::size_t kMaxTuneLogBytes = std::size_t{64} << 20;

struct TuneLogHeader {
  std::string spec, spec_hash, size, gpu, arch;
};

// A log that cannot be resumed: names the file, the line and why.
class TuneLogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string tune_log_line(const TuneLogHeader& h);
std::string tune_log_line(const TunedVariant& v);

struct TuneLog {
  TuneLogHeader header;
  std::vector<TunedVariant> variants;  // choice filled from the spec
  std::vector<std::string> warnings;   // lines skipped, and why
};

// Reads `path` (a regular file, bounded) for a search of `spec` described
// by `expect`; throws TuneLogError when it is not a log, or of another
// spec, size or GPU. A variant whose tunables the spec no longer allows is
// skipped with a warning.
TuneLog read_tune_log(const std::string& path, const Spec& spec, const TuneLogHeader& expect);

}  // namespace gpen
