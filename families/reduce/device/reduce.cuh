// gpen reduction templates: each result is the combination, over the
// interior points along the reduced axes, of an expression of the inputs
// at a point (stencil operators included).
//
// Deterministic: which points a thread combines, in which order, and the
// tree that combines threads, blocks and chunks depend on the launch's
// geometry (ReducePlan::geometry: the size and the tunables) alone, never
// on timing or on how many blocks are in flight; no atomics.
//
// A row is the nx points of one (j, k). The rows whose points combine into
// one result point (those along reduced y and z) are cut into chunks of
// rows_per_chunk rows; a block combines one chunk of one result row (x
// reduced: its whole rows, or a segment of x_segment points of rows longer
// than a chunk; x kept: block_x adjacent columns). With one chunk (and
// segment) a result point, a block writes the results; with more, each
// block writes its partial and reduce_final combines every result point's
// partials in a fixed tree.
//
// `B` is the bindings struct that the generator writes for one spec:
//   using real, acc;                   the inputs' type and the accumulator's (the results')
//   kNumIn, kNumOut, kNumParams        inputs, results, params
//   kBlockX, kBlockY, kBatch           threads along x and across rows; points a thread computes before it combines them
//   kReduceX, kReduceY, kReduceZ       which axes are reduced (an axis the spec lacks counts as reduced)
//   kInGhost[kNumIn][3]                ghost widths per axis
//   kInPitchOf[kNumIn]                 the field whose pitch each input's accesses use (its own)
//   template <class In> compute(const In& in, const real* p, acc* v)
//     where in.template at<F, DX, DY, DZ>() is input F at (i+DX, j+DY, k+DZ);
//   Ops::identity<R>(), Ops::combine<R>(a, b)   result R's operation: associative; combined in a
//                                      fixed tree, not in the points' order, so taken as commutative
#pragma once

#include "gpen/math.cuh"
#include "gpen/reduce_args.h"
#include "gpen/stencil_common.cuh"

namespace gpen {

template <class B>
using ReduceArgs = ReduceArgsOf<typename B::real, typename B::acc, B::kNumIn, B::kNumOut, B::kNumParams>;

// Every input at one point (i, j, k).
template <class B>
struct ReducePoint {
  using real = typename B::real;
  const ReduceArgs<B>& a;
  int i, j, k;

  template <int F, int DX, int DY, int DZ>
  __device__ __forceinline__ real at() const {
    return __ldg(a.in[F] + InGeometry<B, F>::at(a, i + DX, j + DY, k + DZ));
  }
};

// The (j, k) of row q of kept row `kept`.
template <class B>
__device__ __forceinline__ void reduce_row(const ReduceGeometryArgs& g, long long kept, long long q, int& j, int& k) {
  if constexpr (B::kReduceY && B::kReduceZ) {
    j = static_cast<int>(q % g.ny);
    k = static_cast<int>(q / g.ny);
  } else if constexpr (B::kReduceY) {
    j = static_cast<int>(q);
    k = static_cast<int>(kept);
  } else if constexpr (B::kReduceZ) {
    j = static_cast<int>(kept);
    k = static_cast<int>(q);
  } else {
    j = static_cast<int>(kept % g.ny);
    k = static_cast<int>(kept / g.ny);
  }
}

template <class B>
__device__ __forceinline__ void reduce_start(typename B::acc* run) {
  for_each_index<B::kNumOut>([&](auto r) {
    constexpr int R = decltype(r)::value;
    run[R] = B::Ops::template identity<R>();
  });
}

template <class B>
__device__ __forceinline__ void reduce_into(typename B::acc* run, const typename B::acc* v) {
  for_each_index<B::kNumOut>([&](auto r) {
    constexpr int R = decltype(r)::value;
    run[R] = B::Ops::template combine<R>(run[R], v[R]);
  });
}

// Row q of a kept row and its (j, k), stepped along without a division a step.
template <class B>
struct RowCursor {
  long long q;
  int j, k;

  __device__ __forceinline__ RowCursor(const ReduceGeometryArgs& g, long long kept, long long q0) : q(q0) { reduce_row<B>(g, kept, q0, j, k); }

  __device__ __forceinline__ void step(const ReduceGeometryArgs& g, int rows) {
    q += rows;
    if constexpr (B::kReduceY && B::kReduceZ) {
      j += rows;
      while (j >= g.ny) {
        j -= static_cast<int>(g.ny);
        ++k;
      }
    } else if constexpr (B::kReduceY) {
      j += rows;
    } else if constexpr (B::kReduceZ) {
      k += rows;
    }
  }
};

// reduce_args_copy: a kernel reads its argument block through a local copy,
// `const ReduceArgs<B> a = args`, never through a reference to the kernel
// parameter itself. A block of more than 128 bytes (the pitches made
// row_extrema's 168) read by reference is not split into values: every use
// of a member reads the parameter again, nothing computed from the members
// is shared or hoisted, and the compiled loop changes with it (row_extrema:
// each of a batch's guarded loads a branch of its own, waiting for its
// value before the next load was issued: 0.69x of the tree before
// pitches). The copy is split into values, read once (no local memory:
// every member is read at constant offsets), as a block of 128 bytes or
// less always was.

// Result R of the whole warp, in every lane (a fixed butterfly).
template <class B, int R>
__device__ __forceinline__ typename B::acc reduce_warp(typename B::acc v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = B::Ops::template combine<R>(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}

// Where result R's point lies in its array (keepdims, no ghosts, its
// pitches): column x (0 where x is reduced) of the kept row whose first
// row is (j, k); j and k count only along the axes a result keeps.
template <class B>
__device__ __forceinline__ long long result_at(const ReduceArgs<B>& a, int R, long long x, int j, int k) {
  return x + (B::kReduceY ? 0 : j * a.out_pitch[R][0]) + (B::kReduceZ ? 0 : k * a.out_pitch[R][1]);
}

// Result R at column x of kept row `kept` (first row (j, k)): the result
// itself, or its partial number `part`.
template <class B>
__device__ __forceinline__ void reduce_store(const ReduceArgs<B>& a, long long x, long long kept, int j, int k, long long part, int R,
                                             typename B::acc v) {
  if (a.g.partials == 1) a.out[R][result_at<B>(a, R, x, j, k)] = v;
  else a.partial[((B::kReduceX ? kept : kept * a.g.nx + x) * a.g.partials + part) * B::kNumOut + R] = v;
}

// The kernels read their arguments through a copy (reduce_args_copy).
template <class B>
__device__ void reduce_partials(const ReduceArgs<B>& args) {
  const ReduceArgs<B> a = args;  // reduce_args_copy
  using acc = typename B::acc;
  const ReduceGeometryArgs& g = a.g;
  const Extent n{static_cast<int>(g.nx), static_cast<int>(g.ny), static_cast<int>(g.nz)};
  const long long b = blockIdx.x;
  const long long x_block = b % g.x_blocks, chunk = (b / g.x_blocks) % g.chunks, kept = b / g.x_blocks / g.chunks;
  const long long q0 = chunk * g.rows_per_chunk;
  const long long q1 = q0 + g.rows_per_chunk < g.reduced_rows ? q0 + g.rows_per_chunk : g.reduced_rows;
  const int tx = threadIdx.x, ty = threadIdx.y;
  acc run[B::kNumOut];
  reduce_start<B>(run);
  // A thread's points, kBatch at a time: all computed before any is
  // combined, so that their loads are in flight together.
  acc v[B::kBatch][B::kNumOut];
  if constexpr (B::kReduceX) {
    // Rows, or the block's segment of them (x0 .. x1): a thread takes every
    // kBlockX-th point of every kBlockY-th row of the chunk, row after row.
    const int x0 = static_cast<int>(x_block * g.x_segment);
    const int x1 = static_cast<int>(x0 + g.x_segment < g.nx ? x0 + g.x_segment : g.nx);
    RowCursor<B> row(g, kept, q0 + ty);
    const int j0 = row.j, k0 = row.k;  // the result's row, where y and z are kept
    int i = x0 + tx;
    while (x0 + tx < x1 && row.q < q1) {
#pragma unroll
      for (int s = 0; s < B::kBatch; ++s) {
        if (row.q < q1) {
          B::compute(ReducePoint<B>{a, i, row.j, row.k}, a.params, v[s]);
          i += B::kBlockX;
          if (i >= x1) {
            i = x0 + tx;
            row.step(g, B::kBlockY);
          }
        } else {
          reduce_start<B>(v[s]);
        }
      }
#pragma unroll
      for (int s = 0; s < B::kBatch; ++s) reduce_into<B>(run, v[s]);
    }
    // The block's threads: warps, then the warps' results in warp 0.
    __shared__ acc warps[32];
    const int t = ty * B::kBlockX + tx, lane = t % 32, warp = t / 32;
    constexpr int kWarps = (B::kBlockX * B::kBlockY + 31) / 32;
    for_each_index<B::kNumOut>([&](auto r) {
      constexpr int R = decltype(r)::value;
      const acc w = reduce_warp<B, R>(run[R]);
      if (lane == 0) warps[warp] = w;
      __syncthreads();
      if (warp == 0) {
        const acc v = reduce_warp<B, R>(lane < kWarps ? warps[lane] : B::Ops::template identity<R>());
        if (lane == 0) reduce_store<B>(a, 0, kept, j0, k0, chunk * g.x_blocks + x_block, R, v);
      }
      __syncthreads();
    });
  } else {
    // Columns: a thread walks its column i through every kBlockY-th row of the chunk.
    const int i = static_cast<int>(x_block * B::kBlockX + tx);
    RowCursor<B> row(g, kept, q0 + ty);
    const int j0 = row.j, k0 = row.k;
    while (row.q < q1) {
#pragma unroll
      for (int s = 0; s < B::kBatch; ++s) {
        if (row.q < q1 && i < n.nx) B::compute(ReducePoint<B>{a, i, row.j, row.k}, a.params, v[s]);
        else reduce_start<B>(v[s]);
        row.step(g, B::kBlockY);
      }
#pragma unroll
      for (int s = 0; s < B::kBatch; ++s) reduce_into<B>(run, v[s]);
    }
    // The column's threads in the order of ty.
    __shared__ acc column[B::kBlockY][B::kBlockX];
    for_each_index<B::kNumOut>([&](auto r) {
      constexpr int R = decltype(r)::value;
      column[ty][tx] = run[R];
      __syncthreads();
      if (ty == 0 && i < n.nx) {
        acc v = column[0][tx];
        for (int y = 1; y < B::kBlockY; ++y) v = B::Ops::template combine<R>(v, column[y][tx]);
        reduce_store<B>(a, i, kept, j0, k0, chunk, R, v);
      }
      __syncthreads();
    });
  }
}

// Every result point's partials, a warp a point: lane l takes partials l, l + 32, ...
template <class B>
__device__ void reduce_final(const ReduceArgs<B>& args) {
  const ReduceArgs<B> a = args;  // reduce_args_copy
  using acc = typename B::acc;
  const ReduceGeometryArgs& g = a.g;
  const long long points = (B::kReduceX ? 1 : g.nx) * g.kept_rows;
  const long long point = static_cast<long long>(blockIdx.x) * (kReduceFinalThreads / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (point >= points) return;  // whole warps
  const long long x = B::kReduceX ? 0 : point % g.nx, kept = B::kReduceX ? point : point / g.nx;
  int j, k;
  reduce_row<B>(g, kept, 0, j, k);
  for_each_index<B::kNumOut>([&](auto r) {
    constexpr int R = decltype(r)::value;
    acc v = B::Ops::template identity<R>();
    for (long long c = lane; c < g.partials; c += 32) v = B::Ops::template combine<R>(v, a.partial[(point * g.partials + c) * B::kNumOut + R]);
    v = reduce_warp<B, R>(v);
    if (lane == 0) a.out[R][result_at<B>(a, R, x, j, k)] = v;
  });
}

}  // namespace gpen
