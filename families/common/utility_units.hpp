// The units every family's runtime shares, specialised on the dtype alone:
// the periodic ghost fill and the comparison of two arrays on the GPU.
#pragma once

#include "gpen/generator/codegen.hpp"

namespace gpen {

// The periodic ghost-fill kernel for arrays of `dtype` (kernel "gpen_periodic_fill_<dtype>").
Variant generate_periodic_fill(Dtype dtype);

// The comparison of two padded arrays on the GPU (kernel "gpen_compare_<dtype>").
Variant generate_compare(Dtype dtype);

}  // namespace gpen
