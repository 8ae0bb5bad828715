// Spec + tunables -> the numbers a stencil kernel is specialised on: kernel
// axes, ghost widths and radii per input, block and tile sizes, shared
// memory, and the launch geometry for a problem size. Host-side arithmetic
// only; the generated source restates it in static_asserts.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "gpen/generator/codegen.hpp"
#include "gpen/generator/gpu_limits.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/generator/tunable_table.hpp"

namespace gpen {

enum class StencilStrategy { Direct, March, Tile, Rolling, Stage };
const char* to_string(StencilStrategy s);

// Blocks a stage grid keeps at least when its blocks walk 2 or 4 times
// points_per_thread planes (StencilPlan::launch), so that the last wave's
// idle SMs cost little: 10 to 31 waves of the heavy defaults' 1 to 3
// blocks an SM on an H100's 132 SMs. (A rule from the device's SMs and the
// unit's resident blocks would carry to other GPUs.)
constexpr long long kStageWalkBlocks = 4096;

struct LaunchDims {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
};

struct StencilPlan {
  StencilStrategy strategy = StencilStrategy::Rolling;
  int block_x = 32, block_y = 1, points_per_thread = 1;
  int vector_x = 1, rows_y = 1;  // points a thread owns along x (march) and y (march, stage)
  bool unroll_z = false;         // march: the z loop unrolled
  bool stream_stores = false;    // march, stage: outputs stored evict-first
  int min_blocks = 0;            // march: __launch_bounds__(threads, min_blocks), 0: none
  int ring_ahead = 0;            // march, stage: planes copied this many steps ahead into shared memory (march: 0 is no ring)
  int mixed_passes = 1;          // stage: 2, mixed derivatives through intermediate planes (stencil_mixed.hpp)
  bool z_queue = false;          // stage: each input's column along z in registers
  bool xz_queue = false;         // stage, mixed_passes 2: intermediates of x and z pairs read along z (register queues)
  bool point_registers = false;  // stage: inputs read at the point alone (radius 0) in registers, no ring
  bool ring_behind = true;       // stage: each ring keeps the planes behind the centre (k - rz .. k - 1); false needs z_queue
  int dims = 3;
  std::array<int, 3> kernel_axis{0, 1, 2};  // user axis -> kernel axis
  std::vector<std::array<int, 3>> in_ghost;   // per input slot, kernel axes
  std::vector<std::array<int, 3>> radius;     // per input slot, kernel axes
  std::vector<std::array<int, 3>> out_ghost;  // per output slot, kernel axes
  std::vector<int> out_wrap;                  // per output slot: its periodic images, a bit per kernel axis
  int max_radius_z = 0;
  // stage, mixed_passes 2: each intermediate's outer kernel axis (0: x, 2:
  // z) and reach (split_mixed_derivatives' intermediates, in its order).
  std::vector<std::array<int, 2>> mids;
  std::size_t mid_shared_bytes = 0;  // of dynamic_shared_bytes: the warps' rows of intermediates read along x
  std::size_t shared_bytes = 0;  // static shared memory of one block
  std::size_t dynamic_shared_bytes = 0;  // dynamic shared memory of one block (the march's ring, the stage's planes)
  std::string kernel_name;
  // march with several points a thread: the entry for arrays that do not
  // fit the vector accesses (see families/stencil/device/stencil_march.cuh); else empty.
  std::string clamped_kernel_name;
  // stage: a field's accesses use the pitch of the first field of its kind
  // with its ghost widths (kInPitchOf, kOutPitchOf: pitch_sources), the
  // same where the launch finds them alike (shares_pitches): one row and
  // plane stride for many fields, fewer registers and address instructions
  // in a fused kernel. Else (and in the unit a launch on arrays padded
  // unalike takes) every field's through its own.
  bool shared_pitches = false;

  int threads() const { return block_x * block_y; }
  // Whether input slot f has no ring (stage, point_registers): read at the
  // point alone, each thread's value loaded from global memory a plane ahead.
  bool in_registers(std::size_t f) const {
    return strategy == StencilStrategy::Stage && point_registers && radius[f] == std::array<int, 3>{0, 0, 0};
  }
  // Values a thread carries from one plane to the next in registers: the
  // march's z queues (each input's 2 rz + 1 planes of its vector_x x rows_y
  // points), the stage's columns (z_queue) and its queues of intermediates
  // read along z. A lower bound of its registers (each value 1 register,
  // 2 in float64): ptxas needs them and the step's temporaries besides.
  int carried_values() const;
  // Slots of the march's ring (the stage strategy keeps one ring an input).
  int ring_slots() const { return strategy == StencilStrategy::March && ring_ahead > 0 ? max_radius_z + ring_ahead + 1 : 0; }
  // Interior extent in kernel axes for the user's sizes (x, y, z; unused = 1).
  std::array<long long, 3> kernel_extent(const std::array<long long, 3>& user) const;
  LaunchDims launch(const std::array<long long, 3>& user) const;
};

// For each field of a kind (per slot, their ghost widths along the kernel
// axes), the field whose pitch its accesses use: the first with the same
// ghost widths, or (`own`) itself.
std::vector<int> pitch_sources(const std::vector<std::array<int, 3>>& ghosts, bool own);

// User axis -> kernel axis for arrays of `dims` dimensions: 3-D identity;
// 2-D marches y as the kernel's z; 1-D has x only.
std::array<int, 3> stencil_kernel_axis(int dims);

// The family's tunables, one row each (tunable_table.hpp); the plan is
// filled from them.
const std::vector<TunableRow<StencilPlan>>& stencil_tunable_rows();

// The intermediates split_mixed_derivatives makes of the spec's outputs:
// each one's outer kernel axis (0: x, 2: z) and reach. Kept by the spec's
// hash (its whole text, dtype included), axes and xz_queue: a tuner plans
// every point of its search space, and no other tunable changes the split.
std::vector<std::array<int, 2>> mixed_intermediates(const Spec& spec, const std::array<int, 3>& kernel_axis, bool xz_along_z = false);

// Throws SpecError (pointer /tunables/...) when the choice cannot run.
StencilPlan plan_stencil(const Spec& spec, const TunableChoice& choice);

// The unit of a choice (plan_unit, print_unit of the family; its plan is a
// StencilPlan).
Variant plan_stencil_unit(const Spec& spec, const TunableChoice& choice);
std::string print_stencil_unit(const Spec& spec, const Variant& unit);
// The operations a point of the unit: its expressions with common
// subexpressions once, and with mixed_passes 2 each intermediate once and
// the reads of it (Family::ops_per_point).
double stencil_ops_per_point(const Spec& spec, const Variant& unit);

}  // namespace gpen
