// Finite-difference weights by Fornberg's algorithm (Math. Comp. 51, 1988),
// in exact rational arithmetic.
#pragma once

#include <vector>

#include "gpen/generator/rational.hpp"

namespace gpen {

// Weights of the `derivative`-th derivative at 0 on the grid points `offsets`
// (distinct integers), exact for polynomials of degree offsets.size()-1.
std::vector<Rational> fornberg_weights(int derivative, const std::vector<int>& offsets);

// Radius of the central stencil of even accuracy `order` for `derivative`:
// floor((d-1)/2) + p/2, e.g. D1 and D2 of order 8 reach 4 points each way.
int central_radius(int derivative, int order);

// Central weights for offsets -r..r (r = central_radius).
std::vector<Rational> central_weights(int derivative, int order);

}  // namespace gpen
