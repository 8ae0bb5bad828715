// Scan along a strided axis in layers (kChained): the axis is cut into
// layers of kValuesPerThread steps, and a block scans one layer of
// kBlockX * kBlockY * kVectorX columns, a thread kVectorX columns. Blocks run
// layer after layer, each across every plane, so that the blocks in flight
// read one or two layers (along z, 8 to 16 whole planes), which DRAM serves
// at copy speed, where blocks walking the whole axis read a strip of every
// plane at once and fall short of it (bench/RESULTS.md, "eleventh session"
// and "thirteenth session").
//
// The running values pass from layer to layer through a carry a column
// group in global memory: the thread of layer l waits until layer l - 1 has
// published its group's running values, adds them, stores its steps and
// publishes its own. Each block loads its steps before it waits, and the
// block of the layer before was started a layer of blocks earlier, so the
// wait rarely costs anything. Carries are kept in the L2 (evict_last): as
// ordinary lines, the streaming data pushed them out to DRAM
// (bench/RESULTS.md, "thirteenth session").
#pragma once

#include "gpen/scan_column_steps.cuh"

namespace gpen {

// A column group's carry: the tag (epoch << 32 | the layer that may take it)
// and the group's running values packed in 8 bytes, written and read in one
// 16-byte access, so that a relaxed load sees both together (scan_common.cuh
// keeps a tile's status the same way).
struct ColumnCarry {
  unsigned long long tag, bits;
};

template <class real, int W>
__device__ __forceinline__ unsigned long long pack_carry(const real (&v)[W]) {
  static_assert(sizeof(real) * W <= 8, "a carry holds 8 bytes of values (the plan's limit)");
  if constexpr (sizeof(real) == 8) {
    return static_cast<unsigned long long>(__double_as_longlong(v[0]));
  } else {
    unsigned long long bits = 0;
#pragma unroll
    for (int w = 0; w < W; ++w) bits |= static_cast<unsigned long long>(__float_as_uint(v[w])) << (32 * w);
    return bits;
  }
}

template <class real, int W>
__device__ __forceinline__ void unpack_carry(unsigned long long bits, real (&v)[W]) {
  if constexpr (sizeof(real) == 8) {
    v[0] = __longlong_as_double(static_cast<long long>(bits));
  } else {
#pragma unroll
    for (int w = 0; w < W; ++w) v[w] = __uint_as_float(static_cast<unsigned>(bits >> (32 * w)));
  }
}

// The carries stay in the L2 (evict last) until the last layer has taken
// them; older GPUs than sm_80 get the plain accesses.
__device__ __forceinline__ void publish_carry(ColumnCarry* c, unsigned long long tag, unsigned long long bits) {
  arch::store_relaxed_kept(c, tag, bits, arch::evict_last_policy());
}

// Waits until the carry holds `tag`; returns its values' bits.
__device__ __forceinline__ unsigned long long wait_for_carry(const ColumnCarry* c, unsigned long long tag) {
  const unsigned long long policy = arch::evict_last_policy();
  unsigned long long seen, bits;
  do arch::load_relaxed_kept(c, seen, bits, policy);
  while (seen != tag);
  return bits;
}

// The last layer has taken its carries: their lines may leave the L2 like
// any other, rather than crowd the kernels that follow.
__device__ __forceinline__ void release_carry_line(const ColumnCarry* c) { arch::evict_normal(c); }

template <class B>
__device__ void scan_column_layers(const ScanArgs<typename B::real>& a) {
  using real = typename B::real;
  constexpr int T = B::kBlockX, R = B::kBlockY, V = B::kValuesPerThread, W = B::kVectorX;
  constexpr long long kCarriesPerLine = 128 / sizeof(ColumnCarry);
  const long long blocks = (a.inner + T * W * R - 1) / (T * W * R);  // blocks per layer of a plane
  const long long layers = a.layers;  // the host's ceil(length / V), > 1
  // Layer after layer, each across every plane: a block's predecessor in its
  // columns is a whole layer of blocks earlier. (Plane after plane, the
  // blocks of a narrow plane wait on each other, as along y of 512^3 with
  // one block a layer of a plane: bench/RESULTS.md, "thirteenth session".)
  // A block waits only on blocks of lower index, which the GPU dispatches
  // first, as the rows look-back assumes too (scan_rows.cuh).
  const long long b = blockIdx.x, layer = b / (blocks * a.outer), plane = b / blocks % a.outer;
  const long long group = (plane_tile(a, b % blocks, blocks) * R + threadIdx.y) * T + threadIdx.x;
  const long long c0 = group * W;
  if (c0 >= a.inner) return;  // no barrier follows
  const int columns = static_cast<int>(a.inner - c0 < W ? a.inner - c0 : W);
  const long long p0 = layer * V;
  const bool whole = a.inner % W == 0 && p0 + V <= a.length;  // then columns == W and every access is aligned
  const real* src = a.in + plane * a.length * a.inner + c0;
  real* dst = a.out + plane * a.length * a.inner + c0;
  const long long slot = plane * ((a.inner + W - 1) / W) + group;  // a carry a column group of a plane
  ColumnCarry* carry = reinterpret_cast<ColumnCarry*>(a.status) + slot;
  const unsigned long long epoch = static_cast<unsigned long long>(a.epoch) << 32;

  real x[V][W];
  if (whole) load_column_steps<B, V, true>(a, src, p0, columns, x);
  else load_column_steps<B, V, false>(a, src, p0, columns, x);
  real run[W];
  if (layer == 0) {
#pragma unroll
    for (int w = 0; w < W; ++w) run[w] = B::identity();
  } else {
    unpack_carry<real, W>(wait_for_carry(carry, epoch | layer), run);
  }
  if (whole) store_column_steps<B, V, true>(a, dst, p0, columns, x, run);
  else store_column_steps<B, V, false>(a, dst, p0, columns, x, run);
  if (layer + 1 < layers) publish_carry(carry, epoch | (layer + 1), pack_carry<real, W>(run));
  else if (layer > 0 && slot % kCarriesPerLine == 0) release_carry_line(carry);
}

}  // namespace gpen
