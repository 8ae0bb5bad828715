// Strategy "direct": one point a thread, every neighbour read from global
// memory through the read-only cache. The baseline the others must beat.
// Grid: (ceil(nx / kBlockX), ceil(ny / kBlockY), nz).
#pragma once

#include "gpen/stencil_common.cuh"

namespace gpen {

template <class B>
struct DirectReader {
  InputCursor<B> cursor;
  template <int F, int DX, int DY, int DZ>
  __device__ __forceinline__ typename B::real at() const {
    return cursor.template load<F, DX, DY, DZ>();
  }
};

template <class B>
__device__ __forceinline__ void stencil_direct(const StencilArgs<B>& a) {
  const int i = blockIdx.x * B::kBlockX + threadIdx.x;
  const int j = blockIdx.y * B::kBlockY + threadIdx.y;
  const int k = blockIdx.z;
  if (i >= a.n.nx || j >= a.n.ny) return;
  const DirectReader<B> in{InputCursor<B>(a, i, j, k)};
  typename B::real v[B::kNumOut];
  B::compute(in, a.params, v);
  store_outputs<B>(a, i, j, k, v);
}

}  // namespace gpen
