// Runs of consecutive values along x, loaded and stored with the widest
// accesses the alignment allows (up to 16 bytes), so that a thread that owns
// kVectorX neighbouring points moves them in one instruction, not kVectorX.
#pragma once

#include "gpen/stencil_common.cuh"

namespace gpen {

template <class T, int N>
struct VectorOf;
template <> struct VectorOf<float, 1> { using type = float; };
template <> struct VectorOf<float, 2> { using type = float2; };
template <> struct VectorOf<float, 4> { using type = float4; };
template <> struct VectorOf<double, 1> { using type = double; };
template <> struct VectorOf<double, 2> { using type = double2; };

// Widest access (in values) for a run of N values of T: at most 16 bytes.
template <class T, int N>
constexpr int kAccessWidth = (N * sizeof(T) >= 16) ? 16 / sizeof(T) : N;

template <class T, int W>
__device__ __forceinline__ void unpack(const typename VectorOf<T, W>::type& v, T* d) {
  if constexpr (W == 1) d[0] = v;
  else if constexpr (W == 2) { d[0] = v.x; d[1] = v.y; }
  else { d[0] = v.x; d[1] = v.y; d[2] = v.z; d[3] = v.w; }
}

template <class T, int W>
__device__ __forceinline__ typename VectorOf<T, W>::type pack(const T* s) {
  if constexpr (W == 1) return s[0];
  else if constexpr (W == 2) return {s[0], s[1]};
  else return {s[0], s[1], s[2], s[3]};
}

// d[0..N) = p[0..N); p is aligned to N values (N a power of two).
template <int N, class T>
__device__ __forceinline__ void load_run(const T* p, T* d) {
  constexpr int W = kAccessWidth<T, N>;
  using V = typename VectorOf<T, W>::type;
#pragma unroll
  for (int s = 0; s < N; s += W) unpack<T, W>(__ldg(reinterpret_cast<const V*>(p + s)), d + s);
}

// d[0..N) = p[0..N) from shared memory; p is aligned to N values.
template <int N, class T>
__device__ __forceinline__ void load_shared_run(const T* p, T* d) {
  constexpr int W = kAccessWidth<T, N>;
  using V = typename VectorOf<T, W>::type;
#pragma unroll
  for (int s = 0; s < N; s += W) unpack<T, W>(*reinterpret_cast<const V*>(p + s), d + s);
}

// p[0..N) = s[0..N), every value when `whole`, else the first `count`.
// kStream: vector stores marked evict-first (st.global.cs), for outputs that
// nothing in the kernel reads back.
template <int N, bool kStream = false, class T>
__device__ __forceinline__ void store_run(T* p, const T* s, bool aligned, bool whole, int count) {
  constexpr int W = kAccessWidth<T, N>;
  if (W > 1 && aligned && whole) {
    using V = typename VectorOf<T, W>::type;
#pragma unroll
    for (int t = 0; t < N; t += W) {
      if constexpr (kStream) __stcs(reinterpret_cast<V*>(p + t), pack<T, W>(s + t));
      else *reinterpret_cast<V*>(p + t) = pack<T, W>(s + t);
    }
  } else {
#pragma unroll
    for (int t = 0; t < N; ++t)
      if (whole || t < count) p[t] = s[t];
  }
}

}  // namespace gpen
