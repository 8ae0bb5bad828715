// The instructions each math function of the expression language executes
// on the GPU, as gpen prints it under each "math" policy: a kernel a
// function over 2^20 arguments in [0.5, 4), run once under Nsight Compute
// (bench/math_costs.sh), which counts the warp instructions each pipe
// executed; less a kernel that only copies (or adds, for two arguments).
// The table in families/pairwise/pair_cost.cpp comes from its output.
#include <cmath>
#include <cstdio>
#include <vector>

#include "math.cuh"

#define KERNEL(name, T, expr)                                                      \
  extern "C" __global__ void name(const T* a, const T* b, T* out, int n) {        \
    const int i = blockIdx.x * blockDim.x + threadIdx.x;                          \
    if (i < n) {                                                                  \
      const T x = a[i], y = b[i];                                                 \
      (void)y;                                                                    \
      out[i] = (expr);                                                            \
    }                                                                             \
  }

// name, type, expression: the copy and add first, each function after.
#define FUNCTIONS(X)                                          \
  X(f32_copy, float, x)                                       \
  X(f32_add, float, x + y)                                    \
  X(f32_sqrt, float, sqrtf(x))                                \
  X(f32_rsqrt, float, rsqrtf(x))                              \
  X(f32_div, float, x / y)                                    \
  X(f32_exp, float, expf(x))                                  \
  X(f32_log, float, logf(x))                                  \
  X(f32_sin, float, sinf(x))                                  \
  X(f32_cos, float, cosf(x))                                  \
  X(f32_tanh, float, tanhf(x))                                \
  X(f32_pow, float, powf(x, y))                               \
  X(f32_min, float, fminf(x, y))                              \
  X(f32_fast_sqrt, float, gpen::fast_sqrt(x))                 \
  X(f32_fast_sqrt_rs, float, gpen::fast_sqrt(x, y))           \
  X(f32_fast_rsqrt, float, gpen::fast_rsqrt(x))               \
  X(f32_fast_div, float, gpen::fast_div(x, y))                \
  X(f32_fast_exp, float, gpen::fast_exp(x))                   \
  X(f32_fast_exp2, float, gpen::fast_exp2(x))                 \
  X(f32_fast_log, float, gpen::fast_log(x))                   \
  X(f32_fast_sin, float, __sinf(x))                           \
  X(f32_fast_cos, float, __cosf(x))                           \
  X(f32_fast_pow, float, __powf(x, y))                        \
  X(f64_copy, double, x)                                      \
  X(f64_add, double, x + y)                                   \
  X(f64_sqrt, double, sqrt(x))                                \
  X(f64_rsqrt, double, rsqrt(x))                              \
  X(f64_div, double, x / y)                                   \
  X(f64_exp, double, gpen::exp_f64(x))                        \
  X(f64_exp_neg, double, gpen::exp_f64(-x))                   \
  X(f64_exp_cuda, double, exp(x))                             \
  X(f64_log, double, log(x))                                  \
  X(f64_sin, double, sin(x))                                  \
  X(f64_cos, double, cos(x))                                  \
  X(f64_tanh, double, tanh(x))                                \
  X(f64_pow, double, pow(x, y))                               \
  X(f64_min, double, fmin(x, y))                              \
  X(f64_fast_sqrt, double, gpen::fast_sqrt(x))                \
  X(f64_fast_sqrt_rs, double, gpen::fast_sqrt(x, y))          \
  X(f64_fast_rsqrt, double, gpen::fast_rsqrt(x))              \
  X(f64_fast_div, double, gpen::fast_div(x, y))

FUNCTIONS(KERNEL)

template <class T>
struct Buffers {  // arguments and results
  T *a, *b, *out;
};

int main() {
  const int n = 1 << 20;
  Buffers<float> f;
  Buffers<double> d;
  std::vector<double> h(n), g(n);
  for (int i = 0; i < n; ++i) h[i] = 0.5 + 3.5 * ((i * 2654435761u) % 1000003) / 1000003.0, g[i] = 0.5 + 3.5 * ((i * 40503u) % 999983) / 999983.0;
  std::vector<float> hf(h.begin(), h.end()), gf(g.begin(), g.end());
  for (auto* p : {&f.a, &f.b, &f.out}) cudaMalloc(p, n * sizeof(float));
  for (auto* p : {&d.a, &d.b, &d.out}) cudaMalloc(p, n * sizeof(double));
  cudaMemcpy(f.a, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(f.b, gf.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d.a, h.data(), n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(d.b, g.data(), n * sizeof(double), cudaMemcpyHostToDevice);
#define LAUNCH(name, T, expr) name<<<n / 256, 256>>>(sizeof(T) == 4 ? (const T*)f.a : (const T*)d.a, sizeof(T) == 4 ? (const T*)f.b : (const T*)d.b, \
                                                     sizeof(T) == 4 ? (T*)f.out : (T*)d.out, n);
  FUNCTIONS(LAUNCH)
  const cudaError_t e = cudaDeviceSynchronize();
#define ONE(name, T, expr) +1
  std::printf("%d kernels of %d threads: %s\n", 0 FUNCTIONS(ONE), n, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
