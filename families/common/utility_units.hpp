// The units every family's runtime shares, specialised on the dtype alone:
// the periodic ghost fill, the comparison of two arrays on the GPU, and a
// program's time loop.
#pragma once

#include "gpen/generator/codegen.hpp"

namespace gpen {

// The periodic ghost-fill kernel for arrays of `dtype` (kernel "gpen_periodic_fill_<dtype>").
Variant generate_periodic_fill(Dtype dtype);

// The comparison of two padded arrays on the GPU (kernel "gpen_compare_<dtype>").
Variant generate_compare(Dtype dtype);
// A program's time loop on the GPU (simulate/): boundary conditions,
// rk4's updates, the search for non-finite values (kernels
// "gpen_time_loop_<dtype>_boundary_axis", "..._update_rk4",
// "..._save", "..._copy_padded", "..._non_finite", "..._halo_pack",
// "..._halo_unpack"; kernel_name is the first).
Variant generate_time_loop(Dtype dtype);

}  // namespace gpen
