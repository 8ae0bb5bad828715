// The mathematics of an SBP spec, in exact arithmetic: its operator as a
// matrix on a line of n points, and the checks `gpen check` runs when the
// spec is read (norm, closure shape, accuracy conditions, the SBP property).
#pragma once

#include <vector>

#include "gpen/generator/json_source.hpp"
#include "gpen/generator/rational.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

using RationalMatrix = std::vector<std::vector<Rational>>;

// D (without 1/h^derivative) on a line of n >= d.min_length() points.
RationalMatrix sbp_matrix(const SbpDecl& d, long long n);
// H's diagonal on a line of n points: the norm at both ends, 1 inside.
std::vector<Rational> sbp_norm(const SbpDecl& d, long long n);

// sum_j c[j] * (j - at)^p: the p-th moment of a row about the point it serves.
Rational sbp_moment(const std::vector<Rational>& c, long long first, long long at, int p);

// Throws SpecError naming the JSON path (/sbp/norm/2, /sbp/left/3, ...) when
// the operator is malformed or inconsistent:
//  - an interior stencil of even length; fewer closure rows than its radius;
//    an empty or all-zero closure row; `right` with another row count;
//  - a norm weight that is not positive, or a norm of another length;
//  - an interior or closure row that is not exact for the polynomials its
//    stated order promises (degree order + derivative - 1);
//  - first derivatives: H D + (H D)^T != diag(-1, 0, ..., 0, 1);
//    second derivatives with a boundary_derivative S: M = B S - H D not symmetric.
void check_sbp(const SbpDecl& d, const JsonSource& src);

}  // namespace gpen
