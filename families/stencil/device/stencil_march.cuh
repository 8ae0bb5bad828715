// Strategy "march": a thread owns kVectorX neighbouring points along x times
// kRowsY neighbouring rows along y and walks kPointsPerThread planes along z.
// Every value it needs lives in registers:
//   - z neighbours in a register queue (Micikevicius 2009): one new plane a
//     step instead of 2 rz + 1;
//   - x neighbours of its rows, loaded as whole runs of kVectorX values
//     (one 16-byte access where a run is that long);
//   - y neighbours of its runs, the rows above and below its own.
// Owning kVectorX x kRowsY points divides the loads of the x and y
// neighbours by the number of points that share them, which is what keeps a
// wide stencil (radius 4) from being bound by L1 wavefronts rather than DRAM.
// Offsets off the three axes (mixed derivatives) are read from global memory.
//
// Two instantiations (the host picks one per launch):
//   kFast: every array's pointer, x ghost width, padded row, row and
//     plane pitch are multiples of kVectorX, and ny >= kRowsY. Runs are vector accesses and
//     never cross a row end; the last thread along y moves its rows back to
//     end at ny (recomputing rows it does not store), so no load is clamped.
//   otherwise: scalar accesses, and rows and columns past the interior are
//     clamped into the array. Same results, more registers.
// Grid: (ceil(nx / (kBlockX kVectorX)), ceil(ny / (kBlockY kRowsY)), ceil(nz / kPointsPerThread)).
#pragma once

#include "gpen/stencil_common.cuh"
#include "gpen/stencil_ring.cuh"
#include "gpen/stencil_vector.cuh"

namespace gpen {

template <class B, bool kFast>
struct MarchTile {
  using real = typename B::real;
  static constexpr int V = B::kVectorX;
  static constexpr int Y = B::kRowsY;
  static constexpr int R = B::kMaxRadiusZ;
  static constexpr int kSlots = B::kNumIn > 0 ? B::kNumIn : 1;
  static constexpr int kRY = max_radius<B, 1>();
  // x reach of field F rounded up to whole runs; kAX the largest.
  template <int F>
  static constexpr int kReachX = (B::kRadius[F][0] + V - 1) / V * V;
  static constexpr int kAX = (max_radius<B, 0>() + V - 1) / V * V;

  real q[kSlots][2 * R + 1][Y][V];   // z queue; slot R is the current plane
  real xrow[kSlots][Y][V + 2 * kAX];  // the current plane's rows, x neighbours included
  real ycol[kSlots][2 * kRY + Y][V];  // the current plane's runs in rows -ry .. Y - 1 + ry
  const real* p[kSlots];              // field F at (i0, j0, k)
  long long sy[kSlots], sz[kSlots];
  int xlim[kSlots], ylim[kSlots];  // last x / y offset (from i0 / j0) inside field F (clamped loads only)

  __device__ __forceinline__ MarchTile(const StencilArgs<B>& a, int i0, int j0, int k0) {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      using G = InGeometry<B, F>;
      p[F] = a.in[F] + G::at(a, i0, j0, k0);
      sy[F] = G::sy(a);
      sz[F] = G::sz(a);
      // Points past the interior are never computed, but their rows and runs
      // are still loaded; clamping keeps those loads inside the array.
      constexpr int rx = B::kRadius[F][0], ry = B::kRadius[F][1];
      xlim[F] = a.n.nx - 1 + rx - i0;
      ylim[F] = a.n.ny - 1 + ry - j0;
    });
  }

  // The run of V values of field F at x offset dx (a multiple of V), row dy,
  // plane dz, relative to (i0, j0, k).
  template <int F>
  __device__ __forceinline__ void load(int dx, int dy, int dz, real* d) const {
    if constexpr (kFast) {
      load_run<V>(p[F] + dx + dy * sy[F] + dz * sz[F], d);
    } else {
      const real* row = p[F] + min(dy, ylim[F]) * sy[F] + dz * sz[F];
#pragma unroll
      for (int s = 0; s < V; ++s) d[s] = __ldg(row + min(dx + s, xlim[F]));
    }
  }

  // Planes k - rz .. k + rz - 1 of the queue; next() adds k + rz.
  __device__ __forceinline__ void prime() {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      constexpr int rz = B::kRadius[F][2];
#pragma unroll
      for (int s = R - rz; s < R + rz; ++s)
#pragma unroll
        for (int y = 0; y < Y; ++y) load<F>(0, y, s - R, q[F][s][y]);
    });
  }

  // Loads what plane k needs: the queue's leading plane, then the x and y
  // neighbours of the thread's points.
  __device__ __forceinline__ void next() {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      constexpr int rx = B::kRadius[F][0], ry = B::kRadius[F][1], rz = B::kRadius[F][2];
#pragma unroll
      for (int y = 0; y < Y; ++y) load<F>(0, y, rz, q[F][R + rz][y]);
      if constexpr (rx > 0) {
#pragma unroll
        for (int y = 0; y < Y; ++y) {
#pragma unroll
          for (int dx = -kReachX<F>; dx < V + kReachX<F>; dx += V) {
            if (dx == 0) {
#pragma unroll
              for (int v = 0; v < V; ++v) xrow[F][y][kAX + v] = q[F][R][y][v];
            } else {
              load<F>(dx, y, 0, &xrow[F][y][kAX + dx]);
            }
          }
        }
      }
      if constexpr (ry > 0) {
#pragma unroll
        for (int r = -ry; r < Y + ry; ++r) {
          if (r >= 0 && r < Y) {
#pragma unroll
            for (int v = 0; v < V; ++v) ycol[F][kRY + r][v] = q[F][R][r][v];
          } else {
            load<F>(0, r, 0, ycol[F][kRY + r]);
          }
        }
      }
    });
  }

  __device__ __forceinline__ void advance() {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      constexpr int rz = B::kRadius[F][2];
#pragma unroll
      for (int s = R - rz; s < R + rz; ++s)
#pragma unroll
        for (int y = 0; y < Y; ++y)
#pragma unroll
          for (int v = 0; v < V; ++v) q[F][s][y][v] = q[F][s + 1][y][v];
      p[F] += sz[F];
    });
  }
};

// Input values around the thread's point (PV, PY) of the current plane.
template <class B, bool kFast, int PY, int PV>
struct MarchReader {
  const MarchTile<B, kFast>& t;
  template <int F, int DX, int DY, int DZ>
  __device__ __forceinline__ typename B::real at() const {
    using T = MarchTile<B, kFast>;
    if constexpr (DX == 0 && DY == 0) return t.q[F][T::R + DZ][PY][PV];
    else if constexpr (DY == 0 && DZ == 0) return t.xrow[F][PY][T::kAX + PV + DX];
    else if constexpr (DX == 0 && DZ == 0) return t.ycol[F][T::kRY + PY + DY][PV];
    else return __ldg(t.p[F] + (PV + DX) + (PY + DY) * t.sy[F] + DZ * t.sz[F]);
  }
};

template <class B, bool kFast>
__device__ __forceinline__ void stencil_march_registers(const StencilArgs<B>& a) {
  using real = typename B::real;
  constexpr int V = B::kVectorX, Y = B::kRowsY;
  const int i0 = (blockIdx.x * B::kBlockX + threadIdx.x) * V;
  const int j_own = (blockIdx.y * B::kBlockY + threadIdx.y) * Y;  // first row this thread stores
  const int k0 = blockIdx.z * B::kPointsPerThread;
  if (i0 >= a.n.nx || j_own >= a.n.ny) return;
  const int j0 = kFast ? min(j_own, a.n.ny - Y) : j_own;  // first row it computes
  const int k1 = min(k0 + B::kPointsPerThread, a.n.nz);
  MarchTile<B, kFast> tile(a, i0, j0, k0);
  tile.prime();
  auto step = [&](int k) {
    tile.next();
    real v[B::kNumOut][Y][V];
    for_each_index<Y>([&](auto py) {
      constexpr int PY = decltype(py)::value;
      for_each_index<V>([&](auto pv) {
        constexpr int PV = decltype(pv)::value;
        if (kFast || (i0 + PV < a.n.nx && j0 + PY < a.n.ny)) {
          real o[B::kNumOut];
          B::compute(MarchReader<B, kFast, PY, PV>{tile}, a.params, o);
#pragma unroll
          for (int f = 0; f < B::kNumOut; ++f) v[f][PY][PV] = o[f];
        }
      });
    });
    for_each_index<B::kNumOut>([&](auto o) {
      constexpr int O = decltype(o)::value;
      using G = OutGeometry<B, O>;
      real* base = a.out[O] + G::at(a, i0, j0, k);
#pragma unroll
      for (int y = 0; y < Y; ++y) {
        if (kFast ? j0 + y >= j_own : j0 + y < a.n.ny) {
          store_run<V, B::kStreamStores>(base + y * G::sy(a), v[O][y], kFast, kFast || i0 + V <= a.n.nx, a.n.nx - i0);
#pragma unroll
          for (int x = 0; x < V; ++x)
            if (i0 + x < a.n.nx) store_images<B, O>(a, base + y * G::sy(a) + x, i0 + x, j0 + y, k, v[O][y][x]);
        }
      }
    });
    tile.advance();
  };
  for_each_step<kFast && B::kUnrollZ, B::kPointsPerThread>(k0, k1, step);
}

// kFast with ring_ahead > 0: the ring of planes in shared memory
// (stencil_ring.cuh); otherwise every neighbour through registers and the L1.
template <class B, bool kFast = true>
__device__ __forceinline__ void stencil_march(const StencilArgs<B>& a) {
  if constexpr (kFast && B::kRingAhead > 0) stencil_ring<B>(a);
  else stencil_march_registers<B, kFast>(a);
}

}  // namespace gpen
