// The CPU reference of a pairwise spec: its outputs at chosen targets in
// double precision, from the lowered expressions (not from the templates),
// with the magnitude each result's rounding errors scale with, and the
// comparison of a GPU result with it.
#pragma once

#include <vector>

#include "gpen/families/common/host_array.hpp"
#include "gpen/families/pairwise/pairwise_kernel.hpp"

namespace gpen {

struct PairReference {
  std::vector<long long> targets;          // the targets computed
  std::vector<std::vector<double>> value;  // [output][k]
  // [output][k]: sum over the terms (sum) or the chosen term's (min, max)
  // magnitude, IrTape's running error bound of the expression.
  std::vector<std::vector<double>> scale;
  std::vector<long long> terms;            // [k]: pairs reduced into target k
  int operations = 0;                      // in one evaluation of the outputs
  double approximation_ulps = 0;           // "math": "fast": the ulps its approximations may add
};

// inputs[slot]: input slot's values (N, M or the grid's cells, x fastest).
PairReference reference_pairwise(const Spec& spec, const std::vector<std::vector<double>>& inputs, const PairSizes& sizes,
                                 const std::vector<double>& params, std::vector<long long> targets,
                                 const PairGroupLists* groups = nullptr);

// Up to `count` targets of n spread over all of them, the first and last included.
std::vector<long long> sample_targets(long long n, long long count, std::uint64_t seed);

// got[slot] against the reference at its targets, and every other target
// checked for NaN (the poison). An error passes when it is within
// u (operations + approximation_ulps + 4 sqrt(terms)) scale, u the dtype's
// unit roundoff: each operation of a term rounding once, the approximations
// of "math": "fast" their bounds (specs/README.md), plus the rounding of
// summing the terms one after another (a random walk: sqrt(terms), with
// room for 4 sigma).
Comparison compare_pairwise(const Spec& spec, const std::vector<std::vector<double>>& got, const PairReference& want);

// Every target of got[slot] against another variant's output that passed
// compare_pairwise (the tuner's default variant): an error passes when it is
// within r (|want| + mean |want|), r = 1e-2 in float32 and 1e-8 in float64.
// Variants that sum the same terms in another order (block on block's
// partial sums) differ by about u sqrt(terms) of the terms' magnitudes, far
// below r; a target computed from another target's values, or not written
// (NaN), differs by the order of the result. Errors that shift every target
// a little (a source tile left out) are compare_pairwise's to find.
Comparison compare_pairwise_outputs(Dtype dtype, const std::vector<std::vector<double>>& got, const std::vector<std::vector<double>>& want);

}  // namespace gpen
