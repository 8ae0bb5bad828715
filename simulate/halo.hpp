// Ghost zones between subdomains (issue 30): what a rank sends across a
// face and where it lands, packed into contiguous buffers (x fastest), and
// the host model of the whole exchange, which the GPU's pack and unpack
// kernels and every transport are checked against. Axes in order, x
// first, each face's slab over the whole padded extent of the other axes,
// so that edges and corners follow from the order, as apply_boundaries
// fills them: the subdomains' padded arrays then hold bitwise what the
// undecomposed array holds there. (The slabs cover the padded extent of the
// axes after `axis` too, not their interior alone: a face of kind "none"
// leaves its ghosts as they were, and they match bitwise too.)
#pragma once

#include <array>
#include <vector>

#include "decomposition.hpp"
#include "gpen/families/common/host_array.hpp"
#include "program.hpp"

namespace gpen::sim {

// A box of points in a padded array's interior coordinates (-ghost ..
// shape + ghost), begin inclusive, end exclusive.
struct HaloBox {
  std::array<long long, 3> begin{0, 0, 0}, end{1, 1, 1};
  long long points() const { return (end[0] - begin[0]) * (end[1] - begin[1]) * (end[2] - begin[2]); }
};

// The interior slab of `ghost` points at face (axis, side) that a rank
// sends to its neighbour there, and the ghost slab it fills from that
// neighbour: over the padded extent of the other axes the array has.
HaloBox send_box(int dims, const std::array<long long, 3>& shape, int ghost, int axis, int side);
HaloBox receive_box(int dims, const std::array<long long, 3>& shape, int ghost, int axis, int side);

std::vector<double> pack(const HostArray& a, const HaloBox& box);
// Subdomain s's padded array cut out of the global padded array (the
// global array's ghost width): its interior and what surrounds it there.
HostArray subdomain_window(const HostArray& global, const Subdomain& s);
void unpack(HostArray& a, const HaloBox& box, const std::vector<double>& values);

// Field f's ghost zones on every subdomain of `d` (parts[r] is rank r's
// padded array, its interior as it is): per axis, the global faces by f's
// conditions, then every face with a neighbour (periodic ones wrapped,
// with one rank along the axis to itself) from that neighbour's slab.
void exchange_halos(const ProgramField& f, const Decomposition& d, std::vector<HostArray>& parts);

}  // namespace gpen::sim
