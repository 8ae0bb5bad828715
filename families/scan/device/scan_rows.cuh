// Scan along the contiguous axis. A block of kBlockX x kBlockY threads scans
// one segment of kBlockX * kValuesPerThread values in each of kBlockY rows.
// How a warp's 32 * kValuesPerThread values map onto its lanes (kStriped):
//   false (runs): each thread one run of kValuesPerThread values. An access
//     of a warp then touches every line of the warp's span, using part of
//     each: fine for short rows, not for long ones;
//   true (striped): access i of lane l holds values kVectorX * (l + 32 i) ...
//     of the span, so that each access of a warp is one contiguous run of
//     whole lines (bench/RESULTS.md, "seventh session").
// Either way a thread holds kGroups groups of consecutive values; it scans
// each group, the warp combines the groups' totals with shuffles, and the
// warps of a row combine theirs through shared memory. A row longer than a
// segment is split into several, chained by a decoupled look-back (Merrill &
// Garland 2016): every segment publishes its aggregate at once, then its
// inclusive prefix, so a row of 2^28 values keeps the whole GPU busy while
// reading and writing each value once.
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
  // Groups a thread, values a group, and the distance between two groups.
  constexpr int kGroups = B::kStriped ? V / W : 1, S = V / kGroups;
  constexpr long long kStride = 32LL * W;
  __shared__ real warp_total[R][kWarps];
  __shared__ real row_prefix[R];

  const int tx = threadIdx.x, ty = threadIdx.y, lane = tx & 31, warp = tx >> 5;
  // A tile waits only on tiles of lower index, which the GPU dispatches
  // first (as CUB's single-pass scan also assumes). An arrival counter would
  // not need that, but its atomic costs a round trip before the first load of
  // every tile (bench/RESULTS.md, "third session").
  const long long tile = blockIdx.x;
  const long long seg = tile % a.segments, row = (tile / a.segments) * R + ty;
  const bool live = row < a.outer;
  const long long n = a.length;
  // Logical index of value s of group g: p0 + g kStride + s.
  const long long p0 = seg * (T * V) + (B::kStriped ? static_cast<long long>(warp) * (32 * V) + lane * W : static_cast<long long>(tx) * V);
  const bool vector = W > 1 && live && p0 + (kGroups - 1) * kStride + S <= n && n % W == 0;
  const real* src = a.in + (live ? row : 0) * n;
  real* dst = a.out + (live ? row : 0) * n;

  if constexpr (B::kPrefetchTiles > 0) {
    // The values of the tile kPrefetchTiles ahead go to the L2 now, so that
    // its block, started when a resident one retires, finds them there: DRAM
    // stays busy while the resident blocks wait on their look-back
    // (bench/RESULTS.md, "sixth session" and "seventh session").
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
          if (p < n) prefetch_l2(arun + stored_index<B>(n, p));
        }
      }
    }
  }

  // v[g S + s]: value s of group g, in logical order (a reverse scan reads
  // each group backwards from the row's end).
  real v[V];
#pragma unroll
  for (int g = 0; g < kGroups; ++g) {
    const long long p = p0 + g * kStride;
    if (vector) {
      real t[S];
      load_vectors<S, W>(src + stored_run<B>(n, p, S), t);
#pragma unroll
      for (int s = 0; s < S; ++s) v[g * S + s] = t[stored_index<B>(S, s)];
    } else {
#pragma unroll
      for (int s = 0; s < S; ++s) v[g * S + s] = live && p + s < n ? src[stored_index<B>(n, p + s)] : B::identity();
    }
  }

  // Each group, then across the warp's lanes: afterwards v holds the scan of
  // the warp's values (inclusive or exclusive) and `carry` their total.
  real carry = B::identity();
#pragma unroll
  for (int g = 0; g < kGroups; ++g) {
    real* u = v + g * S;
#pragma unroll
    for (int s = 1; s < S; ++s) u[s] = B::combine(u[s - 1], u[s]);
    const real x = warp_inclusive_scan<B>(u[S - 1], lane);
    real before = __shfl_up_sync(kFullMask, x, 1);
    before = lane == 0 ? carry : B::combine(carry, before);
    if constexpr (B::kExclusive) {
#pragma unroll
      for (int s = S - 1; s > 0; --s) u[s] = B::combine(before, u[s - 1]);
      u[0] = before;
    } else {
#pragma unroll
      for (int s = 0; s < S; ++s) u[s] = B::combine(before, u[s]);
    }
    carry = B::combine(carry, __shfl_sync(kFullMask, x, 31));
  }

  // The warps before this one in the row, and (for the look-back) the row's
  // total in the segment.
  real offset = B::identity();
  real total = carry;
  if constexpr (kWarps > 1) {
    if (lane == 0) warp_total[ty][warp] = carry;
    __syncthreads();
    total = B::identity();
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      if (w == warp) offset = total;
      total = B::combine(total, warp_total[ty][w]);
    }
  }

  if (a.segments > 1) {
    if (warp == 0 && live) {
      const long long first = row * a.segments, t = first + seg;
      real prefix = B::identity();
      if (seg == 0) {
        if (lane == 0) publish(a, t, total, kTilePrefix);
      } else {
        if (lane == 0) publish(a, t, total, kTileAggregate);
#if __CUDA_ARCH__ >= 700
        // Its predecessors are publishing too: looking a little later finds
        // more prefixes and spends fewer L2 round trips on windows of
        // aggregates (CUB waits likewise; bench/RESULTS.md, "seventh session").
        if constexpr (B::kLookbackDelay > 0) __nanosleep(B::kLookbackDelay);
#endif
        prefix = look_back<B>(a, first, t, lane);
        if (lane == 0) publish(a, t, B::combine(prefix, total), kTilePrefix);
      }
      if (lane == 0) row_prefix[ty] = prefix;
    }
    __syncthreads();
    offset = B::combine(row_prefix[ty], offset);
  }

#pragma unroll
  for (int k = 0; k < V; ++k) v[k] = B::combine(offset, v[k]);

#pragma unroll
  for (int g = 0; g < kGroups; ++g) {
    const long long p = p0 + g * kStride;
    if (vector) {
      real t[S];
#pragma unroll
      for (int s = 0; s < S; ++s) t[stored_index<B>(S, s)] = v[g * S + s];
      store_vectors<S, W>(dst + stored_run<B>(n, p, S), t);
    } else if (live) {
#pragma unroll
      for (int s = 0; s < S; ++s)
        if (p + s < n) dst[stored_index<B>(n, p + s)] = v[g * S + s];
    }
  }
}

}  // namespace gpen
