// Spec + tunables -> the numbers a scan kernel is specialised on, and the
// launch geometry for a problem size. The array is seen as
// [outer][length][inner] around the scan axis (see families/scan/device/scan_common.cuh).
#pragma once

#include <array>
#include <string>

#include "gpen/generator/codegen.hpp"
#include "gpen/families/stencil/stencil_plan.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/generator/tunable_table.hpp"

namespace gpen {

enum class ScanLayout {
  Rows,     // contiguous axis: blocks scan segments of rows, look-back between segments
  Columns,  // strided axis: a thread carries its columns along the axis
};
const char* to_string(ScanLayout l);

struct ScanGeometry {
  long long length = 1, inner = 1, outer = 1;
  long long segments = 1;  // tiles along one row (rows layout)
  long long along = 1;     // columns layout: groups of a block along the axis (see ScanPlan::geometry)
  long long layers = 1;    // columns layout, chained: layers along the axis; 1: blocks walk it (see ScanPlan::geometry)
  long long tiles = 1;     // blocks of the launch
  // Columns layout: the order of a plane's tiles (see ScanPlan::geometry).
  long long plane_tiles = 1;  // tiles (blocks) of one plane
  long long run_tiles = 1;    // adjacent tiles that stay together
  long long spread = 1;       // runs between two consecutive runs (coprime with the full runs; 1 keeps the order)

  // The tile of the plane that block `b` of it (0 <= b < plane_tiles) scans:
  // full runs in the order run j -> j * spread mod runs, a ragged tail in
  // place. plane_tile() in families/scan/device/scan_column_steps.cuh computes the same.
  long long tile_of_block(long long b) const;
};

// length, inner and outer of `size` around `axis` (segments and tiles left at 1).
ScanGeometry scan_lines(int dims, int axis, const std::array<long long, 3>& size);

struct ScanPlan {
  ScanLayout layout = ScanLayout::Rows;
  int block_x = 128, block_y = 1, values_per_thread = 1, vector_x = 1;
  int prefetch_tiles = 0;  // rows layout: the L2 prefetch's distance in tiles
  bool striped = false;    // rows layout: a warp's accesses striped across its lanes
  int lookback_delay = 0;  // rows layout: ns a block sleeps between publishing its aggregate and looking back
  int stripes = 1;         // columns layout: stripes of a plane that consecutive runs of tiles are spread over
  bool chained = false;    // columns layout: layers of values_per_thread steps, carries handed from layer to layer, where they fit in the L2
  int dtype_bytes = 8;      // bytes a value: a run of tiles is 2 KiB of columns
  std::string kernel_name;

  int threads() const { return block_x * block_y; }
  long long segment() const { return static_cast<long long>(block_x) * values_per_thread; }  // rows layout
  // `l2_bytes`: the GPU's L2, which chained carries must fit in (the
  // default is an H100's).
  ScanGeometry geometry(int dims, int axis, const std::array<long long, 3>& size, long long l2_bytes = 50LL << 20) const;
  // Columns layout, chained: bytes of the carries a launch over `g` needs
  // (16 a column group of vector_x columns of each plane; 0 when blocks
  // walk the axis).
  long long carry_bytes(const ScanGeometry& g) const;
  LaunchDims launch(const ScanGeometry& g) const;
};

// The family's tunables, one row each (tunable_table.hpp); the plan is
// filled from them.
const std::vector<TunableRow<ScanPlan>>& scan_tunable_rows();

// Throws SpecError (pointer /tunables/...) when the choice cannot run.
ScanPlan plan_scan(const Spec& spec, const TunableChoice& choice);

// The unit of a choice (plan_unit, print_unit of the family; its plan is a
// ScanPlan).
Variant plan_scan_unit(const Spec& spec, const TunableChoice& choice);
std::string print_scan_unit(const Spec& spec, const Variant& unit);

}  // namespace gpen
