// The CPU reference of a reduction spec, in double precision: every value
// from the lowered expressions (not from the CUDA templates), combined by
// each result's operation; and the comparison of a GPU result with it,
// whose tolerance grows with the number of values combined.
#pragma once

#include <vector>

#include "gpen/families/common/host_array.hpp"

namespace gpen {

// want[r] = result r over the interior `shape` of `inputs` (each want[r]
// shaped as field_shape says); scale[r] = sqrt(n) times the largest finite
// magnitude met on the way (a value, what its rounding scales with, or a
// partial combination), n being how many values it combines (1 for an
// idempotent operation, min and max: they round nothing but one value).
void reference_reduce(const Spec& spec, const std::vector<const HostArray*>& inputs, const std::vector<double>& params,
                      const std::array<long long, 3>& shape, std::vector<HostArray>& want, std::vector<HostArray>& scale);

// Pass when every value is within kReduceErrorBound * eps(the inputs' dtype)
// * scale of the reference (rounding errors of n values computed and
// combined in any order grow like sqrt(n) on random data, as a scan's;
// kScanErrorBound argues the same); exact matches always pass; a NaN (an
// unwritten result) or an infinity the reference lacks fails.
constexpr double kReduceErrorBound = 4.0;
Comparison compare_reduce(const Spec& spec, const HostArray& got, const HostArray& want, const HostArray& scale);

}  // namespace gpen
