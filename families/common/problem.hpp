// A problem instance of a spec of any kind on the GPU, and a variant
// measured on it: the one path of `gpen run`, `bench` and `survey`. The
// kind decides what a launch's work is and what bounds its rate: grid
// kinds (stencil, scan, sbp) move bytes and are quoted against a copy
// measured in the same process; pairwise specs evaluate pairs and are
// quoted against the bound of the unit that limits their formula.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/host_array.hpp"
#include "gpen/families/common/roofline.hpp"
#include "gpen/families/common/tuning_key.hpp"

namespace gpen {

struct Measurement : VariantFacts {
  double median_ms = 0, min_ms = 0;
  double work = 0;   // one launch's, in the problem's unit (RateScale::work)
  double rate = 0;   // work a second at the median time
  std::optional<Comparison> check;
  std::optional<Roofline> roofline;  // stencils: the memory and FMA ceilings (roofline.hpp)
  // What a failed check means: the CPU reference disagrees, or (Check::Reference) the default's output does.
  std::string mismatch = "wrong result";
};

// What a rate measures: bytes moved a second against a copy (grid kinds),
// or pairs evaluated a second against the bound of the unit that limits the
// formula (pairwise: pair_cost.hpp).
enum class RateKind { Bandwidth, Pairs };

// The unit of a problem's work and the bound its rate is quoted against,
// with the names `--json` gives them (docs/json.md).
struct RateScale {
  RateKind kind = RateKind::Bandwidth;
  std::string work;        // "bytes", "pairs"
  std::string rate;        // "teff_gbs", "pairs_per_s"
  double per_unit = 1;     // work a second in one unit of `rate` (1e9: GB/s)
  std::string bound;       // "copy_gbs", "unit_bound_per_s"
  std::string percent;     // "pct_copy", "pct_unit"
  double bound_value = 0;  // in `rate`'s unit
  std::string bound_text;  // "copy (2993.2 GB/s, same run)"
  std::string unit;        // "GB/s", "pairs/s": `rate`'s unit in tables
  std::string percent_column;  // "%copy", "%unit"
  // Pairwise: the unit whose bound it is ("fp32", "fp64", "mufu" or
  // "issue"), the rsqrt bound (SMs x 16 x clock) a run's JSON keeps with
  // pct_rsqrt (gpen.run/1 before the unit bound), and the model's
  // instructions a pair (pair_fp32, ...; docs/json.md).
  std::string bound_unit;
  double rsqrt_bound = 0;
  std::vector<std::pair<std::string, double>> pair_counts;
  double in_unit(double work_per_s) const { return work_per_s / per_unit; }
  double percent_of(double work_per_s) const { return bound_value > 0 ? 100 * in_unit(work_per_s) / bound_value : 0; }
  double percent_of_unit(double rate) const { return bound_value > 0 ? 100 * rate / bound_value : 0; }
  // A rate in `rate`'s unit for a table: "2712.3", "3.214e+10".
  std::string number(double rate) const;
  // The bound in a few words: "copy 2993.2 GB/s", "mufu bound 3.212e+12/s".
  std::string bound_short() const;
  // A rate and how near the bound it is: "90.6% of copy", "3.21e+10 pairs/s (45.0% of the mufu bound)".
  std::string progress(double rate) const;
};

struct ProblemOptions {
  ParamValues params;
  bool periodic = false;               // grid kinds: input ghosts filled periodically on the GPU
  std::optional<double> copy_gbs;      // grid kinds: the copy measured already in this process (else measured here)
};

// A Problem keeps references to the Spec and the Context it was made from:
// both must outlive it.
class Problem {
 public:
  virtual ~Problem() = default;
  virtual const Spec& spec() const = 0;
  // The size as given (`--size`).
  virtual const std::string& size() const = 0;
  // The arrays' extents of a grid problem (x, y, z; 1 past its dims), which
  // make a stencil's launch; none for pairwise problems.
  virtual std::optional<std::array<long long, 3>> grid_shape() const { return std::nullopt; }
  virtual TuningKey tuning_key(const DeviceInfo& device) const = 0;
  virtual const RateScale& scale() const = 0;
  // What a variant's output is compared with after its first launch:
  // nothing, the CPU reference in double precision, or the output kept by
  // keep_as_reference() (pairwise: the CPU reference at a sample of
  // targets too).
  enum class Check { None, Cpu, Reference };
  // Compiles through the cache, launches once on NaN-poisoned outputs,
  // checks, then times `repeat` launches after `warmup` (-1: the kind's
  // usual few).
  // `variant` is plan_unit(spec(), choice), planned once by the caller.
  virtual Measurement measure(const Variant& variant, int repeat, Check check, int warmup = -1) = 0;
  Measurement measure(const TunableChoice& choice, int repeat, Check check, int warmup = -1) {
    return measure(plan_unit(spec(), choice), repeat, check, warmup);
  }
  Measurement measure(const TunableChoice& choice, int repeat, bool verify) { return measure(choice, repeat, verify ? Check::Cpu : Check::None); }
  // Keeps the outputs of the last measured variant as the reference of Check::Reference.
  virtual void keep_as_reference() = 0;
  // For `gpen run`: "T_eff 2712.3 GB/s = 90.6% of copy (2993.2 GB/s, same run)".
  virtual std::string rate_text(const Measurement& m) const = 0;
  // For `gpen bench`'s table: the rate's columns after the time.
  virtual std::string rate_columns(const Measurement& m) const = 0;
  // What Check::Reference compares a variant with, in words (for `gpen tune`).
  virtual std::string reference_check() const = 0;
};

// The size as `gpen run --size` reads it for the spec's kind: a grid
// "NX[xNY[xNZ]]", pairwise "N", "NxM" or a grid. Throws UsageError.
void check_problem_size(const Spec& spec, const std::string& size);
// The tuning database's key of the spec at that size on that device.
TuningKey problem_tuning_key(const Spec& spec, const std::string& size, const DeviceInfo& device);
// A small size of the spec's kind for a quick check (gpen survey): the
// grid's first dims axes, or a few particles or cells.
std::string small_problem_size(const Spec& spec, const std::array<long long, 3>& grid);
// Inputs filled, outputs allocated; throws std::runtime_error naming the
// bytes when the problem does not fit.
std::unique_ptr<Problem> make_problem(const Context& ctx, const Spec& spec, const std::string& size, const ProblemOptions& options = {});

// The two kinds of problem the families make (runtime_family.hpp): a grid
// (a Workload: bytes against a copy) and pairs (a PairWorkload).
std::unique_ptr<Problem> make_grid_problem(const Context& ctx, const Spec& spec, const std::string& size, const ProblemOptions& options);
std::unique_ptr<Problem> make_pair_problem(const Context& ctx, const Spec& spec, const std::string& size, const ProblemOptions& options);

}  // namespace gpen
