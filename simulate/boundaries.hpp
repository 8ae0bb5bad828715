// The boundary conditions of a program on the CPU, in double precision: the
// host model the GPU's ghost fills are checked against, and the CPU
// reference run's own.
#pragma once

#include "gpen/families/common/host_array.hpp"
#include "gpen/simulate/program.hpp"

namespace gpen::sim {

// Fills the ghost zones of `a` (the program's field `f`) face by face, x
// first, then y, then z, each face over the whole padded extent of the
// other axes: edges and corners follow from the order. Antisymmetric and
// value faces also set their boundary points (program.hpp says how).
void apply_boundaries(const ProgramField& f, HostArray& a);

}  // namespace gpen::sim
