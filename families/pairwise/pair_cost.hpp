// The instructions one pair of a pairwise spec costs, counted from its IR
// (common work once) with what each math function executes as gpen prints
// it under the spec's "math" policy, and the bound of the unit that limits
// it: the float32 or float64 pipe, the special-function unit (MUFU, for
// exp, rsqrt, ...) or the issue of instructions (pair_unit_bound,
// pairwise_run.hpp). Pairwise rates are quoted against it (gpen run, bench,
// tune); `gpen check` prints the counts.
#pragma once

#include <string>

#include "gpen/generator/spec.hpp"

namespace gpen {

// Thread instructions a pair: on the float32 (FMA) pipe, the float64 pipe,
// the special-function unit, and all others (integer, selects, branches),
// which take issue slots only. The tile loop's own loads and bookkeeping
// are left out: they are the schedule's, shared by a thread's targets.
struct PairCost {
  double fp32 = 0, fp64 = 0, mufu = 0, other = 0;
  double issued() const { return fp32 + fp64 + mufu + other; }
};
PairCost pair_cost(const Spec& spec);

}  // namespace gpen
