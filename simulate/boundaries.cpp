#include "boundaries.hpp"

namespace gpen::sim {
namespace {

// Index along axis `ax` (interior coordinates, -g .. n+g-1) of the point
// whose other two coordinates are (u, v) in the padded array's order.
struct Line {
  HostArray& a;
  int ax;
  long long u, v;  // the other axes' coordinates, interior-based
  double& at(long long c) const {
    if (ax == 0) return a.at(c, u, v);
    if (ax == 1) return a.at(u, c, v);
    return a.at(u, v, c);
  }
};

void fill_line(const Line& line, long long n, int g, const std::array<Boundary, 2>& b, std::array<bool, 2> faces) {
  for (int side = 0; side < 2; ++side) {
    if (!faces[side]) continue;
    // The boundary point, and the direction out of the domain.
    const long long bp = side == 0 ? 0 : n - 1;
    const long long out = side == 0 ? -1 : 1;
    const Boundary& f = b[side];
    switch (f.kind) {
      case BoundaryKind::Periodic:
        for (long long m = 1; m <= g; ++m) {
          const long long ghost = bp + out * m;
          line.at(ghost) = line.at(((ghost % n) + n) % n);
        }
        break;
      case BoundaryKind::Symmetric:
        for (long long m = 1; m <= g; ++m) line.at(bp + out * m) = line.at(bp - out * m);
        break;
      case BoundaryKind::Antisymmetric:
        line.at(bp) = 0;
        for (long long m = 1; m <= g; ++m) line.at(bp + out * m) = -line.at(bp - out * m);
        break;
      case BoundaryKind::None:
        break;
      case BoundaryKind::Value:
        line.at(bp) = f.value;
        for (long long m = 1; m <= g; ++m) line.at(bp + out * m) = 2 * f.value - line.at(bp - out * m);
        break;
    }
  }
}

}  // namespace

void apply_boundary_faces(const ProgramField& f, HostArray& a, int ax, std::array<bool, 2> faces) {
  const int g = a.ghost;
  const int ua = ax == 0 ? 1 : 0, va = ax == 2 ? 1 : 2;  // the other two axes, in order
  auto range = [&](int axis) -> std::pair<long long, long long> {
    if (axis >= a.dims) return {0, 1};
    return {-g, a.shape[axis] + g};
  };
  const auto [u0, u1] = range(ua);
  const auto [v0, v1] = range(va);
  for (long long v = v0; v < v1; ++v)
    for (long long u = u0; u < u1; ++u) fill_line(Line{a, ax, u, v}, a.shape[ax], g, f.boundary[ax], faces);
}

void apply_boundaries(const ProgramField& f, HostArray& a) {
  for (int ax = 0; ax < a.dims; ++ax) apply_boundary_faces(f, a, ax, {true, true});
}

}  // namespace gpen::sim
