// Strategy "stage": the x-y planes of every input, halos and corners
// included, staged in shared memory, so that a thread's registers hold its
// arithmetic and no copies of its neighbours. A block owns a tile of
// kBlockX x kBlockY kRowsY points and walks kPointsPerThread planes along z;
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
// Per step, with D = kRingAhead >= 1: wait for this thread's copies of plane
// k + rz, one barrier (the copies of every thread visible; every thread done
// with the oldest slot), the copies of plane k + rz + D into that slot, then
// the outputs of plane k. With D = 0 the copies of plane k + rz are waited
// for at once, behind a second barrier.
//
// Mixed derivatives in two passes (B::kNumMid > 0; mixed_passes 2, see
// families/stencil/stencil_mixed.hpp): before the outputs of plane k the
// block computes each intermediate (D1(u, y) of D1(D1(u, y), x), say) on its
// tile and the halo the outputs read it at, into a plane of its own, behind
// one more barrier; compute() reads it with in.mid<G, DX, DY, 0>().
//
// Cells of a tile outside the array (a block past nx or ny) are not copied,
// and nothing reads them: a stored point's reads stay within its ghost
// zones. Threads past the interior still copy and pass the barriers.
// Dynamic shared memory: every input's ring and every intermediate's plane
// (stage_values<B>() values).
// Grid: (ceil(nx / kBlockX), ceil(ny / (kBlockY kRowsY)), ceil(nz / kPointsPerThread)).
#pragma once

#include "gpen/arch/cp_async.cuh"
#include "gpen/stencil_common.cuh"

namespace gpen {

// Input F's plane tile and its ring of slots.
template <class B, int F>
struct StageTile {
  static constexpr int TX = B::kBlockX, TY = B::kBlockY * B::kRowsY;
  static constexpr int RX = B::kRadius[F][0], RY = B::kRadius[F][1], RZ = B::kRadius[F][2];
  static constexpr int W = TX + 2 * RX, H = TY + 2 * RY;
  static constexpr int kPlane = W * H;
  static constexpr int kSlots = 2 * RZ + 1 + B::kRingAhead;
  // Values before input F's ring: the rings of inputs 0 .. F-1.
  static __host__ __device__ constexpr int offset() {
    if constexpr (F == 0) return 0;
    else return StageTile<B, F - 1>::offset() + StageTile<B, F - 1>::kSlots * StageTile<B, F - 1>::kPlane;
  }
};

template <class B>
__host__ __device__ constexpr int stage_ring_values() {
  if constexpr (B::kNumIn == 0) return 0;
  else return StageTile<B, B::kNumIn - 1>::offset() + StageTile<B, B::kNumIn - 1>::kSlots * StageTile<B, B::kNumIn - 1>::kPlane;
}

// Intermediate G's plane (mixed derivatives in two passes): the tile and
// HX, HY points beyond it along x and y. Only its cross is computed, the
// tile's rows at full width and HY rows above and below the tile's columns:
// a point reads an intermediate along one axis, x or y.
template <class B, int G>
struct MidTile {
  static constexpr int TX = B::kBlockX, TY = B::kBlockY * B::kRowsY;
  static constexpr int HX = B::kMidHalo[G][0], HY = B::kMidHalo[G][1];
  static constexpr int W = TX + 2 * HX, H = TY + 2 * HY;
  static constexpr int kPlane = W * H;
  static constexpr int kCells = TY * W + 2 * HY * TX;
  // Values before the plane (every ring, intermediates 0 .. G-1), and cells
  // of the intermediates before G (the block computes them in one loop).
  static __host__ __device__ constexpr int offset() {
    if constexpr (G == 0) return stage_ring_values<B>();
    else return MidTile<B, G - 1>::offset() + MidTile<B, G - 1>::kPlane;
  }
  static __host__ __device__ constexpr int first_cell() {
    if constexpr (G == 0) return 0;
    else return MidTile<B, G - 1>::first_cell() + MidTile<B, G - 1>::kCells;
  }
  // Column c and row r in the plane of the cross's cell u.
  static __device__ __forceinline__ void cell(int u, int& c, int& r) {
    if (u < TY * W) {
      const int row = u / W;
      c = u - row * W;
      r = HY + row;
    } else {
      const int v = u - TY * W, band = v / TX;
      c = HX + v - band * TX;
      r = band < HY ? band : band + TY;
    }
  }
};

template <class B>
__host__ __device__ constexpr int stage_mid_cells() {
  if constexpr (B::kNumMid == 0) return 0;
  else return MidTile<B, B::kNumMid - 1>::first_cell() + MidTile<B, B::kNumMid - 1>::kCells;
}

// Every input's ring, then every intermediate's plane.
template <class B>
__host__ __device__ constexpr int stage_values() {
  if constexpr (B::kNumMid == 0) return stage_ring_values<B>();
  else return MidTile<B, B::kNumMid - 1>::offset() + MidTile<B, B::kNumMid - 1>::kPlane;
}

// The block's copies of plane p of input F into `slot`: cells (c, r) of the
// tile are the array's (I0 - RX + c, J0 - RY + r, p).
template <class B, int F>
__device__ __forceinline__ void stage_copy(typename B::real* slot, const StencilArgs<B>& a, int I0, int J0, int p) {
  using real = typename B::real;
  using T = StageTile<B, F>;
  using G = InGeometry<B, F>;
  constexpr int kThreads = B::kBlockX * B::kBlockY;
  const real* corner = a.in[F] + G::at(a.n, I0 - T::RX, J0 - T::RY, p);
  const long long sy = G::sy(a.n);
  // Columns and rows of the tile inside the array (ghosts included).
  const int cols = min(T::W, a.n.nx + B::kInGhost[F][0] - (I0 - T::RX));
  const int rows = min(T::H, a.n.ny + B::kInGhost[F][1] - (J0 - T::RY));
  const int tid = threadIdx.y * B::kBlockX + threadIdx.x;
#pragma unroll
  for (int t0 = 0; t0 < T::kPlane; t0 += kThreads) {
    const int t = t0 + tid;
    const int r = t / T::W, c = t - r * T::W;
    if (t < T::kPlane && c < cols && r < rows) arch::copy_async<sizeof(real)>(slot + t, corner + c + r * sy);
  }
}

// Input values around point (cx, cy) of the tile (0 .. TX-1, 0 .. TY-1;
// beyond for an intermediate's halo), plane k: `ring` holds every input's
// slots and the intermediates, `zslot[F]` is input F's slot of plane k.
// Shared-memory addresses are 32-bit offsets from `ring`, computed per read
// from constants and the point: no pointer a field and plane stays live in
// registers.
template <class B>
struct StageReader {
  const typename B::real* ring;
  const int (&zslot)[B::kNumIn > 0 ? B::kNumIn : 1];
  int cx, cy;
  template <int F, int DX, int DY, int DZ>
  __device__ __forceinline__ typename B::real at() const {
    using T = StageTile<B, F>;
    int slot = zslot[F] + DZ;  // of plane k + DZ, |DZ| <= RZ < kSlots
    if constexpr (DZ > 0) slot = slot >= T::kSlots ? slot - T::kSlots : slot;
    if constexpr (DZ < 0) slot = slot < 0 ? slot + T::kSlots : slot;
    const int own = (T::RY + cy + DY) * T::W + T::RX + cx + DX;
    return ring[T::offset() + slot * T::kPlane + own];
  }
  // Intermediate G of plane k, read along x or y within its halo.
  template <int G, int DX, int DY, int DZ>
  __device__ __forceinline__ typename B::real mid() const {
    using M = MidTile<B, G>;
    static_assert(DZ == 0 && (DX == 0 || DY == 0) && -M::HX <= DX && DX <= M::HX && -M::HY <= DY && DY <= M::HY,
                  "an intermediate is read in its plane's cross");
    return ring[M::offset() + (M::HY + cy + DY) * M::W + M::HX + cx + DX];
  }
};

template <class B>
__device__ __forceinline__ void stencil_stage(const StencilArgs<B>& a) {
  using real = typename B::real;
  constexpr int Y = B::kRowsY, D = B::kRingAhead;
  constexpr int kInputs = B::kNumIn > 0 ? B::kNumIn : 1;  // zslot's length
  extern __shared__ __align__(16) unsigned char gpen_stage_bytes[];
  real* ring = reinterpret_cast<real*>(gpen_stage_bytes);

  const int I0 = blockIdx.x * B::kBlockX, J0 = blockIdx.y * B::kBlockY * Y;
  const int i = I0 + threadIdx.x, j0 = J0 + threadIdx.y * Y;
  const int k0 = blockIdx.z * B::kPointsPerThread;
  const int k1 = min(k0 + B::kPointsPerThread, a.n.nz);
  const bool active = i < a.n.nx && j0 < a.n.ny;
  constexpr int kThreads = B::kBlockX * B::kBlockY;
  const int tid = threadIdx.y * B::kBlockX + threadIdx.x;

  // Input F's slot of plane k0 + s - RZ .. (step s reads s - RZ .. s + RZ).
  auto slot = [&](auto f, int s) {
    constexpr int F = decltype(f)::value;
    using T = StageTile<B, F>;
    return ring + T::offset() + s % T::kSlots * T::kPlane;
  };
  // Copies of plane k0 + s + RZ of every input that a step still reads.
  auto copy_planes = [&](int s) {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      constexpr int rz = StageTile<B, F>::RZ;
      if (k0 + s < k1) stage_copy<B, F>(slot(f, s + 2 * rz), a, I0, J0, k0 + s + rz);
    });
  };

  // Prologue: planes k0 - rz .. k0 + rz in one group (all that step 0
  // reads; with D = 0 the last of them is left to step 0), then one group
  // a plane up to D - 1 planes further.
  for_each_index<B::kNumIn>([&](auto f) {
    constexpr int F = decltype(f)::value;
    constexpr int rz = StageTile<B, F>::RZ;
    for (int p = -rz; p < rz + (D > 0 ? 1 : 0); ++p) stage_copy<B, F>(slot(f, p + rz), a, I0, J0, k0 + p);
  });
  arch::copy_async_commit();
#pragma unroll
  for (int s = 1; s < D; ++s) {
    copy_planes(s);
    arch::copy_async_commit();
  }

  auto step = [&](int k) {
    const int s = k - k0;  // steps since the block's first plane
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
      // The intermediates of plane k, then a barrier before they are read
      // (the next step's first barrier keeps them until every thread has).
      // Cells whose reads would leave the copied tile (past the array's
      // ghosts) are not computed: no stored point reads them.
      for (int t = tid; t < stage_mid_cells<B>(); t += kThreads) {
        for_each_index<B::kNumMid>([&](auto g) {
          constexpr int G = decltype(g)::value;
          using M = MidTile<B, G>;
          const int u = t - M::first_cell();
          if (u >= 0 && u < M::kCells) {
            int c, r;
            M::cell(u, c, r);
            if (I0 - M::HX + c < a.n.nx + M::HX && J0 - M::HY + r < a.n.ny + M::HY)
              ring[M::offset() + r * M::W + c] = B::template mid<G>(StageReader<B>{ring, zslot, c - M::HX, r - M::HY});
          }
        });
      }
      __syncthreads();
    }
    if (active) {
      for_each_index<Y>([&](auto py) {
        constexpr int PY = decltype(py)::value;
        // Rows past the interior (ny not a multiple of the tile) are not computed.
        if (j0 + PY < a.n.ny) {
          real v[B::kNumOut];
          B::compute(StageReader<B>{ring, zslot, static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y) * Y + PY}, a.params, v);
          for_each_index<B::kNumOut>([&](auto o) {
            constexpr int O = decltype(o)::value;
            real* at = a.out[O] + OutGeometry<B, O>::at(a.n, i, j0 + PY, k);
            if constexpr (B::kStreamStores) __stcs(at, v[O]);
            else *at = v[O];
          });
        }
      });
    }
  };
  for_each_step<false, B::kPointsPerThread>(k0, k1, step);
  arch::copy_async_wait<0>();  // no copy outlives the block
}

}  // namespace gpen
