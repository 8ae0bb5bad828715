// gpen SBP templates: a summation-by-parts operator applied along axes of a
// 1-3-D array (x contiguous, no ghost zones, rows and planes at the
// pitches of the launch: packed, or the caller's padding). Along each axis, the output at
// point i of a line of n points is
//   left(i, u)          for i < kLeftRows       (u(j) = the line's point j)
//   right(n-1-i, u)     for i >= n - kRightRows (u(j) = the line's point n-1-j)
//   interior(u)         otherwise               (u(k) = the point i + k)
// times the axis's scale (1 / h^derivative), summed over the spec's axes.
//
// `B` is the bindings struct that the generator writes for one spec:
//   using real;
//   kBlockX, kBlockY                 threads of a block
//   kRadius, kLeftRows, kRightRows   the interior stencil's reach; closure rows
//   kOnAxis[3]                       the axes the operator is applied along (direct)
//   kAxis, kAcrossAxis, kThirdAxis   pencil: its axis, its cross axis, the rest
//   kAlong, kAcross                  pencil: its sides in points
//   interior(u), left(row, u), right(row, u)
#pragma once

#include "gpen/sbp_args.h"

namespace gpen {

// Elements between neighbours along `axis` of an array with these pitches
// ([0] between rows, [1] between planes).
__device__ __forceinline__ long long sbp_stride(const long long* pitch, int axis) {
  return axis == 0 ? 1 : axis == 1 ? pitch[0] : pitch[1];
}

// The offset of point p of the pencil's line at cross index cc, in the
// block's plane along the third axis, in an array with these pitches.
__device__ __forceinline__ long long sbp_at(const long long* pitch, int along, int across, int third, long long p, long long cc) {
  return p * sbp_stride(pitch, along) + cc * sbp_stride(pitch, across) + static_cast<long long>(blockIdx.z) * sbp_stride(pitch, third);
}

// The operator at point i of the line through `line` (its point 0) with
// `stride` between points: closure row or interior, chosen per point.
template <class B>
__device__ __forceinline__ typename B::real sbp_point(const typename B::real* line, long long stride, long long n, long long i) {
  if (i < B::kLeftRows) return B::left(static_cast<int>(i), [&](int j) { return __ldg(line + j * stride); });
  if (i >= n - B::kRightRows) {
    const typename B::real* last = line + (n - 1) * stride;
    return B::right(static_cast<int>(n - 1 - i), [&](int j) { return __ldg(last - j * stride); });
  }
  const typename B::real* at = line + i * stride;
  return B::interior([&](int k) { return __ldg(at + k * stride); });
}

// A thread a point; every axis of the operator summed.
template <class B>
__device__ void sbp_direct(const SbpArgs<typename B::real>& a) {
  using real = typename B::real;
  const long long c[3] = {static_cast<long long>(blockIdx.x) * B::kBlockX + threadIdx.x,
                          static_cast<long long>(blockIdx.y) * B::kBlockY + threadIdx.y, blockIdx.z};
  // The block's first point on each axis and how many it spans there.
  const long long first[3] = {static_cast<long long>(blockIdx.x) * B::kBlockX, static_cast<long long>(blockIdx.y) * B::kBlockY, blockIdx.z};
  const int span[3] = {B::kBlockX, B::kBlockY, 1};
  // A local copy: B's static array lives on the host only (nvcc), so device
  // code may read it at a run-time index only through a copy.
  constexpr bool on_axis[3] = {B::kOnAxis[0], B::kOnAxis[1], B::kOnAxis[2]};
  if (c[0] >= a.n[0] || c[1] >= a.n[1]) return;
  const long long at = c[0] + a.in_pitch[0] * c[1] + a.in_pitch[1] * c[2];
  real sum = 0;
#pragma unroll
  for (int ax = 0; ax < 3; ++ax) {
    if (!on_axis[ax]) continue;
    const long long n = a.n[ax], s = sbp_stride(a.in_pitch, ax);
    real v;
    // Interior blocks take the interior stencil without a per-point branch.
    if (first[ax] >= B::kLeftRows && first[ax] + span[ax] <= n - B::kRightRows) {
      const real* p = a.in + at;
      v = B::interior([&](int k) { return __ldg(p + k * s); });
    } else {
      v = sbp_point<B>(a.in + at - c[ax] * s, s, n, c[ax]);
    }
    sum += static_cast<real>(a.scale[ax]) * v;
  }
  a.out[c[0] + a.out_pitch[0] * c[1] + a.out_pitch[1] * c[2]] = sum;
}

// A pencil of kAlong x kAcross points a block, threads looping over it.
template <class B>
__device__ void sbp_pencil(const SbpArgs<typename B::real>& a) {
  using real = typename B::real;
  constexpr int A = B::kAxis, C = B::kAcrossAxis, W = B::kThirdAxis, R = B::kRadius;
  constexpr int AL = B::kAlong, AC = B::kAcross;
  // Threads along x work on the contiguous axis: the pencil's own when it
  // is x, its cross axis otherwise. Either way a warp reads consecutive
  // addresses, in global and in shared memory (no transposition, no padding).
  constexpr int TA = A == 0 ? B::kBlockX : B::kBlockY, TC = A == 0 ? B::kBlockY : B::kBlockX;
  const int ta = A == 0 ? threadIdx.x : threadIdx.y, tc = A == 0 ? threadIdx.y : threadIdx.x;
  const long long n = a.n[A], nc = a.n[C];
  const long long sa = sbp_stride(a.in_pitch, A), sc = sbp_stride(a.in_pitch, C);
  const long long a0 = static_cast<long long>(blockIdx.x) * AL, c0 = static_cast<long long>(blockIdx.y) * AC;
  const long long base = static_cast<long long>(blockIdx.z) * sbp_stride(a.in_pitch, W);
  const real scale = static_cast<real>(a.scale[A]);

  if (a0 < B::kLeftRows || a0 + AL > n - B::kRightRows) {
    // A pencil with closure rows or the line's end: per point, from global memory.
#pragma unroll
    for (int j = tc; j < AC; j += TC) {
      const long long cc = c0 + j;
      if (cc >= nc) continue;
      const real* line = a.in + base + cc * sc;
#pragma unroll
      for (int i = ta; i < AL; i += TA) {
        const long long p = a0 + i;
        if (p < n) a.out[sbp_at(a.out_pitch, A, C, W, p, cc)] = scale * sbp_point<B>(line, sa, n, p);
      }
    }
    return;
  }

  // Interior pencil: points a0 - R .. a0 + AL + R - 1 all exist (closures
  // have at least R rows), so only the cross axis needs a bound.
  constexpr int kLen = AL + 2 * R;
  __shared__ real tile[A == 0 ? AC * kLen : kLen * AC];
  auto cell = [](int i, int j) { return A == 0 ? j * kLen + i : i * AC + j; };
#pragma unroll
  for (int j = tc; j < AC; j += TC) {
    const long long cc = c0 + j < nc ? c0 + j : nc - 1;  // columns past the end load a real point, never stored
    const real* line = a.in + base + cc * sc + (a0 - R) * sa;
#pragma unroll
    for (int i = ta; i < kLen; i += TA) tile[cell(i, j)] = __ldg(line + i * sa);
  }
  __syncthreads();
#pragma unroll
  for (int j = tc; j < AC; j += TC) {
    const long long cc = c0 + j;
    if (cc >= nc) continue;
    real* out = a.out + sbp_at(a.out_pitch, A, C, W, a0, cc);
#pragma unroll
    for (int i = ta; i < AL; i += TA) out[i * sbp_stride(a.out_pitch, A)] = scale * B::interior([&](int k) { return tile[cell(i + R + k, j)]; });
  }
}

}  // namespace gpen
