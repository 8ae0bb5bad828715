// GPU: float64 functions as gpen prints them (math.cuh) against CUDA's,
// bit for bit: the accurate policy promises CUDA's results. gpen::exp_f64
// everywhere; sqrt_rn, div_rn and the flagged exp_f64 of the pairwise
// kernels wherever they leave their `slow` flag unset, and they must leave
// it unset over the common range.
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "gpen/generator/templates.hpp"
#include "gpen/runtime/device.hpp"
#include "gpen/runtime/nvrtc_compiler.hpp"

using namespace gpen;

namespace {

// CUDA's value and gpen's of `cuda_expr` and `gpen_expr` (of a[i], b[i];
// `slow` a bool the gpen form may set) at every (a, b), and gpen's flag.
struct Compared {
  std::vector<double> cuda, ours;
  std::vector<unsigned char> slow;
};

Compared compare_on_gpu(const std::string& cuda_expr, const std::string& gpen_expr, const std::vector<double>& a, const std::vector<double>& b) {
  static Context ctx(0);
  const std::string text =
      "#include \"gpen/math.cuh\"\n"
      "extern \"C\" __global__ void both(const double* a, const double* b, double* cuda, double* ours, unsigned char* flag, int n) {\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) {\n"
      "    bool slow = false;\n"
      "    cuda[i] = " + cuda_expr + ";\n"
      "    ours[i] = " + gpen_expr + ";\n"
      "    flag[i] = slow;\n"
      "  }\n"
      "}\n";
  const Program program{"math64_check.cu", "both", "test", {"source " + text, template_headers_sha256(), ""}, [text] { return text; },
                        [] { return template_headers(); }};
  const CompiledKernel k = compile_with_nvrtc(program, ctx.info().arch());
  const Module module(k.cubin, "both", "loading the math check");
  const int n = static_cast<int>(a.size());
  DeviceMemory da(n * sizeof(double)), db(n * sizeof(double)), dc(n * sizeof(double)), dg(n * sizeof(double)), df(n);
  da.upload(a.data(), n * sizeof(double));
  db.upload(b.data(), n * sizeof(double));
  CUdeviceptr pa = da.get(), pb = db.get(), pc = dc.get(), pg = dg.get(), pf = df.get();
  int count = n;
  void* args[] = {&pa, &pb, &pc, &pg, &pf, &count};
  GPEN_CU(cuLaunchKernel(module.function(), (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "launching the math check");
  GPEN_CU(cuCtxSynchronize(), "waiting for the math check");
  Compared c{std::vector<double>(n), std::vector<double>(n), std::vector<unsigned char>(n)};
  dc.download(c.cuda.data(), n * sizeof(double));
  dg.download(c.ours.data(), n * sizeof(double));
  df.download(c.slow.data(), n);
  return c;
}

bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0 || (std::isnan(x) && std::isnan(y)); }

// Counts the arguments where gpen's value is not CUDA's, among all or
// (flagged) among those it did not flag; reports the first few.
long long differences(const Compared& c, const std::vector<double>& a, const std::vector<double>& b, bool flagged, const char* what) {
  long long differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(flagged && c.slow[i]) && !same_bits(c.cuda[i], c.ours[i]))
      if (differ++ < 5) FAIL_CHECK(what << " at a = " << a[i] << ", b = " << b[i] << ": " << c.cuda[i] << " in CUDA, " << c.ours[i] << " from gpen");
  return differ;
}

double from_bits(unsigned long long u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

// Half uniform over [lo, hi], a quarter random bit patterns (subnormals,
// huge values, infinities, NaNs), a quarter log-uniform positive values
// over the common range 2^-900 .. 2^900.
std::vector<double> arguments(int n, double lo, double hi, unsigned seed) {
  std::vector<double> x(n);
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(lo, hi), e(-900, 900);
  for (int i = 0; i < n / 2; ++i) x[i] = u(g);
  for (int i = n / 2; i < 3 * n / 4; ++i) x[i] = from_bits(g());
  for (int i = 3 * n / 4; i < n; ++i) x[i] = std::ldexp(1.0 + (g() >> 12) * 0x1p-52, static_cast<int>(e(g)));
  return x;
}

}  // namespace

TEST_CASE("gpen::exp_f64 gives CUDA's exp bit for bit: random arguments of every class and both overflow edges") {
  // Half uniform over [-760, 760] (every path: normal results, the
  // two-step scaling of 708.4 <= |x| < 745.1, overflow, underflow), half
  // random bit patterns, then the edges themselves.
  const int n = 1 << 22;
  std::vector<double> x = arguments(n, -760, 760, 7);
  const double edges[] = {0.0, -0.0, HUGE_VAL, -HUGE_VAL, NAN, 708.3964185322641, 709.782712893384, 709.7827128933841, -708.3964185322641,
                          -744.4400719213812, -745.1332191019411, -745.1332191019412, 1e-300, -1e-300, 0.5, -0.5, 1.0, 2.2250738585072014e-308};
  for (std::size_t e = 0; e < std::size(edges); ++e) x[e] = edges[e];
  for (int e = 0; e < 4096; ++e) x[64 + e] = (e % 2 ? 1 : -1) * (700 + e * (50.0 / 4096));
  const Compared c = compare_on_gpu("exp(a[i])", "gpen::exp_f64(a[i])", x, x);
  CHECK(differences(c, x, x, false, "exp") == 0);
  // The flagged form: CUDA's bits wherever it does not flag, and flags nothing below 708.39.
  const Compared f = compare_on_gpu("exp(a[i])", "gpen::exp_f64(a[i], slow)", x, x);
  CHECK(differences(f, x, x, true, "flagged exp") == 0);
  long long common = 0, flagged = 0;
  for (int i = 0; i < n; ++i)
    if (std::fabs(x[i]) < 708.39) {
      ++common;
      flagged += f.slow[i];
    }
  CHECK(common > n / 3);
  CHECK(flagged == 0);
}

TEST_CASE("gpen::sqrt_rn and gpen::div_rn give CUDA's IEEE sqrt and division bit for bit wherever they leave `slow` unset, and leave it unset over the common range") {
  const int n = 1 << 22;
  std::mt19937_64 g(11);
  // sqrt: the classes above, and near-halfway cases: the neighbours of
  // exact squares m^2 (m of 26 bits, so m^2 fits), whose roots lie a
  // hair off representable values.
  std::vector<double> x = arguments(n, 0, 1e6, 3);
  for (int i = 0; i < n / 8; ++i) {
    const double m = std::ldexp(static_cast<double>((g() >> 38) | 1), static_cast<int>(g() % 200) - 100);
    x[n / 2 - 1 - i] = std::nextafter(m * m, i % 2 ? HUGE_VAL : 0.0);
  }
  // The same at the top of the range, m^2 in [2^1023, 2^1024), and at the
  // bottom of the common one, m^2 just above 2^-969.
  for (int i = 0; i < n / 16; ++i) {
    const double m = std::ldexp(static_cast<double>((g() >> 39) | (1ULL << 25) | (3ULL << 23) | 1), i % 2 ? 486 : -510);
    x[n / 2 - n / 8 - 1 - i] = std::nextafter(m * m, i % 4 < 2 ? HUGE_VAL : 0.0);
  }
  const double sqrt_edges[] = {0.0, -0.0, -1.0, HUGE_VAL, NAN, 0x1p-970, std::nextafter(0x1p-970, 0.0), 0x1p-1022, 4.9e-324, 0x1.fffffffffffffp1023};
  for (std::size_t e = 0; e < std::size(sqrt_edges); ++e) x[e] = sqrt_edges[e];
  const Compared s = compare_on_gpu("sqrt(a[i])", "gpen::sqrt_rn(a[i], slow)", x, x);
  CHECK(differences(s, x, x, true, "sqrt") == 0);
  long long common = 0, flagged = 0;
  for (int i = 0; i < n; ++i)
    if (x[i] >= 0x1p-969 && x[i] < 0x1p1023) {
      ++common;
      flagged += s.slow[i];
    }
  CHECK(common > n / 2);
  CHECK(flagged == 0);

  // Division: a and b of every class, and quotients near halfway:
  // a = b q and its neighbours for q of 26 bits.
  std::vector<double> a = arguments(n, -1e3, 1e3, 5), b = arguments(n, -1e3, 1e3, 6);
  for (int i = 0; i < n / 8; ++i) {
    const double q = std::ldexp(static_cast<double>((g() >> 38) | 1), static_cast<int>(g() % 100) - 50);
    b[i] = std::ldexp(static_cast<double>((g() >> 38) | 1), static_cast<int>(g() % 100) - 50);
    a[i] = std::nextafter(b[i] * q, i % 3 == 0 ? HUGE_VAL : i % 3 == 1 ? 0.0 : b[i] * q);
  }
  const double div_edges[][2] = {{1, 0}, {0, 1}, {0, 0}, {1, HUGE_VAL}, {HUGE_VAL, 1}, {NAN, 1}, {1, 0x1p-1060}, {0x1p-1060, 3}, {1e300, 1e-300}, {1e-300, 1e300}, {0x1p-969, 1}, {-7, 3}};
  for (std::size_t e = 0; e < std::size(div_edges); ++e) {
    a[n - 1 - e] = div_edges[e][0];
    b[n - 1 - e] = div_edges[e][1];
  }
  const Compared d = compare_on_gpu("a[i] / b[i]", "gpen::div_rn(a[i], b[i], slow)", a, b);
  CHECK(differences(d, a, b, true, "division") == 0);
  common = flagged = 0;
  for (int i = 0; i < n; ++i) {
    const double q = std::fabs(a[i] / b[i]);
    if (std::fabs(a[i]) >= 0x1p-900 && std::fabs(a[i]) < 0x1p900 && std::fabs(b[i]) >= 0x1p-900 && std::fabs(b[i]) < 0x1p900 && q >= 0x1p-900 && q < 0x1p900) {
      ++common;
      flagged += d.slow[i];
    }
  }
  CHECK(common > n / 2);
  CHECK(flagged == 0);
}
