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
//   kChained                              columns layout: the axis in layers, carries between them (scan_column_layers.cuh)
//   kExclusive, kReverse                  the scan's direction and kind
//   identity(), combine(a, b)             the operation; combine is associative,
//                                         a is on the left (earlier values)
#pragma once

#include "gpen/arch/relaxed.cuh"
#include "gpen/math.cuh"
#include "gpen/stencil_vector.cuh"
#include "gpen/scan_args.h"

namespace gpen {

constexpr unsigned kFullMask = 0xffffffffu;

constexpr unsigned kTileAggregate = 1, kTilePrefix = 2;

// Tile status: the state (aggregate or inclusive prefix, tagged with the
// launch's epoch) and the value, written and read in one access, so that one
// relaxed load per look-back lane sees both together and needs no fence.
// float: one 8-byte word, (epoch << 2 | state) << 32 | value bits. double:
// a 16-byte pair {tag, value bits}, as CUB's tile status holds 8-byte values;
// an aligned 16-byte access is one transaction. (Value and flag in two words
// ordered by fences were much slower on one long float64 row:
// bench/RESULTS.md, "seventh session".)
template <class real>
__device__ __forceinline__ void store_status(unsigned long long* p, unsigned long long tag, real v) {
  if constexpr (sizeof(real) == 4) arch::store_relaxed(p, tag << 32 | __float_as_uint(v));
  else arch::store_relaxed(p, tag, static_cast<unsigned long long>(__double_as_longlong(v)));
}

// The tag (epoch << 2 | state) and value of the status at p.
template <class real>
__device__ __forceinline__ unsigned long long load_status(const unsigned long long* p, real& v) {
  unsigned long long tag, bits;
  if constexpr (sizeof(real) == 4) {
    bits = arch::load_relaxed(p);
    tag = bits >> 32;
    v = __uint_as_float(static_cast<unsigned>(bits));
  } else {
    arch::load_relaxed(p, tag, bits);
    v = __longlong_as_double(static_cast<long long>(bits));
  }
  return tag;
}

// The first status word of a tile: sizeof(real) / 4 words a tile.
template <class real>
__device__ __forceinline__ unsigned long long* tile_status(const ScanArgs<real>& a, long long tile) {
  return a.status + tile * (sizeof(real) / 4);
}

// Publishes a tile's aggregate or inclusive prefix.
template <class real>
__device__ __forceinline__ void publish(const ScanArgs<real>& a, long long tile, real v, unsigned state) {
  store_status(tile_status(a, tile), a.epoch << 2 | state, v);
}

// Waits until the tile has published something in this launch; returns its
// state and value.
template <class real>
__device__ __forceinline__ unsigned wait_for_tile(const ScanArgs<real>& a, long long tile, real& v) {
  const unsigned long long* status = tile_status(a, tile);
  unsigned long long tag;
  do tag = load_status(status, v);
  while ((tag >> 2) != a.epoch);
  return static_cast<unsigned>(tag) & 3u;
}

// Where the scan's p-th value (in scan order) is stored along its axis of n
// values: a reverse scan starts at the end.
template <class B>
__device__ __forceinline__ long long stored_index(long long n, long long p) {
  return B::kReverse ? n - 1 - p : p;
}

// The lowest stored index of the run of S values at scan positions p .. p + S - 1.
template <class B>
__device__ __forceinline__ long long stored_run(long long n, long long p, int S) {
  return B::kReverse ? n - p - S : p;
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
#define GPEN_SCAN_STREAMING 1  // streaming won on y, z and one long row (bench/RESULTS.md, "third session")
#endif

using arch::prefetch_l2;

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
