// Spec + tunables -> the numbers a pairwise kernel is specialised on.
//
// tile:    a block of kBlock threads owns kBlock * targets_per_thread
//          targets and walks all sources in tiles of kBlock, staged in
//          shared memory; the last tile may be ragged (seed 002, Step 09).
//          With source slices, blocks (x, y) share targets x and take
//          slice y of the sources; a fold kernel sums their partials.
// grouped: a block per target group and chunk of its targets; the group's
//          targets against its list of source ranges (a tree's or cell
//          list's interaction lists, seed 002, Steps 11-12), in slices as
//          the tile's sources.
// blocks:  grids only (seed 000): sink blocks x source blocks of
//          cell_block^dims cells; one launch per source pencil (a row of
//          source blocks along x) writes a partial result per sink cell and
//          source block; pencils rotate over `streams` streams, each folding
//          its partials into a running result on the GPU, and a last fold
//          combines the streams' results into the outputs.
#pragma once

#include <array>
#include <string>

#include "gpen/generator/codegen.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/generator/tunable_table.hpp"

namespace gpen {

enum class PairStrategy { Tile, Grouped, Blocks };
const char* to_string(PairStrategy s);

struct PairwisePlan {
  PairStrategy strategy = PairStrategy::Tile;
  int block = 128;               // threads, and sources a shared-memory tile
  int targets_per_thread = 1;
  int unroll = 1;                // full tiles: the source loop unrolled this many times
  int buffers = 1;               // source tiles in shared memory (2: double buffered)
  int source_slices = 1;         // tile, grouped: sources split over this many blocks (0: the host chooses)
  int target_lanes = 1;          // grouped: the most threads that share a target of a small group
  int flag_chunk = 1;            // float64 accurate: sources whose IEEE range tests are taken together
  int cell_block = 0;            // blocks: a cell block's side along every grid axis
  int streams = 1;               // blocks
  std::size_t shared_bytes = 0;  // the source tile
  std::size_t source_bytes = 0;  // one source's packed values
  std::string kernel_name;
  std::string fold_kernel_name;  // folds partial results (block on block, slices)

  int targets_per_block() const { return block * targets_per_thread; }
};

// The family's tunables, one row each (tunable_table.hpp); the plan is
// filled from them.
const std::vector<TunableRow<PairwisePlan>>& pairwise_tunable_rows();

// Throws SpecError (pointer /tunables/...) when the choice cannot run.
PairwisePlan plan_pairwise(const Spec& spec, const TunableChoice& choice);

// Bytes of one source in shared memory: the values the outputs read at the
// source, padded to whole 16-byte words so that a word is one load.
std::size_t packed_source_bytes(const Spec& spec);

// Whether the pair of a float64 spec with "math": "accurate" evaluates
// IEEE sqrt, division or exp, whose branches the kernel takes once for
// several sources (flag_chunk; pairwise.cuh, pair_targets_with).
bool pair_has_flagged_terms(const Spec& spec);

// The unit of a choice (plan_unit, print_unit of the family; its plan is a
// PairwisePlan).
Variant plan_pairwise_unit(const Spec& spec, const TunableChoice& choice);
std::string print_pairwise_unit(const Spec& spec, const Variant& unit);

}  // namespace gpen
