// Shared-memory tiles of one z plane: for every input read off-centre in the
// x-y plane, a (kBlockX + 2 rx) x (kBlockY + 2 ry) tile around the block.
#pragma once

#include "gpen/stencil_common.cuh"

namespace gpen {

template <class B>
struct PlaneTiles {
  using real = typename B::real;

  template <int F>
  static constexpr bool kTiled = B::kRadius[F][0] > 0 || B::kRadius[F][1] > 0;
  template <int F>
  static constexpr int kWidth = B::kBlockX + 2 * B::kRadius[F][0];
  template <int F>
  static constexpr int kHeight = B::kBlockY + 2 * B::kRadius[F][1];
  template <int F>
  static constexpr int kSize = kTiled<F> ? kWidth<F> * kHeight<F> : 0;

  template <int F>
  static __host__ __device__ constexpr int offset() {
    if constexpr (F == 0) return 0;
    else return offset<F - 1>() + kSize<F - 1>;
  }
  static constexpr int kTotal = offset<B::kNumIn>();
  static constexpr int kElements = kTotal > 0 ? kTotal : 1;

  // Loads plane k of every tiled input. With kFromQueue, the cell of each
  // active thread is left to that thread (it has the value in a register);
  // every other cell, ghost zones included, is read from global memory.
  template <bool kFromQueue>
  static __device__ __forceinline__ void fill(real* smem, const StencilArgs<B>& a, int i0, int j0, int k) {
    const int tid = threadIdx.y * B::kBlockX + threadIdx.x;
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      if constexpr (kTiled<F>) {
        constexpr int rx = B::kRadius[F][0], ry = B::kRadius[F][1];
        constexpr int W = kWidth<F>, H = kHeight<F>;
        using G = InGeometry<B, F>;
        const real* base = a.in[F] + G::at(a, i0 - rx, j0 - ry, k);
        const long long sy = G::sy(a);
        real* tile = smem + offset<F>();
        for (int t = tid; t < W * H; t += B::kBlockX * B::kBlockY) {
          const int tx = t % W, ty = t / W;
          const int gi = i0 - rx + tx, gj = j0 - ry + ty;  // kernel coordinates of the cell
          if (kFromQueue && tx >= rx && tx < rx + B::kBlockX && ty >= ry && ty < ry + B::kBlockY &&
              gi < a.n.nx && gj < a.n.ny)
            continue;
          if (gi < a.n.nx + rx && gj < a.n.ny + ry) tile[t] = __ldg(base + tx + ty * sy);
        }
      }
    });
  }

  // The calling thread's own cell of each tiled input, from its queue.
  template <class Queue>
  static __device__ __forceinline__ void put_centre(real* smem, const Queue& q) {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      if constexpr (kTiled<F>) {
        constexpr int rx = B::kRadius[F][0], ry = B::kRadius[F][1];
        smem[offset<F>() + (threadIdx.y + ry) * kWidth<F> + threadIdx.x + rx] = q.template get<F, 0>();
      }
    });
  }

  template <int F, int DX, int DY>
  static __device__ __forceinline__ real get(const real* smem) {
    static_assert(kTiled<F>, "plane read of an input that has no tile");
    constexpr int rx = B::kRadius[F][0], ry = B::kRadius[F][1];
    // int: DY and DX may be negative, and unsigned threadIdx would turn them
    // into large values (the same address, after wrapping, and a warning).
    return smem[offset<F>() + (static_cast<int>(threadIdx.y) + ry + DY) * kWidth<F> + static_cast<int>(threadIdx.x) + rx + DX];
  }
};

}  // namespace gpen
