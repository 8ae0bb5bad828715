// What a program's run asks of the host's and the GPU's memory, checked
// before anything is allocated: a size too large ends with the size and the
// bytes, not with std::bad_alloc or a failed cuMemAlloc.
#pragma once

#include "gpen/families/common/workload.hpp"
#include "gpen/simulate/program.hpp"

namespace gpen::sim {

// On the CPU reference (gpu false): every array in double on the host. On
// the GPU: the arrays in the program's dtype on the device, and on the host
// a field's initial values in double and its padded copy in the dtype
// (the fields go up one at a time; Python's run, which hands every field
// back, holds them all at its end).
// `callers_fields`: the GPU loop keeps the fields in the caller's arrays
// (GpuOptions::fields), which it does not allocate.
MemoryNeed program_memory(const Program& p, bool gpu, bool callers_fields = false);

}  // namespace gpen::sim
