// The CPU reference of a scan spec, in double precision, one value after
// another along each line of the axis; and the comparison of a GPU result
// with it, whose tolerance grows with the number of values combined.
#pragma once

#include "gpen/families/common/host_array.hpp"

namespace gpen {

// want = the scan of `in`; scale = along each line, the running maximum of
// the finite |in| and |want| so far: the magnitude that rounding errors are
// relative to (an infinite input rounds nothing).
void reference_scan(const Spec& spec, const HostArray& in, HostArray& want, HostArray& scale);

// Pass when every value is within kScanErrorBound * eps(dtype) * sqrt(n) *
// scale of the reference, n being how many inputs it combines (rounding
// errors of n combinations in any order grow like sqrt(n) on random data);
// exact matches (infinite identities included) always pass. Also reports
// rel L2 and the worst point.
constexpr double kScanErrorBound = 4.0;
Comparison compare_scan(const Spec& spec, const HostArray& got, const HostArray& want, const HostArray& scale);

}  // namespace gpen
