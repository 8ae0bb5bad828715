#include "decomposition.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

#include "gpen/generator/error.hpp"
#include "program.hpp"

namespace gpen::sim {

namespace {
const char* const kAxis = "xyz";

// " (file /pointer, line L, column C)": where the program declares what a refusal names.
std::string declared_at(const Program& p, const std::string& pointer) {
  if (!p.source || pointer.empty()) return "";
  const Location l = p.source->locate(pointer);
  return fmt::format(" ({} {}, line {}, column {})", p.source->name(), pointer, l.line, l.column);
}
}

RankGrid parse_ranks(const std::string& text, int dims) {
  const std::string expected = fmt::format("expected PX{} (positive integers, as many as the program's {} axes or fewer), e.g. {}",
                                           dims >= 2 ? dims >= 3 ? "[xPY[xPZ]]" : "[xPY]" : "", dims,
                                           dims >= 3 ? "2x2x1" : dims == 2 ? "2x2" : "4");
  RankGrid g;
  std::size_t at = 0;
  int axis = 0;
  while (true) {
    std::size_t end = at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == at || end - at > 6) throw UsageError(fmt::format("--ranks {}: {}", text, expected));
    const int n = std::stoi(text.substr(at, end - at));
    if (axis >= 3 || (axis >= dims && n != 1)) throw UsageError(fmt::format("--ranks {}: more axes than the program's {}; {}", text, dims, expected));
    if (n < 1) throw UsageError(fmt::format("--ranks {}: {} ranks along {}; {}", text, n, kAxis[axis], expected));
    if (axis < 3) g.ranks[static_cast<std::size_t>(axis)] = n;
    ++axis;
    if (end == text.size()) break;
    if (text[end] != 'x') throw UsageError(fmt::format("--ranks {}: '{}' at character {}; {}", text, text[end], end + 1, expected));
    at = end + 1;
  }
  if (static_cast<long long>(g.ranks[0]) * g.ranks[1] * g.ranks[2] > 65536)
    throw UsageError(fmt::format("--ranks {}: {} ranks; at most 65536", text, static_cast<long long>(g.ranks[0]) * g.ranks[1] * g.ranks[2]));
  return g;
}

Decomposition::Decomposition(std::array<long long, 3> size, int dims, RankGrid grid, long long least)
    : size_(size), dims_(dims), grid_(grid) {
  for (int ax = 0; ax < 3; ++ax) {
    const long long n = size_[ax], p = grid_.ranks[ax];
    if (p > 1 && ax >= dims_) throw UsageError(fmt::format("--ranks: {} ranks along {}, an axis the {}-D program does not have", p, kAxis[ax], dims_));
    if (p > 1 && n / p < least)
      throw UsageError(fmt::format("--ranks: {} points along {} over {} ranks leave subdomains of {} point{}; at least {} needed", n, kAxis[ax], p,
                                   n / p, n / p == 1 ? "" : "s", least));
  }
  parts_.resize(static_cast<std::size_t>(grid_.count()));
  for (int r = 0; r < grid_.count(); ++r) {
    Subdomain& s = parts_[static_cast<std::size_t>(r)];
    s.rank = r;
    s.coords = {r % grid_.ranks[0], r / grid_.ranks[0] % grid_.ranks[1], r / (grid_.ranks[0] * grid_.ranks[1])};
    for (int ax = 0; ax < 3; ++ax) {
      const long long n = size_[ax], p = grid_.ranks[ax], c = s.coords[ax], base = n / p, extra = n % p;
      s.extent[ax] = base + (c < extra ? 1 : 0);
      s.offset[ax] = c * base + std::min(c, extra);
    }
  }
}

int Decomposition::rank_at(std::array<int, 3> c) const {
  return c[0] + grid_.ranks[0] * (c[1] + grid_.ranks[1] * c[2]);
}

int Decomposition::neighbour(int rank, int axis, int side, bool periodic) const {
  std::array<int, 3> c = subdomain(rank).coords;
  const int p = grid_.ranks[static_cast<std::size_t>(axis)];
  int& at = c[static_cast<std::size_t>(axis)];
  at += side == 0 ? -1 : 1;
  if (at < 0 || at >= p) {
    if (!periodic) return -1;
    at = (at + p) % p;
  }
  return rank_at(c);
}

std::vector<double> interior_part(const std::vector<double>& global, const std::array<long long, 3>& size, const Subdomain& s) {
  const long long points = size[0] * size[1] * size[2];
  if (static_cast<long long>(global.size()) != points)
    throw std::invalid_argument(fmt::format("{} values for a grid of {}x{}x{} = {} points", global.size(), size[0], size[1], size[2], points));
  std::vector<double> out(static_cast<std::size_t>(s.extent[0] * s.extent[1] * s.extent[2]));
  std::size_t t = 0;
  for_part_points(size, s, [&](long long g) { out[t++] = global.at(static_cast<std::size_t>(g)); });
  return out;
}

void place_interior_part(std::vector<double>& global, const std::array<long long, 3>& size, const Subdomain& s, const std::vector<double>& part) {
  std::size_t t = 0;
  for_part_points(size, s, [&](long long g) { global.at(static_cast<std::size_t>(g)) = part.at(t++); });
}

Decomposition decompose(const Program& program, RankGrid grid) {
  const Decomposition d(program.size, program.dims, grid);
  for (const RhsKernel& r : program.rhs)
    if (r.use.spec.kind == "sbp")
      for (int ax = 0; ax < program.dims; ++ax)
        if (grid.ranks[static_cast<std::size_t>(ax)] > 1)
          throw UsageError(fmt::format("--ranks: right-hand side '{}'{} is of kind \"sbp\", whose operators close the boundaries themselves: its "
                                       "axes cannot be split (ranks along {}: {}; give 1)",
                                       r.use.spec.name, declared_at(program, r.use.pointer), kAxis[ax], grid.ranks[static_cast<std::size_t>(ax)]));
  for (int ax = 0; ax < program.dims; ++ax) {
    const auto a = static_cast<std::size_t>(ax);
    const int p = grid.ranks[a];
    const long long n = program.size[a], thinnest = n / p;
    for (const ProgramField& f : program.fields) {
      const bool periodic = f.boundary[a][0].kind == BoundaryKind::Periodic, upper_periodic = f.boundary[a][1].kind == BoundaryKind::Periodic;
      if (periodic != upper_periodic)
        throw UsageError(fmt::format("--ranks: field '{}'{} is periodic at one {} face only; a split run needs both or neither", f.name,
                                     declared_at(program, f.pointer), kAxis[ax]));
      // A periodic axis exchanges slabs even with one rank (with itself):
      // each slab is ghost-wide interior, where the undecomposed fill wraps.
      if ((p > 1 || periodic) && thinnest < f.ghost)
        throw UsageError(fmt::format("--ranks: {} points along {}{} leave {} of {} point{}; field '{}'{} needs at least its ghost width, {}, in each",
                                     n, kAxis[ax], p > 1 ? fmt::format(" over {} ranks", p) : std::string(" (periodic)"), p > 1 ? "subdomains" : "a subdomain",
                                     thinnest, thinnest == 1 ? "" : "s", f.name, declared_at(program, f.pointer), f.ghost));
      if (p == 1) continue;
      for (int side = 0; side < 2; ++side) {
        const Boundary& b = f.boundary[a][static_cast<std::size_t>(side)];
        const bool mirrors = b.kind == BoundaryKind::Symmetric || b.kind == BoundaryKind::Antisymmetric || b.kind == BoundaryKind::Value;
        std::array<int, 3> edge{0, 0, 0};
        edge[a] = side == 0 ? 0 : p - 1;
        const long long at_face = d.subdomain(d.rank_at(edge)).extent[a];
        if (mirrors && f.ghost > 0 && at_face < f.ghost + 1)
          throw UsageError(fmt::format("--ranks: the subdomain at the {} {} face holds {} point{}; field '{}''s {} condition there{} reads {} points "
                                       "(its ghost width and the boundary point)",
                                       side == 0 ? "lower" : "upper", kAxis[ax], at_face, at_face == 1 ? "" : "s", f.name, to_string(b.kind),
                                       declared_at(program, b.pointer.empty() ? f.pointer : b.pointer), f.ghost + 1));
      }
    }
  }
  return d;
}

}  // namespace gpen::sim
