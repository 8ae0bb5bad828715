#include "halo.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "boundaries.hpp"

namespace gpen::sim {

namespace {

HaloBox slab(int dims, const std::array<long long, 3>& shape, int ghost, int axis, long long from) {
  HaloBox b;
  for (int ax = 0; ax < dims; ++ax) {
    b.begin[ax] = -ghost;
    b.end[ax] = shape[ax] + ghost;
  }
  b.begin[axis] = from;
  b.end[axis] = from + ghost;
  return b;
}

template <class F>
void for_each_point(const HaloBox& box, F&& f) {
  for (long long k = box.begin[2]; k < box.end[2]; ++k)
    for (long long j = box.begin[1]; j < box.end[1]; ++j)
      for (long long i = box.begin[0]; i < box.end[0]; ++i) f(i, j, k);
}

}  // namespace

HaloBox send_box(int dims, const std::array<long long, 3>& shape, int ghost, int axis, int side) {
  return slab(dims, shape, ghost, axis, side == 0 ? 0 : shape[axis] - ghost);
}

HaloBox receive_box(int dims, const std::array<long long, 3>& shape, int ghost, int axis, int side) {
  return slab(dims, shape, ghost, axis, side == 0 ? -ghost : shape[axis]);
}

std::vector<double> pack(const HostArray& a, const HaloBox& box) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(box.points()));
  for_each_point(box, [&](long long i, long long j, long long k) { out.push_back(a.at(i, j, k)); });
  return out;
}

HostArray subdomain_window(const HostArray& global, const Subdomain& s) {
  HostArray w(global.dims, s.extent, global.ghost);
  HaloBox all;
  for (int ax = 0; ax < global.dims; ++ax) {
    all.begin[ax] = -global.ghost;
    all.end[ax] = s.extent[ax] + global.ghost;
  }
  for_each_point(all, [&](long long i, long long j, long long k) { w.at(i, j, k) = global.at(s.offset[0] + i, s.offset[1] + j, s.offset[2] + k); });
  return w;
}

void unpack(HostArray& a, const HaloBox& box, const std::vector<double>& values) {
  std::size_t n = 0;
  for_each_point(box, [&](long long i, long long j, long long k) { a.at(i, j, k) = values.at(n++); });
}

void exchange_halos(const ProgramField& f, const Decomposition& d, std::vector<HostArray>& parts) {
  const int g = f.ghost;
  if (static_cast<int>(parts.size()) != d.count()) throw std::invalid_argument(fmt::format("exchange_halos: {} arrays for {} subdomains", parts.size(), d.count()));
  for (int r = 0; r < d.count(); ++r)
    if (parts[static_cast<std::size_t>(r)].ghost != g || parts[static_cast<std::size_t>(r)].shape != d.subdomain(r).extent)
      throw std::invalid_argument(fmt::format("exchange_halos: rank {}'s array is not its subdomain's with field '{}''s ghost width {}", r, f.name, g));
  for (int ax = 0; ax < d.dims(); ++ax) {
    // The global faces first: a mirrored condition may set the boundary
    // point, which no neighbour's slab holds (decompose() keeps such
    // subdomains at least ghost + 1 thick).
    for (int r = 0; r < d.count(); ++r) {
      std::array<bool, 2> edge{};
      for (int side = 0; side < 2; ++side) {
        const bool periodic = f.boundary[ax][side].kind == BoundaryKind::Periodic;
        edge[side] = !periodic && d.neighbour(r, ax, side, false) < 0;
      }
      if (edge[0] || edge[1]) apply_boundary_faces(f, parts[static_cast<std::size_t>(r)], ax, edge);
    }
    // Then every slab, all packed before any lands (as a transport would);
    // without ghosts there are none (the faces above may still set their
    // boundary points).
    if (g == 0) continue;
    std::vector<std::vector<double>> sent(static_cast<std::size_t>(2 * d.count()));
    for (int r = 0; r < d.count(); ++r)
      for (int side = 0; side < 2; ++side) {
        const HostArray& a = parts[static_cast<std::size_t>(r)];
        sent[static_cast<std::size_t>(2 * r + side)] = pack(a, send_box(a.dims, a.shape, g, ax, side));
      }
    for (int r = 0; r < d.count(); ++r)
      for (int side = 0; side < 2; ++side) {
        const int from = d.neighbour(r, ax, side, f.boundary[ax][side].kind == BoundaryKind::Periodic);
        if (from < 0) continue;
        HostArray& a = parts[static_cast<std::size_t>(r)];
        // My lower ghosts are the lower neighbour's upper slab, and back.
        unpack(a, receive_box(a.dims, a.shape, g, ax, side), sent[static_cast<std::size_t>(2 * from + (1 - side))]);
      }
  }
}

}  // namespace gpen::sim
