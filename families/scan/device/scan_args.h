// The scan kernels' argument block: the one definition, included by the
// generated units (NVRTC, real = float or double) and by the host
// (families/scan/scan_kernel.cpp, real = void: the pointers are the device's).
// Plain types only, no includes.
#pragma once

namespace gpen {

template <class real>
struct ScanArgs {
  const real* in;
  real* out;
  long long length;    // values along the scan axis
  long long inner;     // distance between two of them (1: contiguous)
  long long outer;     // rows (rows layout) or planes above the axis (columns)
  long long segments;  // tiles along one row (rows layout); 1 otherwise
  // Decoupled look-back between the segments of a row (used when segments > 1):
  // per tile, sizeof(real) / 4 words; see publish(). Chained columns: a
  // ColumnCarry a column group (scan_column_layers.cuh).
  unsigned long long* status;
  unsigned epoch;      // this launch's; status words of other launches read as "not yet"
  unsigned along;      // columns layout: groups of a block along the axis (kBlockY / along side by side)
  // Columns layout: the order of a plane's tiles (scan_columns.cuh).
  unsigned run_tiles;  // adjacent tiles that stay together
  unsigned spread;     // run j of a plane scans run j * spread mod (full runs)
  unsigned layers;     // chained columns: 1 = walk the axis (the carries would not fit in the L2), else chained layers (ScanPlan::geometry)
};

}  // namespace gpen
