// Strategy "tile": the block stages each z plane of its x-y tile, halos
// included, in shared memory and walks kPointsPerThread planes; reads along
// z (and off-plane diagonals) go to global memory through the read-only cache.
// Grid: (ceil(nx / kBlockX), ceil(ny / kBlockY), ceil(nz / kPointsPerThread)).
#pragma once

#include "gpen/stencil_common.cuh"
#include "gpen/stencil_plane_tile.cuh"

namespace gpen {

template <class B>
struct TileReader {
  const InputCursor<B>& cursor;
  const typename B::real* smem;
  template <int F, int DX, int DY, int DZ>
  __device__ __forceinline__ typename B::real at() const {
    if constexpr (DZ == 0 && PlaneTiles<B>::template kTiled<F>)
      return PlaneTiles<B>::template get<F, DX, DY>(smem);
    else
      return cursor.template load<F, DX, DY, DZ>();
  }
};

template <class B>
__device__ __forceinline__ void stencil_tile(const StencilArgs<B>& a) {
  using Tiles = PlaneTiles<B>;
  __shared__ typename B::real smem[Tiles::kElements];
  const int i0 = blockIdx.x * B::kBlockX, j0 = blockIdx.y * B::kBlockY;
  const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
  const int k0 = blockIdx.z * B::kPointsPerThread;
  const int k1 = min(k0 + B::kPointsPerThread, a.n.nz);
  const bool active = i < a.n.nx && j < a.n.ny;
  // Inactive threads still help fill the tiles; they never dereference this.
  InputCursor<B> cursor(a, active ? i : 0, active ? j : 0, k0);
  for (int k = k0; k < k1; ++k) {
    Tiles::template fill<false>(smem, a, i0, j0, k);
    __syncthreads();
    if (active) {
      typename B::real v[B::kNumOut];
      B::compute(TileReader<B>{cursor, smem}, a.params, v);
      store_outputs<B>(a, i, j, k, v);
    }
    __syncthreads();  // the next plane overwrites the tiles
    cursor.step_z();
  }
}

}  // namespace gpen
