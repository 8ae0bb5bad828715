// The CPU reference of an SBP spec in double precision, from the spec's
// rows (SbpDecl), not from the CUDA templates: for every axis of the
// operator and every line along it, the matrix-free product D u.
#pragma once

#include "gpen/families/common/host_array.hpp"
#include "gpen/families/common/kernel.hpp"

namespace gpen {

void reference_sbp(const Spec& spec, const HostArray& in, const ParamValues& params, HostArray& out);

}  // namespace gpen
