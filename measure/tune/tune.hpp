// JIT-tuning of a spec on the running GPU: search the space of its
// tunables (tune_search.hpp), compile candidates in parallel threads while
// the GPU times others, verify every variant against the default variant's
// output (itself verified against the CPU reference) before its time
// counts, and remember the best in the tuning database.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpen/families/common/host_array.hpp"
#include "gpen/families/common/problem.hpp"
#include "gpen/measure/tune/tune_search.hpp"
#include "gpen/measure/tune/tuning_db.hpp"

namespace gpen {

struct TunedVariant {
  TunableChoice choice;
  std::string variant;         // "strategy=march block_x=..."
  std::optional<double> ms;    // median; empty when it failed
  double rate = 0;             // in its problem's RateScale unit (TuneResult::scale)
  double teff_gbs = 0;         // the same rate under its name, as logs and the database keep it
  double pairs_per_s = 0;
  int registers = -1;
  int spill_bytes = -1;        // ptxas' spill stores (-1: unknown, e.g. a cache entry of an old gpen)
  bool refused = false;        // not timed: it spills (TuneOptions::allow_spills); `reason` says how much
  std::string reason;          // why it failed or was refused: compile error, launch error, wrong result, spills
  std::optional<Comparison> check;
  bool resumed = false;        // measured by an earlier search (TuneOptions::resume)
};

// Where a search stands, after each evaluation.
struct TuneProgress {
  std::size_t done = 0, budget = 0, failed = 0, refused = 0;  // refused: not timed, they spill
  const TunedVariant* best = nullptr;  // the fastest verified so far
  double elapsed_s = 0;                // since TuneOptions::started
  const RateScale* scale = nullptr;    // TuneResult::scale
};

struct TuneOptions {
  SearchStrategy strategy = SearchStrategy::Exhaustive;
  std::size_t budget = 0;        // evaluations (see SearchOptions)
  // Seconds from `started` (0: none), setup included: the copy measurement,
  // the workload and the CPU check of the default come first and count.
  double time_limit_s = 0;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  const std::atomic<bool>* interrupt = nullptr;  // set (Ctrl-C): stop as at the deadline
  // At a stop, leave NVRTC compiles in flight running instead of waiting
  // for them; a caller that sets this ends the process with std::_Exit
  // when TuneResult::abandoned_compiles is not 0.
  bool abandon_compiles = false;
  std::uint64_t seed = 1;
  std::vector<std::string> fixed;  // "name=value": tunables not searched
  int warmup = 2, repeat = 10;
  unsigned compile_threads = 0;    // 0: the hardware's
  // Time variants that spill registers to local memory too. By default
  // they are refused once compiled, before any launch: a spill of a few
  // hundred bytes costs these kernels several times their time, and the
  // compile says it exactly (the plan's estimate before it is a lower bound).
  bool allow_spills = false;
  bool save = true;
  std::string db_path = TuningDb::default_path();
  // Variants measured before (a --resume log): not measured again, counted
  // in the budget. Those that are no longer points of the space are skipped.
  std::vector<TunedVariant> resume;
  std::function<void(const std::string&)> on_phase;  // "measuring the default variant and checking it ...", ...
  std::function<void(const TunedVariant&, const TuneProgress&)> on_variant;
};

struct TuneResult {
  std::vector<TunedVariant> evaluated;  // in search order, resumed ones first
  TunedVariant reference;               // the default variant, checked on the CPU
  std::optional<std::size_t> best;      // index into evaluated
  RateScale scale;               // what rates are and the bound they are quoted against
  std::string reference_check;   // what every variant was checked against (Problem::reference_check)
  std::size_t space_total = 0, space_valid = 0;
  std::vector<std::pair<std::string, std::size_t>> rejected;
  std::size_t budget = 0;               // evaluations the search meant to make
  SearchStop stop = SearchStop::Done;   // why it ended
  std::size_t resumed = 0;              // of `evaluated`, taken from TuneOptions::resume
  std::size_t abandoned_compiles = 0;   // left running at the stop (abandon_compiles)
  double setup_s = 0, total_s = 0;      // from TuneOptions::started
  TuningKey key;
  bool saved = false;
  std::string save_error;  // why the best was not saved where saving was asked for
};

// Tunes the spec of `problem` on it (any kind). The problem's setup (the
// copy, the inputs) is the caller's and counts against TuneOptions::started.
TuneResult tune(const Context& ctx, Problem& problem, const TuneOptions& options = {});

// The same on a problem made here, of the size `gpen tune --size` takes
// for the spec's kind ("256x256x256", pairwise "4099" or "20x9x7"; throws
// UsageError for another). Pairwise specs: the objective is the time of a
// launch (pairs per second reported beside it); every variant is checked
// at a sample of targets against the CPU reference and, at every target,
// against the default's output. Their inputs are not rotated between timed
// launches: the kernels are bound by arithmetic (pair_cost.hpp), each source is
// read once per tile of targets, so the L2 has little to flatter.
TuneResult tune(const Context& ctx, const Spec& spec, const std::string& size, const TuneOptions& options = {});

}  // namespace gpen
