// gpen pairwise templates: every output at target i is the reduction over
// sources j of a formula of the pair. Sources are staged in shared memory a
// tile of kBlock at a time, one per thread, and every thread applies each
// staged source to its kTargetsPerThread targets, which stay in registers.
//
// `B` is the bindings struct that the generator writes for one spec:
//   using real;
//   kBlock, kTargetsPerThread, kUnroll, kBuffers, kSourceSlices,
//   kTargetLanes, kFlagChunk             tunables
//   kOutputs                             outputs (accumulators a target)
//   kSkipSelf                            leave out the pair i == j
//   kDims, kCellBlock                    grids: axes; blocks: a cell block's side
//   Target, Source                       the values each end of a pair reads
//   Params                               the spec's params in `real`
//   load_target(a, i), load_source(a, j), params(a)
//   init(acc), pair(t, s, p, acc), store(a, i, acc)
//   kFlaggedPair, and where true terms(t, s, p, v, slow), accumulate(acc, v)
//                                        the pair without IEEE branches (pair_targets_with)
//   combine(o, x, y)                     output o's reduction of two partial results
#pragma once

#include "gpen/math.cuh"
#include "gpen/pairwise_args.h"

namespace gpen {

// A grid cell's coordinates from its linear index (x fastest).
__device__ __forceinline__ void pair_cell(const PairArgs& a, long long i, long long (&c)[3]) {
  c[0] = i % a.grid[0];
  const long long rest = i / a.grid[0];
  c[1] = rest % a.grid[1];
  c[2] = rest / a.grid[1];
}

// Applies the C staged sources s[0], s[stride], .. s[(C-1) stride] to the
// thread's P targets, in that order. Bindings with a flagged pair (float64
// IEEE sqrt, division and exp without their branches, math.cuh) compute
// the terms of every target and source and test once: the operations of
// the C sources' P pairs interleave in one stretch of code, with no branch
// between them. Where an argument lies outside the common case (rare: a
// zero distance, an underflowing exp) the accumulators go back to where
// they were and the branching pair() is evaluated instead. Either way
// pair()'s results, added in the same order.
template <class B, int C = 1>
__device__ __forceinline__ void pair_targets_with(const typename B::Target (&t)[B::kTargetsPerThread], const typename B::Source* s, int stride,
                                                  const typename B::Params& prm,
                                                  typename B::real (&acc)[B::kTargetsPerThread][B::kOutputs]) {
  constexpr int P = B::kTargetsPerThread;
  if constexpr (B::kFlaggedPair) {
    typename B::real before[P][B::kOutputs];
#pragma unroll
    for (int p = 0; p < P; ++p)
#pragma unroll
      for (int o = 0; o < B::kOutputs; ++o) before[p][o] = acc[p][o];
    bool slow = false;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const typename B::Source sc = s[c * stride];
      typename B::real v[P][B::kOutputs];
#pragma unroll
      for (int p = 0; p < P; ++p) B::terms(t[p], sc, prm, v[p], slow);
#pragma unroll
      for (int p = 0; p < P; ++p) B::accumulate(acc[p], v[p]);
    }
    if (__builtin_expect(slow, 0)) {
#pragma unroll
      for (int p = 0; p < P; ++p)
#pragma unroll
        for (int o = 0; o < B::kOutputs; ++o) acc[p][o] = before[p][o];
#pragma unroll
      for (int c = 0; c < C; ++c)
#pragma unroll
        for (int p = 0; p < P; ++p) B::pair(t[p], s[c * stride], prm, acc[p]);
    }
  } else {
#pragma unroll
    for (int c = 0; c < C; ++c)
#pragma unroll
      for (int p = 0; p < P; ++p) B::pair(t[p], s[c * stride], prm, acc[p]);
  }
}

// Sources a flagged pair tests together (pair_targets_with): kFlagChunk
// where it divides a tile's steps, else one.
template <class B, int kSteps>
__host__ __device__ constexpr int pair_flag_chunk() {
  return B::kFlaggedPair && kSteps % B::kFlagChunk == 0 ? B::kFlagChunk : 1;
}

// Applies the `count` sources index(0 .. count-1) to the P targets whose
// indices are `ti`, a shared-memory tile at a time. `maybe_self(k0, n)`
// says whether sources k0 .. k0+n-1 may include a target of the block;
// only such tiles test i == j (kSkipSelf).
//
// kBuffers 1: one tile, two barriers a tile (the previous one consumed,
// this one stored). kBuffers 2: two tiles used in turn and the next
// source loaded into registers while this tile is applied, one barrier a
// tile: a thread stores tile b again two tiles later, after the barrier
// that every thread passes only once it has applied tile b.
//
// L lanes (grouped, small groups): the L neighbouring threads that share
// targets each take every L-th source of a tile, from their lane on;
// pair_lanes_fold combines their results.
template <class B, int L = 1, class Index, class MaybeSelf>
__device__ __forceinline__ void pair_sources(const PairArgs& a, const typename B::Params& prm, long long count, Index index,
                                             MaybeSelf maybe_self, const long long (&ti)[B::kTargetsPerThread],
                                             const typename B::Target (&t)[B::kTargetsPerThread],
                                             typename B::real (&acc)[B::kTargetsPerThread][B::kOutputs], typename B::Source* tiles) {
  constexpr int T = B::kBlock, P = B::kTargetsPerThread;
  constexpr int kSteps = T / L, kUnroll = B::kUnroll < kSteps ? B::kUnroll : kSteps;
  constexpr int C = pair_flag_chunk<B, kSteps>(), kChunkUnroll = kUnroll / C > 1 ? kUnroll / C : 1;
  const int lane = threadIdx.x % L;
  typename B::Source next;
  if (B::kBuffers == 2) {
    __syncthreads();  // an earlier call's last tile is consumed
    if (threadIdx.x < count) next = B::load_source(a, index(threadIdx.x));
  }
  int buffer = 0;
  for (long long k0 = 0; k0 < count; k0 += T) {
    typename B::Source* tile = tiles + buffer * T;
    if (B::kBuffers == 2) {
      if (k0 + threadIdx.x < count) tile[threadIdx.x] = next;
      __syncthreads();
      if (k0 + T + threadIdx.x < count) next = B::load_source(a, index(k0 + T + threadIdx.x));
      buffer ^= 1;
    } else {
      __syncthreads();  // the previous tile is consumed
      if (k0 + threadIdx.x < count) tile[threadIdx.x] = B::load_source(a, index(k0 + threadIdx.x));
      __syncthreads();
    }
    const int n = count - k0 < T ? static_cast<int>(count - k0) : T;
    if (n == T && !(B::kSkipSelf && maybe_self(k0, n))) {
#pragma unroll kChunkUnroll
      for (int k = 0; k < kSteps; k += C) pair_targets_with<B, C>(t, tile + k * L + lane, L, prm, acc);
    } else {
      // The ragged last tile, or one that may hold a target's own index.
      for (int k = lane; k < n; k += L) {
        const typename B::Source s = tile[k];
        const long long j = B::kSkipSelf ? index(k0 + k) : -1;
#pragma unroll
        for (int p = 0; p < P; ++p)
          if (!B::kSkipSelf || j != ti[p]) B::pair(t[p], s, prm, acc[p]);
      }
    }
  }
}

// The targets local[p] = first + p * kBlock / L + threadIdx.x / L below
// `end` (the rest repeat end - 1 and are not stored) at indices
// ti[p] = index(local[p]), their accumulators reset: with L lanes, L
// neighbouring threads share each target.
template <class B, int L = 1, class Index>
__device__ __forceinline__ void pair_targets(const PairArgs& a, long long first, long long end, Index index,
                                             long long (&local)[B::kTargetsPerThread], long long (&ti)[B::kTargetsPerThread],
                                             typename B::Target (&t)[B::kTargetsPerThread],
                                             typename B::real (&acc)[B::kTargetsPerThread][B::kOutputs]) {
#pragma unroll
  for (int p = 0; p < B::kTargetsPerThread; ++p) {
    local[p] = first + p * (B::kBlock / L) + threadIdx.x / L;
    ti[p] = index(local[p] < end ? local[p] : end - 1);
    t[p] = B::load_target(a, ti[p]);
    B::init(acc[p]);
  }
}

// The L lanes' results of their shared targets combined, in a butterfly
// of shuffles: every lane ends with the same values, in a fixed order.
// Every thread of the warp calls it.
template <class B, int L>
__device__ __forceinline__ void pair_lanes_fold(typename B::real (&acc)[B::kTargetsPerThread][B::kOutputs]) {
#pragma unroll
  for (int m = 1; m < L; m *= 2)
#pragma unroll
    for (int p = 0; p < B::kTargetsPerThread; ++p)
#pragma unroll
      for (int o = 0; o < B::kOutputs; ++o) acc[p][o] = B::combine(o, acc[p][o], __shfl_xor_sync(0xffffffffu, acc[p][o], m));
}

// Stores the results of the targets local[p] below `end`: into the outputs,
// or with `slices` > 1 as slice `slice`'s partial results
// a.partial[output][slice][target], which pairwise_fold combines. With L
// lanes, lane 0 of each target's.
template <class B, int L = 1>
__device__ __forceinline__ void pair_store(const PairArgs& a, const long long (&local)[B::kTargetsPerThread], long long end,
                                           const long long (&ti)[B::kTargetsPerThread],
                                           const typename B::real (&acc)[B::kTargetsPerThread][B::kOutputs], unsigned slice, unsigned slices) {
  typename B::real* partial = static_cast<typename B::real*>(a.partial);
#pragma unroll
  for (int p = 0; p < B::kTargetsPerThread; ++p)
    if (local[p] < end && threadIdx.x % L == 0) {
      if (B::kSourceSlices == 1 || slices == 1) B::store(a, ti[p], acc[p]);
      else
#pragma unroll
        for (int o = 0; o < B::kOutputs; ++o) partial[(static_cast<long long>(o) * slices + slice) * a.n_targets + ti[p]] = acc[p][o];
    }
}

// Every target against every source; a block owns kBlock * P consecutive
// targets. With gridDim.y slices (the host's choice when the targets alone
// make too few blocks to fill the GPU), block (x, y) takes slice y of the
// sources, whole tiles of them, and writes its partial results to
// a.partial[output][slice][target]; pairwise_fold combines them.
template <class B>
__device__ void pairwise_tile(const PairArgs& a) {
  constexpr int P = B::kTargetsPerThread, TP = B::kBlock * P;
  __shared__ typename B::Source tile[B::kBuffers * B::kBlock];
  const typename B::Params prm = B::params(a);
  const long long first = static_cast<long long>(blockIdx.x) * TP;
  // kSourceSlices 1: the code of one slice alone (gridDim.y is 1).
  const long long slice = B::kSourceSlices == 1 ? a.n_sources : (a.n_sources + gridDim.y * B::kBlock - 1) / (gridDim.y * B::kBlock) * B::kBlock;
  const long long lo = B::kSourceSlices == 1 ? 0 : min(a.n_sources, blockIdx.y * slice), hi = B::kSourceSlices == 1 ? a.n_sources : min(a.n_sources, lo + slice);
  long long local[P], ti[P];
  typename B::Target t[P];
  typename B::real acc[P][B::kOutputs];
  pair_targets<B>(a, first, a.n_targets, [](long long k) { return k; }, local, ti, t, acc);
  pair_sources<B>(
      a, prm, hi - lo, [=](long long k) { return lo + k; }, [&](long long k0, int n) { return lo + k0 < first + TP && first < lo + k0 + n; }, ti, t,
      acc, tile);
  pair_store<B>(a, local, a.n_targets, ti, acc, blockIdx.y, gridDim.y);
}

// Group g's targets from `first` on, chunks of kBlock * P / L targets
// gridDim.y chunks apart, against the sources lo .. hi of its ranges laid
// end to end; L lanes a target (pair_sources).
template <class B, int L>
__device__ __forceinline__ void pair_group_chunks(const PairArgs& a, const typename B::Params& prm, long long first, long long end, int r0,
                                                  int r1, long long lo, long long hi, unsigned slices, typename B::Source* tile) {
  constexpr int P = B::kTargetsPerThread, TP = B::kBlock * P / L;
  for (; first < end; first += static_cast<long long>(gridDim.y) * TP) {
    long long local[P], ti[P];
    typename B::Target t[P];
    typename B::real acc[P][B::kOutputs];
    pair_targets<B, L>(a, first, end, [](long long k) { return k; }, local, ti, t, acc);
    long long at = 0;  // where range r starts, end to end
    for (int r = r0; r < r1 && at < hi; ++r) {
      const long long b = a.source_ranges[2 * r], n = a.source_ranges[2 * r + 1] - b;
      const long long begin = b + max(0LL, lo - at), stop = b + min(n, hi - at);
      at += n;
      if (begin >= stop) continue;
      pair_sources<B, L>(
          a, prm, stop - begin, [=](long long k) { return begin + k; },
          [&](long long k0, int m) { return begin + k0 < first + TP && first < begin + k0 + m; }, ti, t, acc, tile);
    }
    pair_lanes_fold<B, L>(acc);
    pair_store<B, L>(a, local, end, ti, acc, blockIdx.z, slices);
  }
}

// pair_group_chunks with `lanes` lanes, from L up to kTargetLanes.
template <class B, int L>
__device__ __forceinline__ void pair_group_lanes(int lanes, const PairArgs& a, const typename B::Params& prm, long long first, long long end,
                                                 int r0, int r1, long long lo, long long hi, unsigned slices, typename B::Source* tile) {
  if constexpr (L < B::kTargetLanes) {
    if (lanes > L) {
      pair_group_lanes<B, 2 * L>(lanes, a, prm, first, end, r0, r1, lo, hi, slices, tile);
      return;
    }
  }
  pair_group_chunks<B, L>(a, prm, first, end, r0, r1, lo, hi, slices, tile);
}

// A block per target group and chunk of its targets: block (g, c, z) takes
// group g's targets kBlock * P at a time from chunk c on (gridDim.y chunks
// apart), against slice z of the group's sources: its ranges laid end to
// end and cut into gridDim.z slices of whole tiles (each range's part of
// the slice in turn). With slices, partial results as the tile writes them.
// A group that fits in half a chunk or less shares each target among L
// lanes, L the most (up to kTargetLanes) whose chunk of kBlock * P / L
// targets still holds the group, so the block's threads stay busy on
// small groups.
template <class B>
__device__ void pairwise_grouped(const PairArgs& a) {
  constexpr int P = B::kTargetsPerThread, TP = B::kBlock * P;
  __shared__ typename B::Source tile[B::kBuffers * B::kBlock];
  const typename B::Params prm = B::params(a);
  const long long g = blockIdx.x;
  const long long end = a.target_groups[g + 1];
  const long long first = a.target_groups[g] + static_cast<long long>(blockIdx.y) * TP;
  // A chunk past a smaller group's end: the whole block leaves (no barrier passed yet).
  if (first >= end) return;
  const int r0 = a.range_offsets[g], r1 = a.range_offsets[g + 1];
  const unsigned slices = B::kSourceSlices == 1 ? 1 : gridDim.z;
  long long lo = 0, hi = 0;  // the slice, in the group's sources end to end
  for (int r = r0; r < r1; ++r) hi += a.source_ranges[2 * r + 1] - a.source_ranges[2 * r];
  if (slices > 1) {
    const long long slice = (hi + slices * B::kBlock - 1) / (slices * B::kBlock) * B::kBlock;
    lo = min(hi, blockIdx.z * slice);
    hi = min(hi, lo + slice);
  }
  int lanes = 1;
  while (lanes < B::kTargetLanes && (end - a.target_groups[g]) * 2 * lanes <= TP) lanes *= 2;
  pair_group_lanes<B, 1>(lanes, a, prm, first, end, r0, r1, lo, hi, slices, tile);
}

// A cell block: its first cell's coordinates and its extent, clipped at the grid's edge.
struct PairCellBlock {
  long long first[3];
  long long extent[3];
  __device__ __forceinline__ long long cells() const { return extent[0] * extent[1] * extent[2]; }
  // The linear grid index of the block's k-th cell (x fastest).
  __device__ __forceinline__ long long cell(const PairArgs& a, long long k) const {
    const long long x = k % extent[0], rest = k / extent[0];
    const long long y = rest % extent[1], z = rest / extent[1];
    return (first[0] + x) + a.grid[0] * ((first[1] + y) + a.grid[1] * (first[2] + z));
  }
};

template <class B>
__device__ __forceinline__ PairCellBlock pair_cell_block(const PairArgs& a, const long long (&b)[3]) {
  PairCellBlock c;
#pragma unroll
  for (int ax = 0; ax < 3; ++ax) {
    const long long side = ax < B::kDims ? B::kCellBlock : 1;
    c.first[ax] = b[ax] * side;
    c.extent[ax] = a.grid[ax] - c.first[ax] < side ? a.grid[ax] - c.first[ax] : side;
  }
  return c;
}

// Block on block (seed 000): blockIdx.x is the sink block, blockIdx.y the
// source block within the pencil a.pencil. Each sink cell's partial result
// over the source block goes to a.partial[output][blockIdx.y][cell].
template <class B>
__device__ void pairwise_blocks(const PairArgs& a) {
  using real = typename B::real;
  constexpr int P = B::kTargetsPerThread, TP = B::kBlock * P;
  __shared__ typename B::Source tile[B::kBuffers * B::kBlock];
  const typename B::Params prm = B::params(a);
  const long long kx = (a.grid[0] + B::kCellBlock - 1) / B::kCellBlock;
  const long long ky = B::kDims > 1 ? (a.grid[1] + B::kCellBlock - 1) / B::kCellBlock : 1;
  const long long sb = blockIdx.x;
  const long long sink_b[3] = {sb % kx, (sb / kx) % ky, sb / (kx * ky)};
  const long long source_b[3] = {blockIdx.y, a.pencil[0], a.pencil[1]};
  const PairCellBlock sink = pair_cell_block<B>(a, sink_b), source = pair_cell_block<B>(a, source_b);
  const bool same = sink_b[0] == source_b[0] && sink_b[1] == source_b[1] && sink_b[2] == source_b[2];
  const long long n_cells = a.grid[0] * a.grid[1] * a.grid[2];
  real* partial = static_cast<real*>(a.partial);
  for (long long first = 0; first < sink.cells(); first += TP) {
    long long local[P], ti[P];
    typename B::Target t[P];
    real acc[P][B::kOutputs];
    pair_targets<B>(a, first, sink.cells(), [&](long long k) { return sink.cell(a, k); }, local, ti, t, acc);
    pair_sources<B>(
        a, prm, source.cells(), [&](long long k) { return source.cell(a, k); }, [&](long long, int) { return same; }, ti, t, acc, tile);
#pragma unroll
    for (int p = 0; p < P; ++p)
      if (local[p] < sink.cells())
#pragma unroll
        for (int o = 0; o < B::kOutputs; ++o) partial[(static_cast<long long>(o) * gridDim.y + blockIdx.y) * n_cells + ti[p]] = acc[p][o];
  }
}

// A thread a cell: folds `count` partial results of every output.
template <class B>
__device__ void pairwise_fold(const PairFoldArgs& f) {
  using real = typename B::real;
  const long long c = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= f.cells) return;
  const real* partial = static_cast<const real*>(f.partial);
#pragma unroll
  for (int o = 0; o < B::kOutputs; ++o) {
    real* dest = f.running ? static_cast<real*>(f.running) + o * f.running_stride + c : static_cast<real*>(f.out[o]) + c;
    real v = f.accumulate ? *dest : B::identity(o);
    for (long long k = 0; k < f.count; ++k) v = B::combine(o, v, partial[(o * f.count + k) * f.cells + c]);
    *dest = v;
  }
}

}  // namespace gpen
