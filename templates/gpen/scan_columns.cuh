// Scan along a strided axis (y or z): each thread carries the running values
// of kVectorX neighbouring columns in registers and walks the axis, so that
// a warp reads and writes whole rows of x (coalesced, kVectorX values an
// access). kValuesPerThread steps are loaded before any is combined, to keep
// that many accesses in flight per thread.
#pragma once

#include "gpen/scan_common.cuh"

namespace gpen {

// One batch of K steps along the axis, from logical step p0; `whole`: all K
// steps exist and the thread's kVectorX columns are aligned and in range.
template <class B, int K, bool kWhole>
__device__ __forceinline__ void scan_column_steps(const ScanArgs<typename B::real>& a, const typename B::real* src, typename B::real* dst,
                                                  long long p0, int columns, typename B::real (&run)[B::kVectorX]) {
  using real = typename B::real;
  constexpr int W = B::kVectorX;
  const long long n = a.length, s = a.inner;
  real x[K][W];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const long long p = p0 + k;
    const long long q = stored_index<B>(n, p);
    if (kWhole) {
      load_vectors<W, W>(src + q * s, x[k]);
    } else if (p < n) {
#pragma unroll
      for (int w = 0; w < W; ++w) x[k][w] = w < columns ? src[q * s + w] : B::identity();
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const long long p = p0 + k;
    if (!kWhole && p >= n) break;
#pragma unroll
    for (int w = 0; w < W; ++w) {
      const real next = B::combine(run[w], x[k][w]);
      x[k][w] = B::kExclusive ? run[w] : next;
      run[w] = next;
    }
    const long long q = stored_index<B>(n, p);
    if (kWhole) {
      store_vectors<W, W>(dst + q * s, x[k]);
    } else {
#pragma unroll
      for (int w = 0; w < W; ++w)
        if (w < columns) dst[q * s + w] = x[k][w];
    }
  }
}

template <class B>
__device__ void scan_columns(const ScanArgs<typename B::real>& a) {
  using real = typename B::real;
  constexpr int T = B::kBlockX, V = B::kValuesPerThread, W = B::kVectorX;
  const long long groups = (a.inner + T * W - 1) / (T * W);  // column groups per plane
  const long long plane = blockIdx.x / groups, c0 = ((blockIdx.x % groups) * T + threadIdx.x) * W;
  if (c0 >= a.inner) return;
  const int columns = static_cast<int>(a.inner - c0 < W ? a.inner - c0 : W);
  const bool aligned = a.inner % W == 0;  // then columns == W and every access is aligned
  const real* src = a.in + plane * a.length * a.inner + c0;
  real* dst = a.out + plane * a.length * a.inner + c0;
  real run[W];
#pragma unroll
  for (int w = 0; w < W; ++w) run[w] = B::identity();
  long long p0 = 0;
  if (aligned)
    for (; p0 + V <= a.length; p0 += V) scan_column_steps<B, V, true>(a, src, dst, p0, columns, run);
  for (; p0 < a.length; p0 += V) scan_column_steps<B, V, false>(a, src, dst, p0, columns, run);
}

}  // namespace gpen
