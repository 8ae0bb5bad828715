// GPU: kernels launched on arrays the caller owns: the example time loop
// (examples/heat_loop.hpp: the caller's cuMemAlloc'd fields and stream, a
// stencil and a reduction a step) against the CPU reference step by step,
// with no allocation inside the loop; and a launch that returns before its
// kernel ends (no host synchronisation on the launch path).
#include <cmath>
#include <limits>
#include <random>

#include "../../examples/heat_loop.hpp"
#include "gpu_support.hpp"
#include "test_support.hpp"
#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/point_values.hpp"
#include "gpen/families/common/workload.hpp"
#include "gpen/families/reduce/reduce_reference.hpp"
#include "gpen/families/stencil/stencil_reference.hpp"

using namespace gpen;

namespace {

Context& user_ctx() {
  static Context c(0);
  return c;
}

}  // namespace

TEST_CASE("a time loop on the caller's arrays and stream: a stencil and a reduction a step, as the CPU computes them, nothing allocated") {
  const long long n = 37;
  const int steps = 6;
  const std::string dir = gpen::test::source_dir() + "/examples";
  HostArray u(3, {n, n, n}, 2);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (auto& v : u.data) v = dist(rng);  // ghosts too: the boundary values
  const example::HeatLoop gpu = example::run_heat_loop(user_ctx(), dir, n, steps, u.data);
  CHECK(gpu.allocations_in_loop == 0);
  REQUIRE(gpu.heat.size() == static_cast<std::size_t>(steps));

  const Spec step = load_spec(dir + "/heat_step.json");
  const Spec diag = load_spec(dir + "/heat_diagnostics.json");
  HostArray next = u;
  for (int s = 0; s < steps; ++s) {
    reference_stencil(step, {&u}, param_values(step, {}), {&next});
    std::vector<HostArray> want, scale;
    for (const auto* f : diag.output_fields()) want.emplace_back(3, field_shape(*f, {n, n, n}), 0);
    reference_reduce(diag, {&next}, {}, {n, n, n}, want, scale);
    INFO("step " << s + 1);
    // The sum's bound (reduce_reference.hpp), doubled for the fields' own
    // rounding, which the GPU and the CPU do in other orders step by step.
    CHECK(std::fabs(gpu.heat[s] - want[0].data[0]) <= 2 * kReduceErrorBound * std::numeric_limits<double>::epsilon() * scale[0].data[0]);
    CHECK(gpu.peak[s] == doctest::Approx(want[1].data[0]).epsilon(1e-13));
    u = next;
  }
  // The last field, ghosts (the boundary) untouched.
  double num = 0, den = 0;
  for (std::size_t i = 0; i < u.data.size(); ++i) {
    if (!u.is_interior(i)) {
      CHECK(gpu.u[i] == u.data[i]);
      continue;
    }
    num += (gpu.u[i] - u.data[i]) * (gpu.u[i] - u.data[i]);
    den += u.data[i] * u.data[i];
  }
  CHECK(std::sqrt(num / den) < 1e-13);
}

TEST_CASE("a launch returns before its kernel ends: the host does not wait") {
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/reduce/sum3d.json");
  Workload w(user_ctx(), s, {512, 512, 512});
  const auto k = make_kernel(s, s.choose(), user_ctx());
  Stream stream;
  k->prepare(w.size());
  k->launch(w.bindings(0), w.params(), stream.get());  // warm: module, partials
  stream.synchronize();
  const std::size_t before = DeviceMemory::allocations();
  for (int r = 0; r < 10; ++r) k->launch(w.bindings(0), w.params(), stream.get());
  const CUresult right_after = driver().cuStreamQuery(stream.get());
  stream.synchronize();
  CHECK(right_after == CUDA_ERROR_NOT_READY);  // 10 launches of 134 M values take about 4 ms
  CHECK(DeviceMemory::allocations() == before);
  CHECK(driver().cuStreamQuery(stream.get()) == CUDA_SUCCESS);
}

TEST_CASE("after prepare, launches of a scan and a reduction allocate nothing, and stay right") {
  for (const char* path : {"/specs/scan/cumsum_1d.json", "/specs/scan/cumsum_z.json", "/specs/reduce/mass_energy.json"}) {
    const Spec s = load_spec(gpen::test::source_dir() + path);
    const std::array<long long, 3> size = s.dims == 1 ? std::array<long long, 3>{3000017, 1, 1} : std::array<long long, 3>{67, 45, 333};
    Workload w(user_ctx(), s, size);
    const auto k = make_kernel(s, s.choose(), user_ctx());
    k->prepare(size);
    Stream stream;
    const std::size_t before = DeviceMemory::allocations();
    for (int r = 0; r < 3; ++r) {
      w.poison_outputs(stream.get());
      k->launch(w.bindings(0), w.params(), stream.get());
    }
    stream.synchronize();
    INFO(path);
    CHECK(DeviceMemory::allocations() == before);
    CHECK(w.verify_on_cpu().pass);
  }
}

TEST_CASE("kernels in a context the caller made, not the primary one") {
  user_ctx();  // the driver open and the primary context retained, as by other cases
  CUdevice dev = 0;
  GPEN_CU(cuDeviceGet(&dev, 0), "test: GPU 0");
  CUcontext own = nullptr;
  GPEN_CU(cuCtxCreate(&own, nullptr, 0, dev), "test: creating a context");
  {
    const Context adopted = Context::current();
    CHECK(adopted.info().name == user_ctx().info().name);
    for (const char* path : {"/specs/reduce/divergence_norm.json", "/specs/stencil/laplacian3d_o8.json"}) {
      const Spec s = load_spec(gpen::test::source_dir() + path);
      gpen::test::check_verified(adopted, s, {}, {67, 45, 33});  // its module, buffers and streams in `own`
    }
  }
  CUcontext current = nullptr;
  GPEN_CU(cuCtxGetCurrent(&current), "test: the current context");
  CHECK(current == own);  // gpen left the caller's context current
  GPEN_CU(cuCtxDestroy(own), "test: destroying the context");
  user_ctx().make_current();
}
