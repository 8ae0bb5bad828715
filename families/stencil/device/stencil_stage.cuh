// Strategy "stage": the x-y planes of every input, halos and corners
// included, staged in shared memory, so that a thread's registers hold its
// arithmetic and no copies of its neighbours. A block owns a tile of
// kBlockX x kBlockY kRowsY points and walks its share of the planes along z
// (nz split evenly over gridDim.z; see the grid below);
// for each input F it keeps a ring of 2 rz + 1 + kRingAhead plane tiles:
//   - the 2 rz + 1 planes the current step reads (k - rz .. k + rz), so that
//     every read, along an axis or off the axes (mixed derivatives), is one
//     shared-memory load at an offset known at compile time;
//   - kRingAhead planes beyond them in flight (cp.async): a step waits for
//     plane k + rz only, and the copies hold no registers while they fly.
// The register march and the "ring" of the march keep a queue and rows of
// neighbours in registers per input and offset: their registers grow with
// fields x offsets, which spills a fused kernel of many fields. Here they
// grow with the expression's temporaries only; a thread of kRowsY rows reads
// the y neighbours its rows share once (the loads are the same addresses).
//
// With kZQueue, a thread also keeps each input's values along its own
// column (planes k - rz .. k + rz) in a register queue: compute()'s reads
// along z cost no shared load, and one a step brings plane k + rz in: the
// float64 kernels of many fields are bound by shared-memory bandwidth
// (bench/RESULTS.md, "twentieth session"). Where no other read reaches the
// planes behind the centre (none off the column there, and none an
// intermediate is computed from), !kRingBehind keeps only planes
// k .. k + rz and those ahead: rz slots fewer a ring, so a block takes less
// shared memory. The queues then fill a plane a step: the block starts
// 2 kMaxRadiusZ warm steps before its first plane, steps that copy and
// push but compute nothing, as the later steps move them.
//
// Inputs of the same radius keep their rings interleaved (slot s of every
// input side by side), so that one address a plane serves every input's
// reads; inputs of the same tile and ghosts share each thread's copy cells
// (StageCells), computed once a block. With kPointRegisters, an input read
// at the point alone (radius 0 along every axis, as a time loop's
// registers are) has no ring: each thread loads its own value from global
// memory a plane ahead, and the others' rings neither count nor interleave
// with it.
//
// Per step, with D = kRingAhead >= 1: wait for this thread's copies of plane
// k + rz, one barrier (the copies of every thread visible; every thread done
// with the oldest slot), the copies of plane k + rz + D into that slot, then
// the outputs of plane k. With D = 0 the copies of plane k + rz are waited
// for at once, behind a second barrier.
//
// Mixed derivatives in two passes (B::kNumMid > 0; mixed_passes 2, see
// families/stencil/stencil_mixed.hpp), with no block barrier: an
// intermediate read along x (D1(u, y) of D1(D1(u, y), x)) is computed by
// each warp for its own rows of points and their reach along x into
// shared memory, behind a __syncwarp; one read along z (D1(u, y) of
// D1(D1(u, y), z)) is kept by each thread for its column in a register
// queue, one new value a step from the plane k + reach. compute() reads
// them with in.mid<G, DX, 0, DZ>().
//
// Cells of a tile outside the array (a block past nx or ny) are not copied,
// and no stored point reads them: a stored point's reads stay within its
// ghost zones (a thread's row past ny is computed from them, since its rows
// share their loads, and not stored). Threads past the interior still copy
// and pass the barriers.
// Dynamic shared memory: every input's ring and the warps' rows of the
// intermediates read along x (stage_values<B>() values).
// Grid: (ceil(nx / kBlockX), ceil(ny / (kBlockY kRowsY)), ceil(nz / walk)),
// the host's walk kPointsPerThread or, where the grid has blocks to spare,
// 2 or 4 times that (StencilPlan::launch); a block walks floor or ceil of
// nz / gridDim.z planes, so any grid covers the array.
#pragma once

#include "gpen/arch/cp_async.cuh"
#include "gpen/stencil_common.cuh"

namespace gpen {

// Whether input f has no ring (kPointRegisters and read at the point
// alone): each thread loads its value from global memory.
template <class B>
__host__ __device__ constexpr bool stage_in_registers(int f) {
  return B::kPointRegisters && B::kRadius[f][0] == 0 && B::kRadius[f][1] == 0 && B::kRadius[f][2] == 0;
}

// The staged inputs (those with a ring) before input F, and the first of
// them (B::kNumIn where none is).
template <class B>
__host__ __device__ constexpr int stage_rings_before(int f) {
  int n = 0;
  for (int g = 0; g < f; ++g) n += !stage_in_registers<B>(g);
  return n;
}
template <class B>
__host__ __device__ constexpr int stage_first_ring() {
  int f = 0;
  while (f < B::kNumIn && stage_rings_before<B>(f + 1) == 0) ++f;
  return f;
}

// Whether every staged input has the same radius: then their rings
// interleave (slot s of every one side by side), so that one address a
// plane serves every input's reads, each at a constant offset from it.
template <class B>
__host__ __device__ constexpr bool stage_rings_interleaved() {
  constexpr int f0 = stage_first_ring<B>();
  for (int f = f0 + 1; f < B::kNumIn; ++f) {
    if (stage_in_registers<B>(f)) continue;
    for (int a = 0; a < 3; ++a)
      if (B::kRadius[f][a] != B::kRadius[f0][a]) return false;
  }
  return true;
}

// Input F's plane tile and its ring of slots: slot s of F starts at value
// base() + s kSlotStride of the rings.
template <class B, int F>
struct StageTile {
  static constexpr int TX = B::kBlockX, TY = B::kBlockY * B::kRowsY;
  static constexpr int RX = B::kRadius[F][0], RY = B::kRadius[F][1], RZ = B::kRadius[F][2];
  static constexpr int W = TX + 2 * RX, H = TY + 2 * RY;
  static constexpr bool kDirect = stage_in_registers<B>(F);
  static constexpr int kPlane = kDirect ? 0 : W * H;
  static constexpr int kSlots = (B::kRingBehind ? 2 * RZ : RZ) + 1 + B::kRingAhead;
  static constexpr bool kInterleaved = stage_rings_interleaved<B>();
  static constexpr int kSlotStride = kInterleaved ? stage_rings_before<B>(B::kNumIn) * kPlane : kPlane;
  // Values before input F's slot 0: interleaved, the planes of the staged
  // inputs before it; else their whole rings.
  static __host__ __device__ constexpr int base() {
    if constexpr (kInterleaved) return stage_rings_before<B>(F) * kPlane;
    else if constexpr (F == 0) return 0;
    else return StageTile<B, F - 1>::base() + StageTile<B, F - 1>::kSlots * StageTile<B, F - 1>::kPlane;
  }
};

// Values of every input's ring (inputs F ..): its slots of its plane tiles.
template <class B, int F = 0>
__host__ __device__ constexpr int stage_ring_values() {
  if constexpr (F >= B::kNumIn) return 0;
  else return StageTile<B, F>::kSlots * StageTile<B, F>::kPlane + stage_ring_values<B, F + 1>();
}

// Intermediate G read along x (kMidAxis[G][0] == 0): each warp's rows of
// it, the rows of the points its threads own (kRowsY each) at the warp's
// columns and kReach columns either side. A warp computes and reads only
// its own (the plan asks block_x to be a multiple or a divisor of 32).
// Intermediates read along z take no shared memory (kValues 0).
template <class B, int G>
struct MidRows {
  static constexpr int kReach = B::kMidAxis[G][1];
  static constexpr int kWarpX = B::kBlockX < 32 ? B::kBlockX : 32;  // a warp's columns
  static constexpr int kRows = 32 / kWarpX * B::kRowsY;              // a warp's rows of points
  static constexpr int W = kWarpX + 2 * kReach;
  static constexpr int kCells = kRows * W;  // a warp's
  static constexpr int kValues = B::kMidAxis[G][0] == 0 ? B::kBlockX * B::kBlockY / 32 * kCells : 0;
  // Values before G's rows: every ring, the rows of intermediates 0 .. G-1.
  static __host__ __device__ constexpr int offset() {
    if constexpr (G == 0) return stage_ring_values<B>();
    else return MidRows<B, G - 1>::offset() + MidRows<B, G - 1>::kValues;
  }
};

// Every input's ring, then the intermediates' rows.
template <class B>
__host__ __device__ constexpr int stage_values() {
  if constexpr (B::kNumMid == 0) return stage_ring_values<B>();
  else return MidRows<B, B::kNumMid - 1>::offset() + MidRows<B, B::kNumMid - 1>::kValues;
}

// Whether some intermediate is read along x (rows of the warps; else no
// __syncwarp, and the block need not be whole warps).
template <class B>
__host__ __device__ constexpr bool stage_rows_of_mids() {
  for (int g = 0; g < B::kNumMid; ++g)
    if (B::kMidAxis[g][0] == 0) return true;
  return false;
}

// The longest reach of an intermediate read along z: its register queues'
// length is 2 kReach + 1 (1 when there is none).
template <class B>
__host__ __device__ constexpr int stage_z_reach() {
  int r = 0;
  for (int g = 0; g < B::kNumMid; ++g)
    if (B::kMidAxis[g][0] == 2 && B::kMidAxis[g][1] > r) r = B::kMidAxis[g][1];
  return r;
}

// Steps a block takes before its first plane: without the planes behind
// the centre (kRingBehind false), the queues fill one plane a step, from
// plane k0 - 2 kMaxRadiusZ on, as they move later.
template <class B>
__host__ __device__ constexpr int stage_warm_steps() {
  return B::kRingBehind ? 0 : 2 * B::kMaxRadiusZ;
}

// A thread's cells of input F's plane tile, the same in every plane: cell
// u kThreads + tid of the tile for each u, its offset from the tile's
// corner in input F's array, and whether it lies in the array (ghosts
// included). Cells of a tile past the array (a block past nx or ny) are not
// copied.
template <class B, int F>
struct StageCells {
  using T = StageTile<B, F>;
  static constexpr int kInput = F;
  static constexpr int kThreads = B::kBlockX * B::kBlockY;
  static constexpr int kChunks = T::kPlane > 0 ? (T::kPlane + kThreads - 1) / kThreads : 1;  // 1: no cell inside
  long long off[kChunks];
  bool inside[kChunks];
  __device__ __forceinline__ StageCells(const StencilArgs<B>& a, int I0, int J0, int tid) {
    const long long sy = InGeometry<B, F>::sy(a);
    const int cols = min(T::W, a.n.nx + B::kInGhost[F][0] - (I0 - T::RX));
    const int rows = min(T::H, a.n.ny + B::kInGhost[F][1] - (J0 - T::RY));
#pragma unroll
    for (int u = 0; u < kChunks; ++u) {
      const int t = u * kThreads + tid, r = t / T::W, c = t - r * T::W;
      off[u] = c + r * sy;
      inside[u] = t < T::kPlane && c < cols && r < rows;
    }
  }
};

// Whether every input has the same tile and ghosts: then one StageCells,
// computed once a block, serves every input's copies.
template <class B>
__host__ __device__ constexpr bool stage_cells_shared() {
  if (!stage_rings_interleaved<B>()) return false;
  constexpr int f0 = stage_first_ring<B>();
  for (int f = f0 + 1; f < B::kNumIn; ++f) {
    if (stage_in_registers<B>(f)) continue;
    for (int a = 0; a < 3; ++a)
      if (B::kInGhost[f][a] != B::kInGhost[f0][a]) return false;
  }
  return true;
}

// stage_copy's cells for an input whose row pitch is not the one `cells`
// were made for: rows and columns again, out of line, so that the common
// path keeps no registers for this one.
template <class B, int F, class Cells>
__device__ __noinline__ void stage_copy_pitched(typename B::real* slot, const typename B::real* corner, long long sy, const Cells& cells, int tid) {
  using T = StageTile<B, F>;
#pragma unroll
  for (int u = 0; u < Cells::kChunks; ++u) {
    const int t = u * Cells::kThreads + tid, r = t / T::W, c = t - r * T::W;
    if (cells.inside[u]) arch::copy_async<sizeof(typename B::real)>(slot + u * Cells::kThreads + tid, corner + c + r * sy);
  }
}

// The block's copies of plane p of input F into `slot`: cell (c, r) of the
// tile is the array's (I0 - RX + c, J0 - RY + r, p); `cells` this thread's,
// their offsets those of the input they were made for: where F's row pitch
// differs (the caller pads its arrays unalike), rows and columns again.
template <class B, int F, class Cells>
__device__ __forceinline__ void stage_copy(typename B::real* slot, const StencilArgs<B>& a, const Cells& cells, int I0, int J0, int p, int tid) {
  using T = StageTile<B, F>;
  static_assert(Cells::T::kPlane == T::kPlane && Cells::T::W == T::W, "the cells of this input's tile");
  const typename B::real* corner = a.in[F] + InGeometry<B, F>::at(a, I0 - T::RX, J0 - T::RY, p);
  const long long sy = InGeometry<B, F>::sy(a);
  if (F == Cells::kInput || sy == InGeometry<B, Cells::kInput>::sy(a)) {
#pragma unroll
    for (int u = 0; u < Cells::kChunks; ++u)
      if (cells.inside[u]) arch::copy_async<sizeof(typename B::real)>(slot + u * Cells::kThreads + tid, corner + cells.off[u]);
  } else {
    stage_copy_pitched<B, F, Cells>(slot, corner, sy, cells, tid);
  }
}

// Input values around point (cx, cy) of the tile (0 .. TX-1, 0 .. TY-1;
// beyond along x for an intermediate's reach), plane k + DZ0: `ring` holds
// every input's slots, `zslot[F]` is input F's slot of plane k.
// Shared-memory addresses are 32-bit offsets from `ring`, computed per read
// from constants and the point: no pointer a field and plane stays live in
// registers. (An input without a ring is read at the point alone, by
// StageReader, from a thread's registers.)
template <class B, int DZ0 = 0>
struct StagePoint {
  const typename B::real* ring;
  const int (&zslot)[B::kNumIn > 0 ? B::kNumIn : 1];
  int cx, cy;
  template <int F, int DX, int DY, int DZ>
  __device__ __forceinline__ typename B::real at() const {
    using T = StageTile<B, F>;
    constexpr int dz = DZ + DZ0;
    static_assert(!T::kDirect, "an input with a ring");
    static_assert(-T::RZ <= dz && dz <= T::RZ, "a plane of the ring");
    static_assert(B::kRingBehind || dz >= 0, "a plane the ring keeps (without kRingBehind, none behind the centre)");
    int slot = zslot[F] + dz;  // of plane k + dz, |dz| <= RZ < kSlots
    if constexpr (dz > 0) slot = slot >= T::kSlots ? slot - T::kSlots : slot;
    if constexpr (dz < 0) slot = slot < 0 ? slot + T::kSlots : slot;
    const int own = (T::RY + cy + DY) * T::W + T::RX + cx + DX;
    return ring[T::base() + slot * T::kSlotStride + own];
  }
};

// A thread's values of the inputs without a ring at its points (each of
// its rows) of plane k, and of plane k + 1 in flight: a load a plane ahead,
// as the rings' copies are, so that its latency hides behind a step.
template <class B>
using StageAtPoint = typename B::real[B::kNumIn > 0 ? B::kNumIn : 1][B::kRowsY];

// A thread's register queues of the intermediates read along z: for each
// intermediate and row of its points, the values at planes k - reach ..
// k + reach (unused entries cost nothing: every index is a constant).
template <class B>
using StageZQueues = typename B::real[B::kNumMid > 0 ? B::kNumMid : 1][B::kRowsY][2 * stage_z_reach<B>() + 1];

// With kZQueue, a thread's register queues of its inputs' columns: for each
// input and row, the values at planes k - rz .. k + rz (rz its radius
// along z, centred on kMaxRadiusZ), so that a read along z costs no shared
// load; one a step brings plane k + rz from the ring.
template <class B>
using StageColumns = typename B::real[B::kZQueue && B::kNumIn > 0 ? B::kNumIn : 1][B::kZQueue ? B::kRowsY : 1][B::kZQueue ? 2 * B::kMaxRadiusZ + 1 : 1];

// Moves the queue q[C - R .. C + R] of a column's values at planes
// k - R .. k + R to step s: all of them at the block's first step (kFill),
// else each down a plane and the one at k + R new. value(Index<DZ>{}) is
// the value at plane k + DZ. Without kFill the queue fills a plane a step
// (warm steps) and no plane behind k is read.
template <int R, int C, bool kFill, class real, int N, class Value>
__device__ __forceinline__ void stage_queue_step(real (&q)[N], int s, Value value) {
  static_assert(0 <= C - R && C + R < N, "the queue's planes");
  if (kFill && s == 0) {
    if constexpr (kFill)  // value() of a plane behind k compiles only with kFill
      for_each_index<2 * R>([&](auto j) {
        constexpr int J = decltype(j)::value;
        q[C - R + J] = value(Index<J - R>{});
      });
  } else {
    for_each_index<2 * R>([&](auto j) {
      constexpr int J = decltype(j)::value;
      q[C - R + J] = q[C - R + J + 1];
    });
  }
  q[C + R] = value(Index<R>{});
}

// What compute() reads at the thread's point in row PY of its rows: inputs
// and intermediates. (wrow, wcol): the point's row and column in its
// warp's rows of intermediates.
template <class B, int PY>
struct StageReader : StagePoint<B> {
  int warp, wrow, wcol;
  const StageZQueues<B>& zq;
  const StageColumns<B>& col;
  const StageAtPoint<B>& at_point;
  template <int F, int DX, int DY, int DZ>
  __device__ __forceinline__ typename B::real at() const {
    if constexpr (StageTile<B, F>::kDirect) {
      static_assert(DX == 0 && DY == 0 && DZ == 0, "an input without a ring is read at the point");
      return at_point[F][PY];
    } else if constexpr (B::kZQueue && DX == 0 && DY == 0) {
      static_assert(-B::kRadius[F][2] <= DZ && DZ <= B::kRadius[F][2], "a plane of the column's queue");
      return col[F][PY][B::kMaxRadiusZ + DZ];
    } else {
      return StagePoint<B>::template at<F, DX, DY, DZ>();
    }
  }
  template <int G, int DX, int DY, int DZ>
  __device__ __forceinline__ typename B::real mid() const {
    if constexpr (B::kMidAxis[G][0] == 0) {
      using M = MidRows<B, G>;
      static_assert(DY == 0 && DZ == 0 && -M::kReach <= DX && DX <= M::kReach, "an intermediate read along x, within its reach");
      return this->ring[M::offset() + warp * M::kCells + wrow * M::W + M::kReach + wcol + DX];
    } else {
      constexpr int R = B::kMidAxis[G][1];
      static_assert(DX == 0 && DY == 0 && -R <= DZ && DZ <= R, "an intermediate read along z, within its reach");
      return zq[G][PY][stage_z_reach<B>() + DZ];
    }
  }
};

template <class B>
__device__ __forceinline__ void stencil_stage(const StencilArgs<B>& a) {
  using real = typename B::real;
  constexpr int Y = B::kRowsY, D = B::kRingAhead;
  static_assert(B::kRingBehind || (B::kZQueue && stage_z_reach<B>() <= B::kMaxRadiusZ), "warm steps fill every queue");
  constexpr int kInputs = B::kNumIn > 0 ? B::kNumIn : 1;  // zslot's length
  extern __shared__ __align__(16) unsigned char gpen_stage_bytes[];
  real* ring = reinterpret_cast<real*>(gpen_stage_bytes);

  const int I0 = blockIdx.x * B::kBlockX, J0 = blockIdx.y * B::kBlockY * Y;
  const int i = I0 + threadIdx.x, j0 = J0 + threadIdx.y * Y;
  // The block's planes: nz split evenly over gridDim.z blocks. A grid of
  // more blocks than planes (not the host's) leaves some empty: they leave
  // before any barrier, as a whole block.
  const int k0 = static_cast<int>(static_cast<long long>(blockIdx.z) * a.n.nz / gridDim.z);
  const int k1 = static_cast<int>(static_cast<long long>(blockIdx.z + 1) * a.n.nz / gridDim.z);
  if (k0 >= k1) return;
  const bool active = i < a.n.nx && j0 < a.n.ny;
  // The thread's warp, lane, and the warp's first thread (intermediates).
  const int tid = threadIdx.y * B::kBlockX + threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int ty0 = warp * 32 / B::kBlockX, tx0 = warp * 32 % B::kBlockX;
  StageZQueues<B> zq;
  StageColumns<B> col;
  // Warm steps shift every queue before all of it is written: its values
  // must be set, or reading them is undefined, which the compiler may
  // exploit (an mhd_iso3d float64 unit computed wrong values without this).
  if constexpr (!B::kRingBehind) {
    for (auto& q : zq) for (auto& r : q) for (auto& v : r) v = real(0);
    for (auto& q : col) for (auto& r : q) for (auto& v : r) v = real(0);
  }
  // The inputs without a ring at the thread's points of plane k (loaded at
  // the end of the step before; 0 past the interior or the walk).
  StageAtPoint<B> at_point;
  auto load_at_point = [&](StageAtPoint<B>& v, int p) {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      if constexpr (StageTile<B, F>::kDirect) {
        for_each_index<Y>([&](auto py) {
          constexpr int PY = decltype(py)::value;
          v[F][PY] = i < a.n.nx && j0 + PY < a.n.ny && k0 <= p && p < k1 ? __ldg(a.in[F] + InGeometry<B, F>::at(a, i, j0 + PY, p)) : real(0);
        });
      }
    });
  };
  constexpr bool kAnyInRegisters = stage_rings_before<B>(B::kNumIn) < B::kNumIn;
  if constexpr (kAnyInRegisters) load_at_point(at_point, k0);

  // The first step's plane: k0, or warm steps before it.
  const int kb = k0 - stage_warm_steps<B>();
  // Input F's slot of plane kb + s - RZ .. (step s reads s - RZ .. s + RZ).
  auto slot = [&](auto f, int s) {
    constexpr int F = decltype(f)::value;
    using T = StageTile<B, F>;
    return ring + T::base() + s % T::kSlots * T::kSlotStride;
  };
  // Plane p of input F into its slot for step s.
  constexpr int kCellsOf = stage_first_ring<B>() < B::kNumIn ? stage_first_ring<B>() : 0;
  const StageCells<B, kCellsOf> cells(a, I0, J0, tid);  // every staged input's, where they are alike
  auto copy = [&](auto f, int s, int p) {
    constexpr int F = decltype(f)::value;
    if constexpr (StageTile<B, F>::kDirect) return;  // read at the point, from global memory
    else if constexpr (stage_cells_shared<B>()) stage_copy<B, F>(slot(f, s), a, cells, I0, J0, p, tid);
    else stage_copy<B, F>(slot(f, s), a, StageCells<B, F>(a, I0, J0, tid), I0, J0, p, tid);
  };
  // Copies of plane kb + s + RZ of every input that a step still reads
  // (none below k0 - RZ: warm steps read no plane below it that counts).
  auto copy_planes = [&](int s) {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int rz = StageTile<B, decltype(f)::value>::RZ;
      if (kb + s < k1 && (B::kRingBehind || kb + s + rz >= k0 - rz)) copy(f, s + 2 * rz, kb + s + rz);
    });
  };

  // Prologue: planes k0 - rz .. k0 + rz in one group (all that step 0
  // reads; with D = 0 the last of them is left to step 0), then one group
  // a plane up to D - 1 planes further.
  for_each_index<B::kNumIn>([&](auto f) {
    constexpr int F = decltype(f)::value;
    constexpr int rz = StageTile<B, F>::RZ;
    for (int p = B::kRingBehind ? -rz : 0; p < rz + (D > 0 ? 1 : 0); ++p)
      if (B::kRingBehind || kb + p >= k0 - rz) copy(f, p + rz, kb + p);
  });
  arch::copy_async_commit();
#pragma unroll
  for (int s = 1; s < D; ++s) {
    copy_planes(s);
    arch::copy_async_commit();
  }

  auto step = [&](int k) {
    const int s = k - kb;  // steps since the block's first step
    const bool warm = !B::kRingBehind && k < k0;  // a step that fills the queues only
    if constexpr (D > 0) {
      arch::copy_async_wait<D - 1>();
      __syncthreads();
      copy_planes(s + D);
      arch::copy_async_commit();
    } else {
      __syncthreads();  // every thread done with the slot plane k + rz goes to
      copy_planes(s);
      arch::copy_async_commit();
      arch::copy_async_wait<0>();
      __syncthreads();
    }
    int zslot[kInputs];  // each input's slot of plane k
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      zslot[F] = (s + StageTile<B, F>::RZ) % StageTile<B, F>::kSlots;
    });
    if constexpr (B::kNumMid > 0) {
      for_each_index<B::kNumMid>([&](auto g) {
        constexpr int G = decltype(g)::value;
        if constexpr (B::kMidAxis[G][0] == 0) {
          if (warm) return;
          // The warp's rows at plane k. Cells whose reads would leave the
          // copied tile (past the array's ghosts) are not computed: no
          // stored point reads them.
          // Unrolled, so that the loads of every pass and intermediate may
          // be in flight together.
          using M = MidRows<B, G>;
#pragma unroll
          for (int u0 = 0; u0 < M::kCells; u0 += 32) {
            const int u = u0 + lane;
            const int r = u / M::W, cx = tx0 - M::kReach + (u - r * M::W), cy = ty0 * Y + r;
            if (u < M::kCells && I0 + cx < a.n.nx + M::kReach && J0 + cy < a.n.ny)
              ring[M::offset() + warp * M::kCells + u] = B::template mid<G>(StagePoint<B>{ring, zslot, cx, cy});
          }
        } else {
          // The column's queue of the intermediate.
          for_each_index<Y>([&](auto py) {
            constexpr int PY = decltype(py)::value;
            const int cy = static_cast<int>(threadIdx.y) * Y + PY;
            stage_queue_step<B::kMidAxis[G][1], stage_z_reach<B>(), B::kRingBehind>(zq[G][PY], s, [&](auto dz) {
              return B::template mid<G>(StagePoint<B, decltype(dz)::value>{ring, zslot, static_cast<int>(threadIdx.x), cy});
            });
          });
        }
      });
      if constexpr (stage_rows_of_mids<B>()) __syncwarp();  // the warp's rows written before its threads read them
    }
    if (active) {
      // Every row's values first, then the stores: the loads the rows share
      // (y neighbours, the same shared addresses) are one load, which a
      // store through a generic pointer between them would forbid. A row
      // past the interior (ny not a multiple of the tile) reads cells of the
      // tile that were not copied and is not stored.
      if constexpr (B::kZQueue) {
        for_each_index<Y>([&](auto py) {
          constexpr int PY = decltype(py)::value;
          const int cy = static_cast<int>(threadIdx.y) * Y + PY;
          for_each_index<B::kNumIn>([&](auto f) {
            constexpr int F = decltype(f)::value;
            if constexpr (!StageTile<B, F>::kDirect)
            stage_queue_step<B::kRadius[F][2], B::kMaxRadiusZ, B::kRingBehind>(col[F][PY], s, [&](auto dz) {
              return StagePoint<B, decltype(dz)::value>{ring, zslot, static_cast<int>(threadIdx.x), cy}.template at<F, 0, 0, 0>();
            });
          });
        });
      }
      if (warm) return;
      real v[Y][B::kNumOut];
      for_each_index<Y>([&](auto py) {
        constexpr int PY = decltype(py)::value;
        const int cy = static_cast<int>(threadIdx.y) * Y + PY;
        const StageReader<B, PY> in{{ring, zslot, static_cast<int>(threadIdx.x), cy},
                                    warp, (static_cast<int>(threadIdx.y) - ty0) * Y + PY, static_cast<int>(threadIdx.x) - tx0, zq, col, at_point};
        B::compute(in, a.params, v[PY]);
      });
      for_each_index<Y>([&](auto py) {
        constexpr int PY = decltype(py)::value;
        if (j0 + PY < a.n.ny) {
          for_each_index<B::kNumOut>([&](auto o) {
            constexpr int O = decltype(o)::value;
            real* at = a.out[O] + OutGeometry<B, O>::at(a, i, j0 + PY, k);
            if constexpr (B::kStreamStores) __stcs(at, v[PY][O]);
            else *at = v[PY][O];
            store_images<B, O>(a, at, i, j0 + PY, k, v[PY][O]);
          });
        }
      });
    }
  };
  if constexpr (kAnyInRegisters) {
#pragma unroll 1
    for (int k = kb; k < k1; ++k) {
      step(k);
      load_at_point(at_point, k + 1);  // in flight through the next step's barrier and copies
    }
  } else {
#pragma unroll 1
    for (int k = kb; k < k1; ++k) step(k);
  }
  arch::copy_async_wait<0>();  // no copy outlives the block
}

}  // namespace gpen
