// Mixed derivatives in two passes, for the stage strategy. D1(D1(u, y), x)
// lowers to one linear combination of 6 x 6 reads of u off the axes
// (ir_apply_points multiplies the inner combination out, and sums of
// combinations merge), each a shared-memory load in a stage kernel. Its
// coefficients are a product p_i q_j, so a kernel can compute the
// intermediate g = sum_j q_j u(. + j e_y) once a point and read sum_i p_i
// g(. + i e_x) from it: 6 + 6 loads instead of 36.
//
// The split is found in the lowered expression, not in its syntax, so it
// holds however the spec writes the derivative (nested, through a let, summed
// with other terms): every linear combination's terms along exactly two axes
// of one input form a matrix M[i][j] (i along the outer axis, j along the
// inner), factored exactly as M = P Q over rationals (reduced row echelon
// form, any rank); Q's rows are the intermediates, P the reads of them. A
// block is split only when that reads fewer values (P's and Q's nonzeros
// against M's). Exact: the products p_i q_j are M's coefficients; only the
// order of the floating-point sums changes. The CPU reference evaluates the
// unsplit expression.
//
// The outer axis is where the kernel keeps an intermediate's neighbours
// cheaply (families/stencil/device/stencil_stage.cuh): the kernel's x where
// the pair has it (a warp computes its own row of the intermediate and its x
// halo, no block barrier), else the kernel's z (a thread keeps its column's
// values in a register queue as it walks along z). A pair of the kernel's x
// and z may be read along z instead (`xz_along_z`, the tunable xz_queue):
// one value computed a point rather than a row with its halo, a queue's
// registers rather than shared loads.
//
// Terms of a linear combination equal to an intermediate up to a factor
// (D1(uy, y) beside D1(D1(uy, y), x)) then read the intermediate at the
// point: one value for the inner stencil's reads. Last, intermediates read
// along x that every combination reads together or not at all, in one
// proportion (D1 along x of D1(uy, y) and of D1(uz, z) in grad(div u)),
// become one: their terms summed, one row and one read of it.
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "gpen/generator/ir.hpp"

namespace gpen {

// g(p) = sum_t terms[t].coeff * input(p + terms[t].access.off), the offsets
// along the inner axis only; read at up to `reach` points either side of a
// point along the outer axis.
struct MixedIntermediate {
  int field = 0;            // input slot
  int inner_axis = 0;       // user axis of its offsets
  int outer_axis = 0;       // kernel axis it is read along: 0 (x) or 2 (z)
  int reach = 0;
  std::vector<Term> terms;  // integer coefficients without a common factor, the first positive
  // (input slot, user axis) of the intermediates summed into this one
  // after `field` along `inner_axis` (merged: read together, in proportion).
  std::vector<std::pair<int, int>> also;
};

struct MixedSplit {
  // The expressions with the split blocks reading intermediates: an access
  // of field `inputs + g` reads intermediate g at its offset (along an outer
  // axis). Nodes nothing was split or read from an intermediate in are the
  // roots' own.
  std::vector<IrPtr> roots;
  std::vector<MixedIntermediate> mids;
};

// `inputs`: the spec's number of inputs; `kernel_axis`: user axis -> kernel
// axis (StencilPlan); `xz_along_z`: the kernel's x and z pairs read along z.
// The same inner derivative read along x and along z is two intermediates.
MixedSplit split_mixed_derivatives(const std::vector<IrPtr>& roots, int inputs, std::array<int, 3> kernel_axis, bool xz_along_z = false);

}  // namespace gpen
