// gpen::exp_f64 beside CUDA's exp (families/common/device/math.cuh): the
// same bits over random arguments of the whole range and the edges, and
// the time of a float64 Yukawa tile kernel (one target a thread, 256
// sources a tile, N = 2^16) with each.
//   nvcc -arch=sm_90 -O3 -I families/common/device -o /tmp/exp64 bench/exp64.cu && /tmp/exp64
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "math.cuh"

struct CudaExp {
  __device__ double operator()(double x) const { return exp(x); }
};
struct GpenExp {
  __device__ double operator()(double x) const { return gpen::exp_f64(x); }
};

template <class E>
__global__ void exps(const double* x, double* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = E()(x[i]);
}

// phi_i = sum over j != i of q_j exp(-kappa r) / r, as gpen's yukawa_potential.
template <class E>
__global__ void yukawa(const double4_32a* p, double* phi, int n, double kappa) {
  __shared__ double4_32a tile[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const double4_32a t = p[i < n ? i : n - 1];
  double acc = 0;
  for (int j0 = 0; j0 < n; j0 += 256) {
    __syncthreads();
    if (j0 + threadIdx.x < n) tile[threadIdx.x] = p[j0 + threadIdx.x];
    __syncthreads();
    const int m = n - j0 < 256 ? n - j0 : 256;
#pragma unroll 4
    for (int k = 0; k < m; ++k) {
      const double4_32a s = tile[k];
      const double dx = t.x - s.x, dy = t.y - s.y, dz = t.z - s.z;
      const double r = sqrt(dx * dx + dy * dy + dz * dz);
      if (j0 + k != i) acc += s.w * E()(-kappa * r) / r;
    }
  }
  if (i < n) phi[i] = acc;
}

template <class F>
float time_ms(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  float best = 1e30f;
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    best = ms < best ? ms : best;
  }
  return best;
}

int main() {
  // Arguments: uniform over [-760, 760], random bit patterns (every class),
  // and the edges of each path.
  const int n = 1 << 24;
  std::vector<double> x(n);
  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> u(-760, 760);
  for (int i = 0; i < n / 2; ++i) x[i] = u(g);
  for (int i = n / 2; i < n; ++i) {
    const unsigned long long b = g();
    std::memcpy(&x[i], &b, 8);
  }
  const double edges[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 708.3964185322641, 708.39641853226421, 709.782712893384, 709.7827128933840,
                          -708.3964185322641, -708.4, -744.4400719213812, -745.1332191019411, -745.1332191019412, -746, 745.2, 1e-300, -1e-300,
                          1e-18, 0.5, -0.5, 1, -1, 2.2250738585072014e-308};
  for (std::size_t e = 0; e < sizeof edges / sizeof edges[0]; ++e) x[e] = edges[e];
  for (int e = 0; e < 4096; ++e) x[64 + e] = (e % 2 ? 1 : -1) * (700 + e * (50.0 / 4096));  // both overflow edges
  double *dx, *d1, *d2;
  cudaMalloc(&dx, n * 8);
  cudaMalloc(&d1, n * 8);
  cudaMalloc(&d2, n * 8);
  cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice);
  exps<CudaExp><<<n / 256, 256>>>(dx, d1, n);
  exps<GpenExp><<<n / 256, 256>>>(dx, d2, n);
  std::vector<double> a(n), b(n);
  cudaMemcpy(a.data(), d1, n * 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), d2, n * 8, cudaMemcpyDeviceToHost);
  long long differ = 0;
  for (int i = 0; i < n; ++i)
    if (std::memcmp(&a[i], &b[i], 8) != 0 && !(std::isnan(a[i]) && std::isnan(b[i]))) {
      if (differ < 5) std::printf("differ at x = %a: CUDA %a, gpen %a\n", x[i], a[i], b[i]);
      ++differ;
    }
  std::printf("exp over %d arguments: %lld differ from CUDA's bits\n", n, differ);

  const int np = 1 << 16;
  std::vector<double> p(4 * np);
  std::uniform_real_distribution<double> v(0, 1);
  for (auto& q : p) q = v(g);
  double4_32a* dp;
  cudaMalloc(&dp, np * 32);
  cudaMemcpy(dp, p.data(), np * 32, cudaMemcpyHostToDevice);
  const double pairs = double(np) * (np - 1);
  const float ms_cuda = time_ms([&] { yukawa<CudaExp><<<np / 256, 256>>>(dp, d1, np, 2.0); });
  const float ms_gpen = time_ms([&] { yukawa<GpenExp><<<np / 256, 256>>>(dp, d2, np, 2.0); });
  cudaMemcpy(a.data(), d1, np * 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), d2, np * 8, cudaMemcpyDeviceToHost);
  const bool same = std::memcmp(a.data(), b.data(), np * 8) == 0;
  std::printf("Yukawa tile, N = 2^16, float64: CUDA exp %.3f ms (%.3e pairs/s), gpen::exp_f64 %.3f ms (%.3e pairs/s), %.3fx; sums %s\n", ms_cuda,
              pairs / ms_cuda * 1e3, ms_gpen, pairs / ms_gpen * 1e3, ms_cuda / ms_gpen, same ? "bit for bit equal" : "DIFFER");
  return differ == 0 && same ? 0 : 1;
}
