// Strategy "march": a thread walks kPointsPerThread points along z and keeps
// the z-neighbours in a register queue; x-y neighbours come from global
// memory through the read-only cache.
// Grid: (ceil(nx / kBlockX), ceil(ny / kBlockY), ceil(nz / kPointsPerThread)).
#pragma once

#include "gpen/stencil_common.cuh"
#include "gpen/stencil_queue.cuh"

namespace gpen {

template <class B>
struct MarchReader {
  const InputCursor<B>& cursor;
  const ZQueue<B>& queue;
  template <int F, int DX, int DY, int DZ>
  __device__ __forceinline__ typename B::real at() const {
    if constexpr (DX == 0 && DY == 0) return queue.template get<F, DZ>();
    else return cursor.template load<F, DX, DY, DZ>();
  }
};

template <class B>
__device__ __forceinline__ void stencil_march(const StencilArgs<B>& a) {
  const int i = blockIdx.x * B::kBlockX + threadIdx.x;
  const int j = blockIdx.y * B::kBlockY + threadIdx.y;
  const int k0 = blockIdx.z * B::kPointsPerThread;
  if (i >= a.n.nx || j >= a.n.ny) return;
  const int k1 = min(k0 + B::kPointsPerThread, a.n.nz);
  InputCursor<B> cursor(a, i, j, k0);
  ZQueue<B> queue;
  queue.prime(cursor);
  for (int k = k0; k < k1; ++k) {
    queue.push(cursor);
    typename B::real v[B::kNumOut];
    B::compute(MarchReader<B>{cursor, queue}, a.params, v);
    store_outputs<B>(a, i, j, k, v);
    queue.shift();
    cursor.step_z();
  }
}

}  // namespace gpen
