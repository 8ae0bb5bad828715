// What the ghost-zone exchange's tests share (issue 30): a field with given
// boundary kinds, and a bitwise count of differing values.
#pragma once

#include <algorithm>
#include <array>
#include <vector>

#include "gpen/simulate/program.hpp"

namespace gpen::test {

// Field "u" of ghost width `ghost`, kinds[axis][side] on its faces (value faces 0.25).
inline sim::ProgramField halo_field(int ghost, const std::array<std::array<sim::BoundaryKind, 2>, 3>& kinds) {
  sim::ProgramField f;
  f.name = "u";
  f.ghost = ghost;
  for (int ax = 0; ax < 3; ++ax)
    for (int side = 0; side < 2; ++side) f.boundary[ax][side] = sim::Boundary{kinds[ax][side], 0.25, ""};
  return f;
}

// Periodic on x and y, `z` on both z faces.
inline sim::ProgramField periodic_but_z(int ghost, sim::BoundaryKind z) {
  constexpr auto P = sim::BoundaryKind::Periodic;
  return halo_field(ghost, {{{P, P}, {P, P}, {z, z}}});
}

// Values of `got` that differ from `want` bit for bit (and a size mismatch
// as one); NaN equal to NaN only where `nan_matches` (a poisoned value left
// unwritten is a difference otherwise).
inline long long differing_values(const std::vector<double>& got, const std::vector<double>& want, bool nan_matches = false) {
  long long n = got.size() == want.size() ? 0 : 1;
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    n += !(got[i] == want[i] || (nan_matches && got[i] != got[i] && want[i] != want[i]));
  return n;
}

// Values that differ bit for bit over every field (a field count mismatch as one).
inline long long field_differences(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  long long n = a.size() == b.size() ? 0 : 1;
  for (std::size_t f = 0; f < std::min(a.size(), b.size()); ++f) n += differing_values(a[f], b[f]);
  return n;
}

}  // namespace gpen::test
