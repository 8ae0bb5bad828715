// Spec + tunables -> the numbers an SBP kernel is specialised on, and its
// launch geometry for a problem size.
//
// direct: a thread a point, every axis of the spec summed; a block whose
//   points all lie inside the closures' reach along an axis takes the
//   interior stencil there without a per-point branch.
// pencil: one axis only. A block owns a pencil of `along` points on the
//   operator's axis by `across` points on another one (x when the operator's
//   axis is y or z, else y), independent of its block_x x block_y threads,
//   which loop over the pencil. Interior pencils are staged with their halo
//   in shared memory; pencils that hold closure rows read global memory.
#pragma once

#include <array>
#include <string>

#include "gpen/generator/codegen.hpp"
#include "gpen/families/stencil/stencil_plan.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/generator/tunable_table.hpp"

namespace gpen {

enum class SbpStrategy { Direct, Pencil };
const char* to_string(SbpStrategy s);

struct SbpPlan {
  SbpStrategy strategy = SbpStrategy::Direct;
  int block_x = 32, block_y = 8;
  int along = 1, across = 1;  // pencil
  int axis = 0;               // pencil: the operator's axis
  int across_axis = 1;        // pencil: the axis `across` runs on
  int third_axis = 2;         // pencil: the remaining one, a block per index
  std::size_t shared_bytes = 0;
  std::string kernel_name;

  int threads() const { return block_x * block_y; }
  // Throws std::invalid_argument when the size needs more blocks than a grid allows.
  LaunchDims launch(const std::array<long long, 3>& size) const;
};

// The family's tunables, one row each (tunable_table.hpp); the plan is
// filled from them.
const std::vector<TunableRow<SbpPlan>>& sbp_tunable_rows();

// Throws SpecError (pointer /tunables/...) when the choice cannot run.
SbpPlan plan_sbp(const Spec& spec, const TunableChoice& choice);

// The unit of a choice (plan_unit, print_unit of the family; its plan is a
// SbpPlan).
Variant plan_sbp_unit(const Spec& spec, const TunableChoice& choice);
std::string print_sbp_unit(const Spec& spec, const Variant& unit);

}  // namespace gpen
