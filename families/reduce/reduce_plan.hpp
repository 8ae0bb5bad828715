// Spec + tunables -> the numbers a reduction kernel is specialised on, and
// how a launch of a given size is cut (families/reduce/device/reduce.cuh).
#pragma once

#include <array>
#include <string>

#include "gpen/families/reduce/device/reduce_args.h"
#include "gpen/families/stencil/stencil_plan.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/generator/tunable_table.hpp"

namespace gpen {

struct ReducePlan {
  int block_x = 128, block_y = 4;
  int points_per_thread = 64;  // points a thread combines: a block's chunk is about threads x this many points
  int batch = 4;               // points a thread computes before it combines them
  std::array<bool, 3> reduced{true, true, true};  // per axis (an axis the spec lacks counts as reduced)
  std::string kernel_name, final_kernel_name;

  int threads() const { return block_x * block_y; }
  // How a launch over `interior` points is cut: the rows, the chunks of a
  // result point and the blocks. A function of the size and the tunables
  // alone, so the results' bits are too (reduce.cuh).
  ReduceGeometryArgs geometry(const std::array<long long, 3>& interior) const;
  // Result points of every result (the kept axes' extents multiplied).
  long long result_points(const std::array<long long, 3>& interior) const;
  LaunchDims launch(const ReduceGeometryArgs& g) const;
  LaunchDims final_launch(const ReduceGeometryArgs& g) const;
};

// Per axis, whether the spec reduces it (an axis the spec lacks counts as
// reduced: results have length 1 there either way).
std::array<bool, 3> reduced_axes(const Spec& spec);
// Whether a result point combines several rows (the spec reduces y or z),
// not only points of one row.
bool reduces_rows(const Spec& spec);
// The spec's reduced axes by name, "x, y".
std::string reduced_axis_names(const Spec& spec);
// What values combine in and results are kept in: float64 where asked for
// (and for float64 inputs), else the spec's dtype.
Dtype accumulator_dtype(const Spec& spec);

// Blocks of x-kept rows above which a result point takes one chunk: enough
// to fill a GPU (an H100 holds 132 SMs x 8 such blocks) without partials.
constexpr long long kReduceEnoughBlocks = 2048;

const std::vector<TunableRow<ReducePlan>>& reduce_tunable_rows();

// Throws SpecError (pointer /tunables/...) when the choice cannot run.
ReducePlan plan_reduce(const Spec& spec, const TunableChoice& choice);

Variant plan_reduce_unit(const Spec& spec, const TunableChoice& choice);
std::string print_reduce_unit(const Spec& spec, const Variant& unit);

}  // namespace gpen
