// Strategy "rolling" (Micikevicius 2009, seed 003): the x-y tile of the
// current plane in shared memory plus a register queue along z. Each block
// walks kPointsPerThread planes; per plane, every thread loads one new value
// of each input from global memory, and halo cells are loaded by whoever is free.
// Grid: (ceil(nx / kBlockX), ceil(ny / kBlockY), ceil(nz / kPointsPerThread)).
#pragma once

#include "gpen/stencil_common.cuh"
#include "gpen/stencil_plane_tile.cuh"
#include "gpen/stencil_queue.cuh"

namespace gpen {

template <class B>
struct RollingReader {
  const InputCursor<B>& cursor;
  const ZQueue<B>& queue;
  const typename B::real* smem;
  template <int F, int DX, int DY, int DZ>
  __device__ __forceinline__ typename B::real at() const {
    if constexpr (DX == 0 && DY == 0) return queue.template get<F, DZ>();
    else if constexpr (DZ == 0) return PlaneTiles<B>::template get<F, DX, DY>(smem);
    else return cursor.template load<F, DX, DY, DZ>();
  }
};

template <class B>
__device__ __forceinline__ void stencil_rolling(const StencilArgs<B>& a) {
  using Tiles = PlaneTiles<B>;
  __shared__ typename B::real smem[Tiles::kElements];
  const int i0 = blockIdx.x * B::kBlockX, j0 = blockIdx.y * B::kBlockY;
  const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
  const int k0 = blockIdx.z * B::kPointsPerThread;
  const int k1 = min(k0 + B::kPointsPerThread, a.n.nz);
  const bool active = i < a.n.nx && j < a.n.ny;
  InputCursor<B> cursor(a, active ? i : 0, active ? j : 0, k0);
  ZQueue<B> queue;
  if (active) queue.prime(cursor);
  for (int k = k0; k < k1; ++k) {
    if (active) {
      queue.push(cursor);
      Tiles::put_centre(smem, queue);
    }
    Tiles::template fill<true>(smem, a, i0, j0, k);
    __syncthreads();
    if (active) {
      typename B::real v[B::kNumOut];
      B::compute(RollingReader<B>{cursor, queue, smem}, a.params, v);
      store_outputs<B>(a, i, j, k, v);
      queue.shift();
    }
    __syncthreads();  // the next plane overwrites the tiles
    cursor.step_z();
  }
}

}  // namespace gpen
