// Scan along a strided axis (y or z): each thread carries the running values
// of kVectorX neighbouring columns in registers and walks the axis, so that
// a warp reads and writes whole rows of x (coalesced, kVectorX values an
// access). kValuesPerThread steps are loaded before any is combined, to keep
// that many accesses in flight per thread.
//
// kBlockY > 1 stacks groups of threads along the axis: group r takes steps
// r V .. r V + V - 1 of each stretch, and the groups' folds meet in shared
// memory. A block then covers a tall part of its columns at once, so that
// the blocks in flight cover a few whole planes rather than the same rows
// of many planes: cumsum along y of 512^3 float64 went from 94% to 99% of
// copy, and rows of 520 values from 86% to 97% (bench/RESULTS.md).
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

// One batch of K steps from p0: loaded, then combined and stored.
template <class B, int K, bool kWhole>
__device__ __forceinline__ void scan_column_steps(const ScanArgs<typename B::real>& a, const typename B::real* src, typename B::real* dst,
                                                  long long p0, int columns, typename B::real (&run)[B::kVectorX]) {
  typename B::real x[K][B::kVectorX];
  load_column_steps<B, K, kWhole>(a, src, p0, columns, x);
  store_column_steps<B, K, kWhole>(a, dst, p0, columns, x, run);
}

// kBlockY groups of threads: a.along of them stacked along the axis, the
// rest side by side across the columns (the host shortens the stack on a
// short axis). Per stretch of a.along V steps: each thread loads its
// group's V steps and folds them, the folds go through shared memory (two
// buffers, so one barrier a stretch), and each group starts from the
// running values combined with the folds of the groups before it; every
// thread then moves `run` past the whole stretch.
template <class B>
__device__ void scan_column_groups(const ScanArgs<typename B::real>& a, const typename B::real* src, typename B::real* dst, bool mine,
                                   int columns, bool aligned) {
  using real = typename B::real;
  constexpr int T = B::kBlockX, R = B::kBlockY, V = B::kValuesPerThread, W = B::kVectorX;
  // At most 2 x 1024 threads x 16 bytes (vector_x <= 16 bytes, the plan's limits).
  static_assert(sizeof(real) * 2 * R * T * W <= 48 * 1024, "static shared memory limit");
  __shared__ real folds[2][R][T * W];  // [buffer][group along * across + group across][column]
  const int along = static_cast<int>(a.along), across = R / along;
  const int r = threadIdx.y / across, me = threadIdx.y;  // this group's place along the axis; its folds
  real run[W];
#pragma unroll
  for (int w = 0; w < W; ++w) run[w] = B::identity();
  int buffer = 0;
  for (long long p0 = 0; p0 < a.length; p0 += static_cast<long long>(along) * V, buffer ^= 1) {
    const long long g0 = p0 + static_cast<long long>(r) * V;  // this group's first step
    const bool whole = mine && aligned && g0 + V <= a.length;
    real x[V][W];
    if (whole) load_column_steps<B, V, true>(a, src, g0, columns, x);
    else load_column_steps<B, V, false>(a, src, g0, mine ? columns : 0, x);
    real start[W];
    if (along == 1) {
#pragma unroll
      for (int w = 0; w < W; ++w) start[w] = run[w];
    } else {
#pragma unroll
      for (int w = 0; w < W; ++w) {
        real fold = x[0][w];
#pragma unroll
        for (int k = 1; k < V; ++k) fold = B::combine(fold, x[k][w]);
        folds[buffer][me][threadIdx.x * W + w] = fold;
      }
      __syncthreads();
#pragma unroll
      for (int g = 0; g < R; ++g) {
        if (g >= along) break;
#pragma unroll
        for (int w = 0; w < W; ++w) {
          if (g == r) start[w] = run[w];
          run[w] = B::combine(run[w], folds[buffer][g * across + me % across][threadIdx.x * W + w]);
        }
      }
    }
    if (whole) store_column_steps<B, V, true>(a, dst, g0, columns, x, start);
    else if (mine) store_column_steps<B, V, false>(a, dst, g0, columns, x, start);
    if (along == 1) {
#pragma unroll
      for (int w = 0; w < W; ++w) run[w] = start[w];
    }
  }
}

template <class B>
__device__ void scan_columns(const ScanArgs<typename B::real>& a) {
  using real = typename B::real;
  constexpr int T = B::kBlockX, V = B::kValuesPerThread, W = B::kVectorX;
  const int across = B::kBlockY / static_cast<int>(a.along);  // groups side by side (1 unless kBlockY > 1)
  const long long groups = (a.inner + T * W * across - 1) / (T * W * across);  // blocks per plane
  const long long plane = blockIdx.x / groups;
  const long long c0 = (((blockIdx.x % groups) * across + threadIdx.y % across) * T + threadIdx.x) * W;
  const bool mine = c0 < a.inner;
  const int columns = static_cast<int>(!mine ? 0 : a.inner - c0 < W ? a.inner - c0 : W);
  const bool aligned = a.inner % W == 0;  // then columns == W and every access is aligned
  const real* src = a.in + plane * a.length * a.inner + c0;
  real* dst = a.out + plane * a.length * a.inner + c0;
  if constexpr (B::kBlockY > 1) {
    scan_column_groups<B>(a, src, dst, mine, columns, aligned);
  } else {
    if (!mine) return;
    real run[W];
#pragma unroll
    for (int w = 0; w < W; ++w) run[w] = B::identity();
    long long p0 = 0;
    if (aligned)
      for (; p0 + V <= a.length; p0 += V) scan_column_steps<B, V, true>(a, src, dst, p0, columns, run);
    for (; p0 < a.length; p0 += V) scan_column_steps<B, V, false>(a, src, dst, p0, columns, run);
  }
}

}  // namespace gpen
