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

// The faces of axis `ax` that `faces` (lower, upper) names, over the whole
// padded extent of the other axes: apply_boundaries' step for one axis.
void apply_boundary_faces(const ProgramField& f, HostArray& a, int ax, std::array<bool, 2> faces);

}  // namespace gpen::sim
