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
// of many planes, and DRAM serves them at nearly copy speed (bench/RESULTS.md,
// "ninth session" and "tenth session").
//
// kChained cuts the axis into layers instead (scan_column_layers.cuh) where
// the host finds room for their carries in the L2.
#pragma once

#include "gpen/scan_column_layers.cuh"
#include "gpen/scan_column_steps.cuh"

namespace gpen {

// kBlockY groups of threads: `along` of them stacked along the axis, the
// rest side by side across the columns (the host shortens the stack on a
// short axis; kBlockY = 1 is one group walking the axis alone). Per stretch
// of along V steps: each thread loads its group's V steps; stacked groups
// fold them, the folds go through shared memory (two buffers, so one
// barrier a stretch), and each group starts from the running values
// combined with the folds of the groups before it, while every thread
// moves `run` past the whole stretch.
template <class B>
__device__ void walk_columns(const ScanArgs<typename B::real>& a) {
  using real = typename B::real;
  constexpr int T = B::kBlockX, R = B::kBlockY, V = B::kValuesPerThread, W = B::kVectorX;
  const int along = R == 1 ? 1 : static_cast<int>(a.along), across = R / along;
  const long long blocks = (a.inner + T * W * across - 1) / (T * W * across);  // blocks per plane
  const long long plane = blockIdx.x / blocks;
  const long long c0 = ((plane_tile(a, blockIdx.x % blocks, blocks) * across + threadIdx.y % across) * T + threadIdx.x) * W;
  const bool mine = c0 < a.inner;
  const int columns = static_cast<int>(!mine ? 0 : a.inner - c0 < W ? a.inner - c0 : W);
  const bool aligned = a.inner % W == 0;  // then columns == W and every access is aligned
  const real* src = a.in + plane * a.length * a.inner + c0;
  real* dst = a.out + plane * a.length * a.inner + c0;

  // At most 2 x 1024 threads x 16 bytes (vector_x <= 16 bytes, the plan's limits).
  static_assert(sizeof(real) * 2 * R * T * W <= 48 * 1024, "static shared memory limit");
  __shared__ real folds[2][R][T * W];  // [buffer][group along * across + group across][column]
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
    else load_column_steps<B, V, false>(a, src, g0, columns, x);
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
    if (along == 1) {  // one group: its stores moved `start` past the stretch
#pragma unroll
      for (int w = 0; w < W; ++w) run[w] = start[w];
    }
  }
}

// Chained units hold both kernels: the host walks the axis instead when the
// carries would crowd the L2 (ScanPlan::geometry).
template <class B>
__device__ void scan_columns(const ScanArgs<typename B::real>& a) {
  if constexpr (B::kChained) {
    if (a.layers > 1) return scan_column_layers<B>(a);
  }
  walk_columns<B>(a);
}

}  // namespace gpen
