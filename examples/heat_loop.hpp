// A heat equation's time loop in the caller's own code: arrays the caller
// allocated with the driver API (cuMemAlloc), a stream the caller made,
// and two gpen kernels a step (heat_step.json, a stencil; then
// heat_diagnostics.json, a reduction of the new field), each the tuned
// variant for the size where `gpen tune` stored one. Nothing is allocated,
// copied or waited for inside the loop but the two results of the steps
// the caller asks for, copied back in its stream. Used by
// examples/time_loop.cpp and by the GPU test of arrays the caller owns.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "gpen/families/common/kernel.hpp"
#include "gpen/measure/tune/tuned_kernel.hpp"
#include "gpen/runtime/driver.hpp"

namespace gpen::example {

struct HeatLoop {
  std::vector<double> heat, peak;  // the diagnostics after each step
  std::vector<double> u;           // the last field, padded, ghosts included
  std::size_t allocations_in_loop = 0;  // device allocations made by the loop's launches
};

// `u0` is the padded initial field (n^3 interior, ghost 2): its ghost zones
// are the fixed boundary values. Throws what gpen throws.
inline HeatLoop run_heat_loop(const Context& ctx, const std::string& examples_dir, long long n, int steps, const std::vector<double>& u0) {
  const Spec step = load_spec(examples_dir + "/heat_step.json");
  const Spec diag = load_spec(examples_dir + "/heat_diagnostics.json");
  const std::array<long long, 3> shape{n, n, n};
  const std::string size = std::to_string(n);
  // The caller's memory: two padded fields, swapped each step.
  const long long p = n + 4;
  const std::size_t bytes = static_cast<std::size_t>(p * p * p) * sizeof(double);
  CUdeviceptr mem[2] = {0, 0};
  for (CUdeviceptr& m : mem) GPEN_CU(cuMemAlloc(&m, bytes), "allocating the caller's field");
  CUdeviceptr results = 0;  // heat, then peak
  GPEN_CU(cuMemAlloc(&results, 2 * sizeof(double)), "allocating the caller's results");
  CUstream stream = nullptr;
  GPEN_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "creating the caller's stream");

  HeatLoop out;
  {
    // gpen's views of them: nothing allocated, nothing copied.
    DeviceBuffer field[2] = {DeviceBuffer::view(mem[0], Dtype::Float64, 3, shape, 2), DeviceBuffer::view(mem[1], Dtype::Float64, 3, shape, 2)};
    const DeviceBuffer heat = DeviceBuffer::view(results, Dtype::Float64, 3, {1, 1, 1}, 0);
    const DeviceBuffer peak = DeviceBuffer::view(results + sizeof(double), Dtype::Float64, 3, {1, 1, 1}, 0);
    field[0].upload(u0);
    field[1].upload(u0);  // the same boundary values in both
    const auto step_kernel = make_tuned_kernel(step, size, ctx);
    const auto diag_kernel = make_tuned_kernel(diag, size, ctx);
    diag_kernel->prepare(shape);  // its partials, once, before the loop

    const std::size_t before = DeviceMemory::allocations();
    double host[2];
    for (int s = 0; s < steps; ++s) {
      const DeviceBuffer& now = field[s % 2];
      const DeviceBuffer& next = field[(s + 1) % 2];
      step_kernel->launch({{"u", &now}, {"u_next", &next}}, {}, stream);
      diag_kernel->launch({{"u", &next}, {"heat", &heat}, {"peak", &peak}}, {}, stream);
      GPEN_CU(cuMemcpyDtoHAsync(host, results, sizeof host, stream), "copying the diagnostics back");
      GPEN_CU(cuStreamSynchronize(stream), "waiting for the step");  // the caller's choice: a CFL step would need it
      out.heat.push_back(host[0]);
      out.peak.push_back(host[1]);
    }
    out.allocations_in_loop = DeviceMemory::allocations() - before;
    out.u = field[steps % 2].download();
  }
  driver().cuStreamDestroy(stream);
  for (CUdeviceptr m : mem) driver().cuMemFree(m);
  driver().cuMemFree(results);
  return out;
}

}  // namespace gpen::example
