// The CPU reference of a stencil spec, in double precision: every output at
// every interior point, evaluated from the lowered expressions (not from the
// CUDA templates), on all cores; and an output's periodic ghost images
// where its FieldDecl asks for them.
#pragma once

#include <vector>

#include "gpen/families/common/host_array.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

void reference_stencil(const Spec& spec, const std::vector<const HostArray*>& inputs,
                       const std::vector<double>& params, const std::vector<HostArray*>& outputs);

}  // namespace gpen
