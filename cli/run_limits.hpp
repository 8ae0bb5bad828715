// How long gpen simulate and gpen tune may be asked to run: the rules of
// --steps, --until, --time and --budget, which the Python module's
// keywords (steps=, until=, time=, budget=) follow too.
#pragma once

#include <cmath>

namespace gpen::cli {

// --steps: 0 to 2^40, a bound no run reaches and far from any overflow.
constexpr long long kMaxSteps = 1LL << 40;

// --until: a simulated time. NaN fails both comparisons.
constexpr const char* kUntilExpected = "a finite time >= 0";
inline bool valid_until(double t) { return std::isfinite(t) && t >= 0; }

// --time: seconds of a whole search, setup included; 0 is no limit.
// NaN fails both comparisons (CLI::Range lets it through).
constexpr const char* kTuneSecondsExpected = "seconds from 0 (no limit) to 10000000";
inline bool valid_tune_seconds(double s) { return s >= 0 && s <= 1e7; }

// --budget: evaluations at most; 0 is the strategy's own.
constexpr long long kMaxBudget = 1LL << 40;

}  // namespace gpen::cli
