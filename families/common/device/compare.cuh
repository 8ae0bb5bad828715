// Comparison of two padded arrays of the same geometry on the GPU, so that a
// tuner can verify every variant at full size without copying it back:
// over the interior, the sums of squared differences and of squared
// reference values, the largest difference and the count of non-finite
// values; over the ghost zones, the count of values that are not the NaN
// poison the output started as. One row of kStats partial results per block;
// the host adds them up.
#pragma once

namespace gpen {

constexpr int kCompareStats = 5;  // sum d^2, sum want^2, max |d|, non-finite, ghost changed
constexpr int kCompareThreads = 256;

template <class real>
__device__ __forceinline__ void compare_arrays(const real* got, const real* want, long long nx, long long ny, long long nz,
                                               int dims, int g, double* partials) {
  const long long n[3] = {nx, ny, nz};
  long long pad[3], lo[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = d < dims ? g : 0;
    pad[d] = n[d] + 2 * lo[d];
  }
  const long long total = pad[0] * pad[1] * pad[2];
  double s[kCompareStats] = {0, 0, 0, 0, 0};
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    const long long i = t % pad[0], j = (t / pad[0]) % pad[1], k = t / (pad[0] * pad[1]);
    const bool interior = i >= lo[0] && i < lo[0] + n[0] && j >= lo[1] && j < lo[1] + n[1] && k >= lo[2] && k < lo[2] + n[2];
    const double a = got[t];
    if (interior) {
      const double b = want[t], d = a - b;
      if (isfinite(a)) {
        s[0] += d * d;
        s[1] += b * b;
        s[2] = fmax(s[2], fabs(d));
      } else {
        s[3] += 1;
      }
    } else if (!isnan(a)) {
      s[4] += 1;
    }
  }
  __shared__ double red[kCompareStats][kCompareThreads];
  for (int q = 0; q < kCompareStats; ++q) red[q][threadIdx.x] = s[q];
  __syncthreads();
  for (int w = kCompareThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w)
      for (int q = 0; q < kCompareStats; ++q)
        red[q][threadIdx.x] = q == 2 ? fmax(red[q][threadIdx.x], red[q][threadIdx.x + w]) : red[q][threadIdx.x] + red[q][threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int q = 0; q < kCompareStats; ++q) partials[blockIdx.x * kCompareStats + q] = red[q][0];
}

}  // namespace gpen
