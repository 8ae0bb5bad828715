// The reduction kernels' argument block: the one definition, included by
// the generated units (NVRTC) and by the host (families/reduce/reduce_kernel.cpp).
// Its arrays are as long as the spec has inputs, results and params, which
// the host knows only at run time: it writes the block by
// reduce_args_layout(), checked against ReduceArgsOf for many counts.
// Plain types only, no includes.
#pragma once

namespace gpen {

// How a launch's points are cut (ReducePlan::geometry). A row is the nx
// points of one (j, k); the rows that combine into one result point (the
// reduced ones of y and z) are cut into `chunks` chunks of rows_per_chunk;
// where x is reduced, long rows are cut into x_blocks segments too.
struct ReduceGeometryArgs {
  long long nx, ny, nz;      // interior points along x, y, z
  long long kept_rows;       // results along the kept axes of y and z (1 where both are reduced)
  long long reduced_rows;    // rows of one kept row's result (1 where neither y nor z is reduced)
  long long x_blocks;        // blocks along x: of block_x columns (x kept), or of x_segment points of the rows (x reduced)
  long long x_segment;       // x reduced: the points of a row a block takes (nx, or a part of long rows)
  long long rows_per_chunk;  // rows a block combines
  long long chunks;          // chunks of rows of one result point
  long long partials;        // partial results of one result point: chunks, times x_blocks where x is reduced; 1 writes results
};

// Geometry, then the partials (partials > 1: [result point][partial][result]),
// one pointer per input (first element of its padded array) and per result
// (its first element), the params.
template <class real, class acc, int NumIn, int NumOut, int NumParams>
struct ReduceArgsOf {
  ReduceGeometryArgs g;
  acc* partial;
  const real* in[NumIn > 0 ? NumIn : 1];
  acc* out[NumOut > 0 ? NumOut : 1];
  // Each field's pitch in elements, [0] between rows (y), [1] between
  // planes (z): packed, or the caller's padding.
  long long in_pitch[NumIn > 0 ? NumIn : 1][2];
  long long out_pitch[NumOut > 0 ? NumOut : 1][2];
  real params[NumParams > 0 ? NumParams : 1];
};

constexpr int kReduceFinalThreads = 256;

// Where ReduceArgsOf puts its members, in bytes (C++'s rule: each at the
// next multiple of its alignment, the whole a multiple of the largest).
struct ReduceArgsLayout {
  unsigned long long partial, in, out, in_pitch, out_pitch, params, size;
};

constexpr ReduceArgsLayout reduce_args_layout(int num_in, int num_out, int num_params, int real_bytes) {
  const unsigned long long pointer = sizeof(void*), rb = static_cast<unsigned long long>(real_bytes);
  ReduceArgsLayout l{};
  l.partial = sizeof(ReduceGeometryArgs);
  l.in = l.partial + pointer;
  l.out = l.in + pointer * static_cast<unsigned long long>(num_in > 0 ? num_in : 1);
  l.in_pitch = l.out + pointer * static_cast<unsigned long long>(num_out > 0 ? num_out : 1);
  l.out_pitch = l.in_pitch + 2 * sizeof(long long) * static_cast<unsigned long long>(num_in > 0 ? num_in : 1);
  l.params = l.out_pitch + 2 * sizeof(long long) * static_cast<unsigned long long>(num_out > 0 ? num_out : 1);
  const unsigned long long end = l.params + rb * static_cast<unsigned long long>(num_params > 0 ? num_params : 1);
  l.size = (end + pointer - 1) / pointer * pointer;
  return l;
}

}  // namespace gpen
