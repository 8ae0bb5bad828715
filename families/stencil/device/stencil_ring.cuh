// The march with a ring of x-y planes in shared memory (march tunable
// ring_ahead = D > 0). A block owns a tile of kBlockX kVectorX x kBlockY kRowsY
// points and walks kPointsPerThread planes along z, as the register march
// does; what differs is where the neighbours come from:
//   - every plane the block needs (its tile plus the x and y halo, corners
//     left out) is copied into a ring of shared-memory slots by cp.async, D
//     steps before it is first used. The copies hold no registers while
//     they are in flight, so the ring keeps D planes of the block's DRAM
//     reads in flight at any register count;
//   - x and y neighbours and the planes ahead along z (k + 1 .. k + rz) are
//     read from the ring, each value loaded from global memory once a block
//     instead of once per thread that needs it (the register march's x and
//     y neighbours are L1 hits at best and L2 reads at worst);
//   - the planes behind along z (k - rz .. k - 1) stay in a register queue.
// Per step: wait for this thread's copies of plane k + rz, one barrier (all
// copies visible; every thread done with the slot of plane k - 1), the
// copies of plane k + rz + D into that slot, then the outputs of plane k.
//
// Entry condition (the host's "vector runs" test): every array's pointer,
// x ghost width and row length are multiples of kVectorX, so a run of
// kVectorX values is aligned copies of 4, 8 or 16 bytes. Threads and
// rows past the interior still copy (clamped into the array: the clamped
// cells are never read by a point that is stored) and pass the barriers.
// Dynamic shared memory: kRingSlots slots of every input's plane tile.
#pragma once

#include "gpen/arch/cp_async.cuh"
#include "gpen/stencil_common.cuh"
#include "gpen/stencil_vector.cuh"

namespace gpen {

using arch::copy_async;
using arch::copy_async_commit;
using arch::copy_async_wait;

// Input F's plane tile: the block's points plus AX columns (the x radius
// rounded up to whole runs) on each side and RY rows above and below.
template <class B, int F>
struct RingTile {
  static constexpr int V = B::kVectorX;
  static constexpr int TX = B::kBlockX * V, TY = B::kBlockY * B::kRowsY;
  static constexpr int AX = (B::kRadius[F][0] + V - 1) / V * V;
  static constexpr int RY = B::kRadius[F][1];
  static constexpr int W = TX + 2 * AX, H = TY + 2 * RY;
  static constexpr int kPlane = W * H;
  // Values before input F's slots: the slots of inputs 0 .. F-1.
  static __host__ __device__ constexpr int offset() {
    if constexpr (F == 0) return 0;
    else return RingTile<B, F - 1>::offset() + B::kRingSlots * RingTile<B, F - 1>::kPlane;
  }
};

template <class B>
__host__ __device__ constexpr int ring_values() {
  if constexpr (B::kNumIn == 0) return 0;
  else return RingTile<B, B::kNumIn - 1>::offset() + B::kRingSlots * RingTile<B, B::kNumIn - 1>::kPlane;
}

// Input F's slot of the plane s steps after the block's first plane.
template <class B, int F>
__device__ __forceinline__ typename B::real* ring_plane(typename B::real* ring, int s) {
  return ring + RingTile<B, F>::offset() + s % B::kRingSlots * RingTile<B, F>::kPlane;
}

// The block's copies of plane p of input F into `slot` (a tile's values).
template <class B, int F>
__device__ __forceinline__ void ring_copy(typename B::real* slot, const StencilArgs<B>& a, int I0, int J0, int p) {
  using real = typename B::real;
  using T = RingTile<B, F>;
  using G = InGeometry<B, F>;
  constexpr int V = T::V;
  constexpr int kW = kAccessWidth<real, V>;                     // values a copy (at most 16 bytes)
  constexpr int kRuns = T::W / V;                               // runs of a row with its x halo
  constexpr int kPasses = (kRuns + B::kBlockX - 1) / B::kBlockX;  // of the threads along x over one row
  const int xmax = a.n.nx + B::kInGhost[F][0] - V, ymax = a.n.ny + B::kInGhost[F][1] - 1;
  const real* plane = a.in[F] + G::at(a, 0, 0, p);
  const long long sy = G::sy(a);
#pragma unroll
  for (int r0 = 0; r0 < T::H; r0 += B::kBlockY) {
    const int r = r0 + threadIdx.y;
    if (r >= T::H) break;
    const real* row = plane + min(J0 - T::RY + r, ymax) * sy;
    // Rows of the y halo have no x halo: corners are never read.
    const bool y_halo = r < T::RY || r >= T::RY + T::TY;
#pragma unroll
    for (int n = 0; n < kPasses; ++n) {
      const int u = threadIdx.x + n * B::kBlockX;
      const int c = y_halo ? T::AX + u * V : u * V;
      if (u < (y_halo ? B::kBlockX : kRuns)) {
        const real* src = row + min(I0 - T::AX + c, xmax);
#pragma unroll
        for (int w = 0; w < V; w += kW) copy_async<kW * sizeof(real)>(slot + r * T::W + c + w, src + w);
      }
    }
  }
}

// Input values around the thread's point (PY, PV) for one row PY of its
// points: the row's x neighbours, its column's y neighbours and the planes
// ahead from the ring, the planes behind from the register queue.
template <class B, int PY, int PV, class Row>
struct RingReader {
  const Row& row;
  template <int F, int DX, int DY, int DZ>
  __device__ __forceinline__ typename B::real at() const {
    constexpr int AX = RingTile<B, F>::AX, RY = RingTile<B, F>::RY;
    if constexpr (DX == 0 && DY == 0 && DZ < 0) return row.behind[F][B::kMaxRadiusZ + DZ][PY][PV];
    else if constexpr (DX == 0 && DY == 0 && DZ > 0) return row.ahead[F][DZ - 1][PV];
    else if constexpr (DY == 0 && DZ == 0) return row.xrow[F][AX + PV + DX];
    else if constexpr (DX == 0 && DZ == 0) return row.ycol[F][RY + DY][PV];
    else return __ldg(row.p[F] + (PV + DX) + (PY + DY) * row.sy[F] + DZ * row.sz[F]);
  }
};

template <class B>
__device__ __forceinline__ void stencil_ring(const StencilArgs<B>& a) {
  using real = typename B::real;
  constexpr int V = B::kVectorX, Y = B::kRowsY, R = B::kMaxRadiusZ, D = B::kRingAhead;
  constexpr int kSlots = B::kNumIn > 0 ? B::kNumIn : 1;
  constexpr int kAX = (max_radius<B, 0>() + V - 1) / V * V, kRY = max_radius<B, 1>();
  extern __shared__ __align__(16) unsigned char gpen_ring_bytes[];
  real* ring = reinterpret_cast<real*>(gpen_ring_bytes);

  const int I0 = blockIdx.x * B::kBlockX * V, J0 = blockIdx.y * B::kBlockY * Y;
  const int i0 = I0 + threadIdx.x * V, j0 = J0 + threadIdx.y * Y;
  const int k0 = blockIdx.z * B::kPointsPerThread;
  const int k1 = min(k0 + B::kPointsPerThread, a.n.nz);
  const bool active = i0 < a.n.nx && j0 < a.n.ny;

  // Register state of the thread's points: the planes behind, and the
  // pointers for reads off the three axes (mixed derivatives).
  struct Row {
    real behind[kSlots][R > 0 ? R : 1][Y][V];
    real xrow[kSlots][V + 2 * kAX];
    real ycol[kSlots][2 * kRY + 1][V];
    real ahead[kSlots][R > 0 ? R : 1][V];
    const real* p[kSlots];
    long long sy[kSlots], sz[kSlots];
  } row;

  // The planes behind k0, from global memory (rows clamped for threads
  // past the interior, whose values are never stored).
  for_each_index<B::kNumIn>([&](auto f) {
    constexpr int F = decltype(f)::value;
    constexpr int rz = B::kRadius[F][2];
    using G = InGeometry<B, F>;
    row.p[F] = a.in[F] + G::at(a, i0, j0, k0);
    row.sy[F] = G::sy(a);
    row.sz[F] = G::sz(a);
    const int il = min(i0, a.n.nx + B::kInGhost[F][0] - V);
#pragma unroll
    for (int y = 0; y < Y; ++y) {
      const real* own = a.in[F] + G::at(a, il, min(j0 + y, a.n.ny + B::kInGhost[F][1] - 1), k0);
#pragma unroll
      for (int s = R - rz; s < R; ++s) load_run<V>(own + (s - R) * row.sz[F], row.behind[F][s][y]);
    }
  });

  // Prologue: planes k0 .. k0 + rz in one group (all that step k0 reads),
  // then one group a plane up to D - 1 planes further.
  auto copy_plane = [&](int step) {  // of plane k0 + step + rz, every input, if a step needs it
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      constexpr int rz = B::kRadius[F][2];
      if (k0 + step < k1) ring_copy<B, F>(ring_plane<B, F>(ring, step + rz), a, I0, J0, k0 + step + rz);
    });
  };
  for_each_index<B::kNumIn>([&](auto f) {
    constexpr int F = decltype(f)::value;
    constexpr int rz = B::kRadius[F][2];
    for (int p = 0; p <= rz; ++p) ring_copy<B, F>(ring_plane<B, F>(ring, p), a, I0, J0, k0 + p);
  });
  copy_async_commit();
#pragma unroll
  for (int s = 1; s < D; ++s) {
    copy_plane(s);
    copy_async_commit();
  }

  auto step = [&](int k) {
    const int s = k - k0;  // steps since the block's first plane
    copy_async_wait<D - 1>();
    __syncthreads();
    copy_plane(s + D);
    copy_async_commit();
    if (active) {
      for_each_index<Y>([&](auto py) {
        constexpr int PY = decltype(py)::value;
        for_each_index<B::kNumIn>([&](auto f) {
          constexpr int F = decltype(f)::value;
          using T = RingTile<B, F>;
          constexpr int ry = B::kRadius[F][1], rz = B::kRadius[F][2];
          const int at = (T::RY + threadIdx.y * Y + PY) * T::W + T::AX + threadIdx.x * V;  // the run of row PY
          const real* cur = ring_plane<B, F>(ring, s) + at;
          // x neighbours and the run itself; the reader's AX is the field's own.
#pragma unroll
          for (int dx = -T::AX; dx < V + T::AX; dx += V) load_shared_run<V>(cur + dx, &row.xrow[F][T::AX + dx]);
#pragma unroll
          for (int dy = -ry; dy <= ry; ++dy) load_shared_run<V>(cur + dy * T::W, row.ycol[F][T::RY + dy]);
#pragma unroll
          for (int dz = 1; dz <= rz; ++dz) load_shared_run<V>(ring_plane<B, F>(ring, s + dz) + at, row.ahead[F][dz - 1]);
        });
        // Rows past the interior (ny not a multiple of the tile) are not
        // computed: their reads off the axes could leave the array.
        if (j0 + PY < a.n.ny) {
          real v[B::kNumOut][V];
          for_each_index<V>([&](auto pv) {
            constexpr int PV = decltype(pv)::value;
            real o[B::kNumOut];
            B::compute(RingReader<B, PY, PV, Row>{row}, a.params, o);
#pragma unroll
            for (int f = 0; f < B::kNumOut; ++f) v[f][PV] = o[f];
          });
          for_each_index<B::kNumOut>([&](auto o) {
            constexpr int O = decltype(o)::value;
            using G = OutGeometry<B, O>;
            real* const run = a.out[O] + G::at(a, i0, j0 + PY, k);
            store_run<V, B::kStreamStores>(run, v[O], true, true, V);
#pragma unroll
            for (int x = 0; x < V; ++x) store_images<B, O>(a, run + x, i0 + x, j0 + PY, k, v[O][x]);
          });
        }
        // The row's centre joins the planes behind.
        for_each_index<B::kNumIn>([&](auto f) {
          constexpr int F = decltype(f)::value;
          constexpr int rz = B::kRadius[F][2];
          if constexpr (rz > 0) {
#pragma unroll
            for (int t = R - rz; t < R - 1; ++t)
#pragma unroll
              for (int w = 0; w < V; ++w) row.behind[F][t][PY][w] = row.behind[F][t + 1][PY][w];
#pragma unroll
            for (int w = 0; w < V; ++w) row.behind[F][R - 1][PY][w] = row.xrow[F][RingTile<B, F>::AX + w];
          }
        });
      });
    }
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      row.p[F] += row.sz[F];
    });
  };
  for_each_step<B::kUnrollZ, B::kPointsPerThread>(k0, k1, step);
  copy_async_wait<0>();  // no copy outlives the block
}

}  // namespace gpen
