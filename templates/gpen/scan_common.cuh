// gpen scan templates: pieces shared by the two layouts.
//
// A scan spec's array is seen as [outer][length][inner]: `length` values
// along the scan axis, `inner` values (the axes below it) between two of
// them. The rows layout (scan_rows.cuh) serves the contiguous axis
// (inner == 1), the columns layout (scan_columns.cuh) the strided ones.
//
// `B` is the bindings struct that the generator writes for one spec:
//   using real;                           float or double
//   kBlockX, kBlockY                      threads along the axis (rows) or across it (columns); rows a block
//   kValuesPerThread                      values a thread holds along the axis
//   kVectorX                              values a thread moves in one access
//   kPrefetchTiles                        rows layout: tiles ahead whose values a thread prefetches into the L2
//   kStriped                              rows layout: a warp's accesses striped across its lanes (scan_rows.cuh)
//   kLookbackDelay                        rows layout: ns between publishing a tile's aggregate and its look-back
//   kExclusive, kReverse                  the scan's direction and kind
//   identity(), combine(a, b)             the operation; combine is associative,
//                                         a is on the left (earlier values)
#pragma once

#include "gpen/stencil_vector.cuh"

namespace gpen {

constexpr unsigned kFullMask = 0xffffffffu;

// Kernel arguments; the host writes the same 80 bytes (runtime/src/scan_kernel.cpp).
template <class real>
struct ScanArgs {
  const real* in;
  real* out;
  long long length;    // values along the scan axis
  long long inner;     // distance between two of them (1: contiguous)
  long long outer;     // rows (rows layout) or planes above the axis (columns)
  long long segments;  // tiles along one row (rows layout); 1 otherwise
  // Decoupled look-back between the segments of a row (used when segments > 1).
  real* aggregate;     // per tile: the combination of its own values
  real* inclusive;     // per tile: the combination of its row up to and including it
  unsigned long long* status;  // per tile: see publish()
  unsigned epoch;      // this launch's; status words of other launches read as "not yet"
  unsigned pad;
};

constexpr unsigned kTileAggregate = 1, kTilePrefix = 2;

// Tile status. float: one 64-bit word per tile, (epoch << 2 | state) << 32 |
// value bits, written and read whole, so one relaxed load per look-back lane
// sees state and value together. double: value and flag in separate words,
// ordered by fences.
__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// Publishes a tile's aggregate or inclusive prefix.
template <class real>
__device__ __forceinline__ void publish(const ScanArgs<real>& a, long long tile, real v, unsigned state) {
  const unsigned long long tag = static_cast<unsigned long long>(a.epoch << 2 | state) << 32;
  unsigned long long* status = a.status + tile;
  if constexpr (sizeof(real) == 4) {
    store_relaxed(status, tag | __float_as_uint(v));
  } else {
    __stcg((state == kTilePrefix ? a.inclusive : a.aggregate) + tile, v);
    __threadfence();  // the value before the flag
    store_relaxed(status, tag);
  }
}

// Waits until the tile has published something in this launch; returns its
// state and value.
template <class real>
__device__ __forceinline__ unsigned wait_for_tile(const ScanArgs<real>& a, long long tile, real& v) {
  const unsigned long long* status = a.status + tile;
  unsigned long long w;
  do w = load_relaxed(status);
  while ((w >> 34) != a.epoch);
  const unsigned state = static_cast<unsigned>(w >> 32) & 3u;
  if constexpr (sizeof(real) == 4) {
    v = __uint_as_float(static_cast<unsigned>(w));
  } else {
    __threadfence();  // the flag before the value
    v = __ldcg((state == kTilePrefix ? a.inclusive : a.aggregate) + tile);
  }
  return state;
}

// Inclusive scan across a warp, lane order = value order.
template <class B>
__device__ __forceinline__ typename B::real warp_inclusive_scan(typename B::real x, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const typename B::real y = __shfl_up_sync(kFullMask, x, d);
    if (lane >= d) x = B::combine(y, x);
  }
  return x;
}

// The combination of every tile of a row before `tile` (tiles first..tile-1),
// by one warp: lane k reads tile - 1 - k; the window stops at the nearest
// tile that has published its inclusive prefix, else slides 32 tiles back.
// The result is in every lane.
template <class B>
__device__ typename B::real look_back(const ScanArgs<typename B::real>& a, long long first, long long tile, int lane) {
  using real = typename B::real;
  real prefix = B::identity();
  for (long long newest = tile - 1;; newest -= 32) {
    const long long j = newest - lane;
    unsigned state = kTilePrefix;
    real v = B::identity();
    if (j >= first) state = wait_for_tile(a, j, v);
    const unsigned prefixes = __ballot_sync(kFullMask, state == kTilePrefix);
    const int stop = prefixes ? __ffs(prefixes) - 1 : 31;
    if (lane > stop) v = B::identity();
    // Ordered reduction: a higher lane holds an earlier tile, so it goes left.
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const real w = __shfl_down_sync(kFullMask, v, d);
      if (lane + d < 32) v = B::combine(w, v);
    }
    prefix = B::combine(__shfl_sync(kFullMask, v, 0), prefix);
    if (prefixes) return prefix;
  }
}

// Cache policy of the data (not the status): a scan reads and writes each
// value once, so streaming (evict-first) accesses are an option.
#ifndef GPEN_SCAN_STREAMING
#define GPEN_SCAN_STREAMING 1  // measured: +2-4 points of copy on y and z, +16 on one long row (bench/RESULTS.md)
#endif

// Asks the L2 for the line at p ahead of its use; loads nothing into registers.
__device__ __forceinline__ void prefetch_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

// N values of a run at p (aligned to W values) in accesses of W values.
template <int N, int W, class T>
__device__ __forceinline__ void load_vectors(const T* p, T* d) {
  using V = typename VectorOf<T, W>::type;
#pragma unroll
  for (int s = 0; s < N; s += W) {
    const V* q = reinterpret_cast<const V*>(p + s);
    unpack<T, W>(GPEN_SCAN_STREAMING ? __ldcs(q) : __ldg(q), d + s);
  }
}

template <int N, int W, class T>
__device__ __forceinline__ void store_vectors(T* p, const T* s) {
  using V = typename VectorOf<T, W>::type;
#pragma unroll
  for (int t = 0; t < N; t += W) {
    V* q = reinterpret_cast<V*>(p + t);
    if (GPEN_SCAN_STREAMING) __stcs(q, pack<T, W>(s + t));
    else *q = pack<T, W>(s + t);
  }
}

}  // namespace gpen
