// GPU: float64 exp as gpen prints it (gpen::exp_f64, math.cuh) against
// CUDA's exp, bit for bit: the accurate policy promises CUDA's results.
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "gpen/generator/templates.hpp"
#include "gpen/runtime/device.hpp"
#include "gpen/runtime/nvrtc_compiler.hpp"

using namespace gpen;

TEST_CASE("gpen::exp_f64 gives CUDA's exp bit for bit: random arguments of every class and both overflow edges") {
  Context ctx(0);
  const std::string text =
      "#include \"gpen/math.cuh\"\n"
      "extern \"C\" __global__ void exp_both(const double* x, double* cuda, double* ours, int n) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) {\n"
      "    cuda[i] = exp(x[i]);\n"
      "    ours[i] = gpen::exp_f64(x[i]);\n"
      "  }\n"
      "}\n";
  const Program program{"exp64_check.cu", "exp_both", "test", {"source " + text, template_headers_sha256(), ""}, [text] { return text; },
                        [] { return template_headers(); }};
  const CompiledKernel k = compile_with_nvrtc(program, ctx.info().arch());
  const Module module(k.cubin, "exp_both", "loading the exp check");

  // Half uniform over [-760, 760] (every path: normal results, the
  // two-step scaling of 708.4 <= |x| < 745.1, overflow, underflow), half
  // random bit patterns (subnormals, huge values, infinities, NaNs), then
  // the edges themselves.
  const int n = 1 << 22;
  std::vector<double> x(n);
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(-760, 760);
  for (int i = 0; i < n / 2; ++i) x[i] = u(g);
  for (int i = n / 2; i < n; ++i) {
    const unsigned long long b = g();
    std::memcpy(&x[i], &b, sizeof b);
  }
  const double edges[] = {0.0, -0.0, HUGE_VAL, -HUGE_VAL, NAN, 708.3964185322641, 709.782712893384, 709.7827128933841, -708.3964185322641,
                          -744.4400719213812, -745.1332191019411, -745.1332191019412, 1e-300, -1e-300, 0.5, -0.5, 1.0, 2.2250738585072014e-308};
  for (std::size_t e = 0; e < std::size(edges); ++e) x[e] = edges[e];
  for (int e = 0; e < 4096; ++e) x[64 + e] = (e % 2 ? 1 : -1) * (700 + e * (50.0 / 4096));

  DeviceMemory dx(n * sizeof(double)), dc(n * sizeof(double)), dg(n * sizeof(double));
  dx.upload(x.data(), n * sizeof(double));
  CUdeviceptr px = dx.get(), pc = dc.get(), pg = dg.get();
  int count = n;
  void* args[] = {&px, &pc, &pg, &count};
  GPEN_CU(cuLaunchKernel(module.function(), n / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "launching the exp check");
  GPEN_CU(cuCtxSynchronize(), "waiting for the exp check");
  std::vector<double> cuda(n), ours(n);
  dc.download(cuda.data(), n * sizeof(double));
  dg.download(ours.data(), n * sizeof(double));
  long long differ = 0;
  for (int i = 0; i < n; ++i)
    if (std::memcmp(&cuda[i], &ours[i], sizeof(double)) != 0 && !(std::isnan(cuda[i]) && std::isnan(ours[i]))) {
      if (differ++ < 5) FAIL_CHECK("exp(" << x[i] << ") = " << cuda[i] << " in CUDA, " << ours[i] << " from gpen::exp_f64");
    }
  CHECK(differ == 0);
}
