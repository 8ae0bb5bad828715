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
#include <stdexcept>
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

// The caller's own resources, freed however the loop ends.
struct CallerArrays {
  CUdeviceptr field[2] = {0, 0};
  CUdeviceptr results = 0;  // heat, then peak
  CUstream stream = nullptr;
  CallerArrays() = default;
  CallerArrays(const CallerArrays&) = delete;
  ~CallerArrays() {
    if (stream) {
      driver().cuStreamSynchronize(stream);
      driver().cuStreamDestroy(stream);
    }
    for (CUdeviceptr m : {field[0], field[1], results})
      if (m) driver().cuMemFree(m);
  }
};

// `u0` is the padded initial field ((n + 4)^3 values: n^3 interior, ghost
// 2): its ghost zones are the fixed boundary values. Throws what gpen
// throws, or std::invalid_argument for n < 1, steps < 0 or a u0 of another size.
inline HeatLoop run_heat_loop(const Context& ctx, const std::string& examples_dir, long long n, int steps, const std::vector<double>& u0) {
  const long long p = n + 4;
  if (n < 1 || n > 1024 || steps < 0 || u0.size() != static_cast<std::size_t>(p * p * p))
    throw std::invalid_argument("run_heat_loop: expected 1 <= n <= 1024, steps >= 0 and (n + 4)^3 initial values");
  ctx.make_current();
  const Spec step = load_spec(examples_dir + "/heat_step.json");
  const Spec diag = load_spec(examples_dir + "/heat_diagnostics.json");
  const std::array<long long, 3> shape{n, n, n};
  const std::string size = std::to_string(n);
  // The caller's memory: two padded fields, swapped each step; its stream.
  CallerArrays mine;
  const std::size_t bytes = u0.size() * sizeof(double);
  for (CUdeviceptr& m : mine.field) GPEN_CU(cuMemAlloc(&m, bytes), "allocating the caller's field");
  GPEN_CU(cuMemAlloc(&mine.results, 2 * sizeof(double)), "allocating the caller's results");
  GPEN_CU(cuStreamCreate(&mine.stream, CU_STREAM_NON_BLOCKING), "creating the caller's stream");

  // gpen's views of them: nothing allocated, nothing copied.
  DeviceBuffer field[2] = {DeviceBuffer::view(mine.field[0], Dtype::Float64, 3, shape, 2), DeviceBuffer::view(mine.field[1], Dtype::Float64, 3, shape, 2)};
  const DeviceBuffer heat = DeviceBuffer::view(mine.results, Dtype::Float64, 3, {1, 1, 1}, 0);
  const DeviceBuffer peak = DeviceBuffer::view(mine.results + sizeof(double), Dtype::Float64, 3, {1, 1, 1}, 0);
  field[0].upload(u0);
  field[1].upload(u0);  // the same boundary values in both
  const auto step_kernel = make_tuned_kernel(step, size, ctx);
  const auto diag_kernel = make_tuned_kernel(diag, size, ctx);
  diag_kernel->prepare(shape);  // its partials, once, before the loop

  HeatLoop out;
  const std::size_t before = DeviceMemory::allocations();
  double host[2];
  for (int s = 0; s < steps; ++s) {
    const DeviceBuffer& now = field[s % 2];
    const DeviceBuffer& next = field[(s + 1) % 2];
    step_kernel->launch({{"u", &now}, {"u_next", &next}}, {}, mine.stream);
    diag_kernel->launch({{"u", &next}, {"heat", &heat}, {"peak", &peak}}, {}, mine.stream);
    GPEN_CU(cuMemcpyDtoHAsync(host, mine.results, sizeof host, mine.stream), "copying the diagnostics back");
    GPEN_CU(cuStreamSynchronize(mine.stream), "waiting for the step");  // the caller's choice: a CFL step would need it
    out.heat.push_back(host[0]);
    out.peak.push_back(host[1]);
  }
  out.allocations_in_loop = DeviceMemory::allocations() - before;
  out.u = field[steps % 2].download();
  return out;
}

}  // namespace gpen::example
