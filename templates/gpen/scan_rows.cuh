// Scan along the contiguous axis. A block of kBlockX x kBlockY threads scans
// one segment of kBlockX * kValuesPerThread values in each of kBlockY rows:
// each thread scans its own values in registers, warps combine thread totals
// with shuffles, and the warps of a row through shared memory. A row longer
// than a segment is split into several, chained by a decoupled look-back
// (Merrill & Garland 2016): every segment publishes its aggregate at once,
// then its inclusive prefix, so a row of 2^28 values keeps the whole GPU busy
// while reading and writing each value once.
#pragma once

#include "gpen/scan_common.cuh"

namespace gpen {

template <class B>
__device__ void scan_rows(const ScanArgs<typename B::real>& a) {
  using real = typename B::real;
  constexpr int T = B::kBlockX, R = B::kBlockY, V = B::kValuesPerThread, W = B::kVectorX;
  constexpr int kWarps = T / 32;
  static_assert(T % 32 == 0, "rows of a block are whole warps");
  static_assert(V % W == 0, "a thread's values are whole vectors");
  __shared__ real warp_total[R][kWarps];
  __shared__ real row_prefix[R];

  const int tx = threadIdx.x, ty = threadIdx.y, lane = tx & 31, warp = tx >> 5;
  // A tile waits only on tiles of lower index, which the GPU dispatches
  // first (as CUB's single-pass scan also assumes). An arrival counter would
  // not need that, but its atomic costs a round trip before the first load of
  // every tile: half the bandwidth of a row of two segments (bench/RESULTS.md).
  const long long tile = blockIdx.x;
  const long long seg = tile % a.segments, row = (tile / a.segments) * R + ty;
  const bool live = row < a.outer;
  const long long n = a.length;
  const long long p0 = seg * (T * V) + static_cast<long long>(tx) * V;  // logical index of the first value
  const bool whole = live && p0 + V <= n;
  const bool vector = W > 1 && whole && n % W == 0;
  // A run's values in logical order; physically reversed for a reverse scan.
  const long long q0 = B::kReverse ? n - p0 - V : p0;
  const real* src = a.in + (live ? row : 0) * n;
  real* dst = a.out + (live ? row : 0) * n;

  if constexpr (B::kPrefetchTiles > 0) {
    // The values of the tile kPrefetchTiles ahead go to the L2 now, so that
    // its block, started when a resident one retires, finds them there: DRAM
    // stays busy while the resident blocks wait on their look-back
    // (57.8% -> 65.2% of copy for 2^28 float32 values, bench/RESULTS.md).
    if (a.segments > 1) {
      const long long ahead = tile + B::kPrefetchTiles;
      const long long aseg = ahead % a.segments, arow = (ahead / a.segments) * R + ty;
      const long long ap0 = aseg * (T * V) + static_cast<long long>(tx) * V;
      if (arow < a.outer && ap0 < n) {
        constexpr int kStep = 128 / sizeof(real);  // values a line
        const real* arun = a.in + arow * n;
#pragma unroll
        for (int k = 0; k < V; k += kStep) {
          const long long p = ap0 + k;
          if (p < n) prefetch_l2(arun + (B::kReverse ? n - 1 - p : p));
        }
      }
    }
  }

  real v[V];
  if (vector) {
    real t[V];
    load_vectors<V, W>(src + q0, t);
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = t[B::kReverse ? V - 1 - k : k];
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const long long p = p0 + k;
      v[k] = live && p < n ? src[B::kReverse ? n - 1 - p : p] : B::identity();
    }
  }

  // Thread, warp, then row of the block: `excl` combines everything before
  // this thread's values in the segment.
#pragma unroll
  for (int k = 1; k < V; ++k) v[k] = B::combine(v[k - 1], v[k]);
  const real x = warp_inclusive_scan<B>(v[V - 1], lane);
  real excl = __shfl_up_sync(kFullMask, x, 1);
  if (lane == 0) excl = B::identity();
  if constexpr (kWarps > 1) {
    if (lane == 31) warp_total[ty][warp] = x;
    __syncthreads();
    real before = B::identity();
    for (int w = 0; w < warp; ++w) before = B::combine(before, warp_total[ty][w]);
    excl = B::combine(before, excl);
  }

  if (a.segments > 1) {
    if (tx == T - 1) row_prefix[ty] = B::combine(excl, v[V - 1]);  // the segment's total, for a moment
    __syncthreads();
    if (warp == 0 && live) {
      const real total = row_prefix[ty];
      const long long first = row * a.segments, t = first + seg;
      real prefix = B::identity();
      if (seg == 0) {
        if (lane == 0) publish(a, t, total, kTilePrefix);
      } else {
        if (lane == 0) publish(a, t, total, kTileAggregate);
        prefix = look_back<B>(a, first, t, lane);
        if (lane == 0) publish(a, t, B::combine(prefix, total), kTilePrefix);
      }
      __syncwarp();
      if (lane == 0) row_prefix[ty] = prefix;
    }
    __syncthreads();
    excl = B::combine(row_prefix[ty], excl);
  }

  if constexpr (B::kExclusive) {
#pragma unroll
    for (int k = V - 1; k > 0; --k) v[k] = B::combine(excl, v[k - 1]);
    v[0] = excl;
  } else {
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = B::combine(excl, v[k]);
  }

  if (vector) {
    real t[V];
#pragma unroll
    for (int k = 0; k < V; ++k) t[B::kReverse ? V - 1 - k : k] = v[k];
    store_vectors<V, W>(dst + q0, t);
  } else if (live) {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      const long long p = p0 + k;
      if (p < n) dst[B::kReverse ? n - 1 - p : p] = v[k];
    }
  }
}

}  // namespace gpen
