// gpen stencil templates: pieces shared by every strategy.
//
// A kernel sees its arrays in kernel axes (x, y, z): x is contiguous and z is
// the axis a thread marches along. The generator maps the spec's axes onto
// these (a 2-D spec's y becomes z, so that 2-D arrays are marched too).
//
// `B` is the bindings struct that the generator writes for one spec:
//   using real;                        float or double
//   kNumIn, kNumOut, kNumParams;       fields and params
//   kBlockX, kBlockY, kPointsPerThread tunables
//   kVectorX, kRowsY, kUnrollZ         points a thread owns along x (march), y (march, stage); z loop unrolled (march)
//   kStreamStores                      outputs stored evict-first (march, stage)
//   kRingAhead, kRingSlots             planes copied ahead into shared memory (march, stage); the march's ring slots (0: none)
//   kInGhost[kNumIn][3], kOutGhost[kNumOut][3]   ghost widths per kernel axis
//   kOutWrap[kNumOut]                  periodic images each output stores (a bit per kernel axis; store_images)
//   kRadius[kNumIn][3]                 how far the outputs reach into each input
//   kMaxRadiusZ                        the largest kRadius[f][2]
//   kInPitchOf[kNumIn], kOutPitchOf[kNumOut]   the field whose pitch each field's accesses use
//   template <class In> compute(const In& in, const real* p, real* out)
//     where in.template at<F, DX, DY, DZ>() is input F at (i+DX, j+DY, k+DZ).
#pragma once

#include "gpen/math.cuh"
#include "gpen/stencil_args.h"

namespace gpen {

template <class B>
using StencilArgs = StencilArgsOf<typename B::real, B::kNumIn, B::kNumOut, B::kNumParams>;

template <int I>
struct Index {
  static constexpr int value = I;
};

template <int I, int N, class Fn>
__device__ __forceinline__ void static_for(Fn& fn) {
  if constexpr (I < N) {
    fn(Index<I>{});
    static_for<I + 1, N>(fn);
  }
}

// fn(Index<0>{}) ... fn(Index<N-1>{}): a loop whose counter is a constant
// expression, so per-field constants of B can be template arguments.
template <int N, class Fn>
__device__ __forceinline__ void for_each_index(Fn fn) {
  static_for<0, N>(fn);
}

// step(k) for the planes k = k0 .. k1 - 1, k1 - k0 <= N. kUnroll: unrolled
// N times, so that a register queue's shifts become renamings and a plane's
// loads can be issued steps before they are used; else a loop.
template <bool kUnroll, int N, class Step>
__device__ __forceinline__ void for_each_step(int k0, int k1, Step step) {
  if constexpr (kUnroll) {
#pragma unroll
    for (int s = 0; s < N; ++s) {
      if (k0 + s >= k1) break;
      step(k0 + s);
    }
  } else {
#pragma unroll 1
    for (int k = k0; k < k1; ++k) step(k);
  }
}

// The largest radius of any input along kernel axis Axis.
template <class B, int Axis>
__host__ __device__ constexpr int max_radius() {
  int m = 0;
  for (int f = 0; f < B::kNumIn; ++f) m = m > B::kRadius[f][Axis] ? m : B::kRadius[f][Axis];
  return m;
}

// Offsets into an input's (kIn) or output's array padded by (GX, GY, GZ)
// ghost points on each side, with the row (y) and plane (z) pitch the
// launch passes for field F of its kind (the packed ones, or the
// caller's): any argument block A with in_pitch and out_pitch, one [row,
// plane] pair a field. F is the field's own number, or that of a field
// the host found to have the same pitch (B::kInPitchOf), so that fields
// padded alike share their strides.
template <int GX, int GY, int GZ, bool kIn, int F>
struct FieldGeometry {
  template <class A>
  static __device__ __forceinline__ const long long* pitch(const A& a) {
    if constexpr (kIn) return a.in_pitch[F];
    else return a.out_pitch[F];
  }
  template <class A>
  static __device__ __forceinline__ long long sy(const A& a) { return pitch(a)[0]; }
  template <class A>
  static __device__ __forceinline__ long long sz(const A& a) { return pitch(a)[1]; }
  template <class A>
  static __device__ __forceinline__ long long at(const A& a, int i, int j, int k) {
    return (i + GX) + pitch(a)[0] * (j + GY) + pitch(a)[1] * (k + GZ);
  }
};

template <class B, int F>
using InGeometry = FieldGeometry<B::kInGhost[F][0], B::kInGhost[F][1], B::kInGhost[F][2], true, B::kInPitchOf[F]>;
template <class B, int O>
using OutGeometry = FieldGeometry<B::kOutGhost[O][0], B::kOutGhost[O][1], B::kOutGhost[O][2], false, B::kOutPitchOf[O]>;

// Every input at one point (i, j, k), with the strides to its neighbours.
template <class B>
struct InputCursor {
  using real = typename B::real;
  static constexpr int kSlots = B::kNumIn > 0 ? B::kNumIn : 1;
  const real* p[kSlots];
  long long sy[kSlots];
  long long sz[kSlots];

  __device__ __forceinline__ InputCursor(const StencilArgs<B>& a, int i, int j, int k) {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      using G = InGeometry<B, F>;
      p[F] = a.in[F] + G::at(a, i, j, k);
      sy[F] = G::sy(a);
      sz[F] = G::sz(a);
    });
  }

  template <int F, int DX, int DY, int DZ>
  __device__ __forceinline__ real load() const {
    return __ldg(p[F] + DX + DY * sy[F] + DZ * sz[F]);
  }

  __device__ __forceinline__ void step_z() {
    for_each_index<B::kNumIn>([&](auto f) {
      constexpr int F = decltype(f)::value;
      p[F] += sz[F];
    });
  }
};

// Output O's periodic images of its interior point (i, j, k), stored at
// `at`: along each kernel axis whose bit B::kOutWrap[O] has, the ghost
// point a periodic fill would copy the point to (i + n where i < g, i - n
// where i >= n - g; 2 g <= n, which the host checks, so at most one), and
// their combinations (edges, corners). A time loop's stage fills its
// periodic ghosts so, in the stores of the state it makes
// (simulate/fused_update.hpp), instead of a launch that reads every face
// back. A warp at an edge pays for its lanes' images: a few adds and
// predicated stores.
template <class B, int O>
__device__ __forceinline__ void store_images(const StencilArgs<B>& a, typename B::real* at, int i, int j, int k, typename B::real v) {
  constexpr int kWrap = B::kOutWrap[O];
  if constexpr (kWrap != 0) {
    using G = OutGeometry<B, O>;
    // The offset from the point to its image along one axis (0: none).
    auto image = [](int c, int n, int g, long long stride) -> long long { return c < g ? n * stride : c >= n - g ? -n * stride : 0; };
    const long long dx = kWrap & 1 ? image(i, a.n.nx, B::kOutGhost[O][0], 1) : 0;
    const long long dy = kWrap & 2 ? image(j, a.n.ny, B::kOutGhost[O][1], G::sy(a)) : 0;
    const long long dz = kWrap & 4 ? image(k, a.n.nz, B::kOutGhost[O][2], G::sz(a)) : 0;
    if (dx == 0 && dy == 0 && dz == 0) return;
    if (dx) at[dx] = v;
    if (dy) at[dy] = v;
    if (dz) at[dz] = v;
    if (dx && dy) at[dx + dy] = v;
    if (dx && dz) at[dx + dz] = v;
    if (dy && dz) at[dy + dz] = v;
    if (dx && dy && dz) at[dx + dy + dz] = v;
  }
}

template <class B>
__device__ __forceinline__ void store_outputs(const StencilArgs<B>& a, int i, int j, int k,
                                              const typename B::real* v) {
  for_each_index<B::kNumOut>([&](auto o) {
    constexpr int O = decltype(o)::value;
    typename B::real* const at = a.out[O] + OutGeometry<B, O>::at(a, i, j, k);
    *at = v[O];
    store_images<B, O>(a, at, i, j, k, v[O]);
  });
}

}  // namespace gpen
