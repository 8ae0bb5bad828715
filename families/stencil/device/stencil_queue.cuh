// A register queue along z (Micikevicius 2009): each thread keeps the values
// of every input at (i, j, k + dz), dz in [-rz, rz], in registers, and
// loads one new plane per step instead of 2 rz + 1.
#pragma once

#include "gpen/stencil_common.cuh"

namespace gpen {

template <class B>
struct ZQueue {
  using real = typename B::real;
  static constexpr int R = B::kMaxRadiusZ;
  static constexpr int kSlots = B::kNumIn > 0 ? B::kNumIn : 1;
  // Slot R is the current plane; input F uses slots [R - rz, R + rz] only.
  real q[kSlots][2 * R + 1];

  // Loads planes k - rz .. k + rz - 1; push() adds k + rz.
  __device__ __forceinline__ void prime(const InputCursor<B>& c) {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      constexpr int rz = B::kRadius[F][2];
#pragma unroll
      for (int s = R - rz; s < R + rz; ++s) q[F][s] = __ldg(c.p[F] + (s - R) * c.sz[F]);
    });
  }

  __device__ __forceinline__ void push(const InputCursor<B>& c) {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      constexpr int rz = B::kRadius[F][2];
      q[F][R + rz] = __ldg(c.p[F] + rz * c.sz[F]);
    });
  }

  __device__ __forceinline__ void shift() {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      constexpr int rz = B::kRadius[F][2];
#pragma unroll
      for (int s = R - rz; s < R + rz; ++s) q[F][s] = q[F][s + 1];
    });
  }

  template <int F, int DZ>
  __device__ __forceinline__ real get() const {
    static_assert(DZ >= -B::kRadius[F][2] && DZ <= B::kRadius[F][2], "queue read beyond the z radius");
    return q[F][R + DZ];
  }
};

}  // namespace gpen
