// A program's global grid split into subdomains, one a rank (issue 30):
// a grid of PX x PY x PZ ranks, rank r at coordinates (r % PX, r / PX % PY,
// r / (PX PY)). An axis of n points over p ranks gives the first n % p
// ranks n / p + 1 points and the others n / p (uneven splits allowed).
// A subdomain keeps the program's ghost width; its ghost zones come from
// its neighbours' interiors, or at the global edge from the boundary
// conditions (halo.hpp).
#pragma once

#include <array>
#include <string>
#include <vector>

namespace gpen::sim {

struct Program;

struct RankGrid {
  std::array<int, 3> ranks{1, 1, 1};
  int count() const { return ranks[0] * ranks[1] * ranks[2]; }
};

// "PX", "PXxPY" or "PXxPYxPZ" (gpen simulate --ranks), positive integers,
// as many as the program's dims or fewer (the rest 1). Throws UsageError
// saying what was expected.
RankGrid parse_ranks(const std::string& text, int dims);

struct Subdomain {
  int rank = 0;
  std::array<int, 3> coords{0, 0, 0};
  std::array<long long, 3> offset{0, 0, 0};  // its first interior point in the global grid
  std::array<long long, 3> extent{1, 1, 1};  // its interior points
};

class Decomposition {
 public:
  // Refuses (UsageError, before any GPU work) a grid of ranks that splits
  // an axis the program lacks, or leaves a subdomain fewer points than
  // `least` along a split axis.
  Decomposition(std::array<long long, 3> size, int dims, RankGrid grid, long long least = 1);

  int dims() const { return dims_; }
  const RankGrid& grid() const { return grid_; }
  std::array<long long, 3> size() const { return size_; }
  int count() const { return grid_.count(); }
  const Subdomain& subdomain(int rank) const { return parts_.at(static_cast<std::size_t>(rank)); }
  int rank_at(std::array<int, 3> coords) const;
  // The rank across `rank`'s face (axis, side 0 lower / 1 upper): its
  // neighbour, or at the global edge the wrapped one where `periodic`
  // (itself with one rank along the axis), else -1.
  int neighbour(int rank, int axis, int side, bool periodic) const;

 private:
  std::array<long long, 3> size_;
  int dims_;
  RankGrid grid_;
  std::vector<Subdomain> parts_;
};

// at(flat index in the whole grid of `size` points, x fastest) for each of
// subdomain s's points, x fastest: the order of its part's values.
template <class F>
void for_part_points(const std::array<long long, 3>& size, const Subdomain& s, F&& at) {
  for (long long k = s.offset[2]; k < s.offset[2] + s.extent[2]; ++k)
    for (long long j = s.offset[1]; j < s.offset[1] + s.extent[1]; ++j)
      for (long long i = s.offset[0]; i < s.offset[0] + s.extent[0]; ++i) at(i + size[0] * (j + size[1] * k));
}

// Subdomain s's part of an interior of the whole grid (`size` points, x
// fastest), and that part written back into one.
std::vector<double> interior_part(const std::vector<double>& global, const std::array<long long, 3>& size, const Subdomain& s);
void place_interior_part(std::vector<double>& global, const std::array<long long, 3>& size, const Subdomain& s, const std::vector<double>& part);

// The decomposition of `program`'s grid, refused (UsageError naming the
// field and face) where a subdomain is thinner than a field's ghost width,
// or, at a global face whose condition mirrors the interior (symmetric,
// antisymmetric, value), thinner than the ghost width and the boundary
// point; and along any axis where a right-hand side of kind "sbp" closes
// its own boundaries.
Decomposition decompose(const Program& program, RankGrid grid);

}  // namespace gpen::sim
