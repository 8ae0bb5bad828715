// Pieces of the two column kernels (scan_columns.cuh, scan_column_layers.cuh):
// a thread's steps along the axis in and out of registers, and the order of
// a plane's tiles.
#pragma once

#include "gpen/scan_common.cuh"

namespace gpen {

// Loads K steps along the axis from logical step p0; steps past the end
// read as the identity. `whole`: all K steps exist and the thread's kVectorX
// columns are aligned and in range.
template <class B, int K, bool kWhole>
__device__ __forceinline__ void load_column_steps(const ScanArgs<typename B::real>& a, const typename B::real* src, long long p0, int columns,
                                                  typename B::real (&x)[K][B::kVectorX]) {
  constexpr int W = B::kVectorX;
  const long long n = a.length, s = a.inner;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const long long p = p0 + k;
    const long long q = stored_index<B>(n, p);
    if (kWhole) {
      load_vectors<W, W>(src + q * s, x[k]);
    } else {
#pragma unroll
      for (int w = 0; w < W; ++w) x[k][w] = p < n && w < columns ? src[q * s + w] : B::identity();
    }
  }
}

// Combines the K loaded steps into the running values `run` and stores them.
template <class B, int K, bool kWhole>
__device__ __forceinline__ void store_column_steps(const ScanArgs<typename B::real>& a, typename B::real* dst, long long p0, int columns,
                                                   typename B::real (&x)[K][B::kVectorX], typename B::real (&run)[B::kVectorX]) {
  using real = typename B::real;
  constexpr int W = B::kVectorX;
  const long long n = a.length, s = a.inner;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const long long p = p0 + k;
    if (!kWhole && p >= n) break;
#pragma unroll
    for (int w = 0; w < W; ++w) {
      const real next = B::combine(run[w], x[k][w]);
      x[k][w] = B::kExclusive ? run[w] : next;
      run[w] = next;
    }
    const long long q = stored_index<B>(n, p);
    if (kWhole) {
      store_vectors<W, W>(dst + q * s, x[k]);
    } else {
#pragma unroll
      for (int w = 0; w < W; ++w)
        if (w < columns) dst[q * s + w] = x[k][w];
    }
  }
}

// The tile of its plane that block b of the plane scans: runs of
// a.run_tiles adjacent tiles, full run j at run j * a.spread mod runs (the
// host picks a spread coprime with runs), a ragged tail in place. So the
// blocks running at once read runs all across a plane instead of one window
// of it, which planes a multiple of the DRAM interleave apart would all send
// to the same few channels (ScanPlan::geometry; ScanGeometry::tile_of_block
// is the host's copy of this).
template <class real>
__device__ __forceinline__ long long plane_tile(const ScanArgs<real>& a, long long b, long long blocks) {
  const long long r = a.run_tiles, runs = blocks / r;
  if (b >= runs * r) return b;
  return b / r * a.spread % runs * r + b % r;
}

}  // namespace gpen
