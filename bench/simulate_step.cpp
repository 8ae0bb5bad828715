// A program's step on the GPU against its parts launched alone (issue 27's
// speed target: the loop's overhead, its ghost fills and time step, within
// 1.15x of its right-hand sides' time). For each --size and --dtype:
// the copy bandwidth in this process, then --steps steps of the program
// (diagnostics and snapshots off: the step alone, with its CFL read-back),
// then each part of a step repeated alone (GpuBackend::time_parts).
// Prints a Markdown table on stdout, each part on stderr.
//
//   gpen_bench_simulate PROGRAM [--size N[,N...]] [--dtype float64[,float32]] [--steps S] [--repeat R] [--set name=value ...]
//                       [--periodic-ghosts measured|stores|fills] [--time-step device|host]
// --set: a tunable of every right-hand side (else each runs its tuned or default variant).
// --periodic-ghosts: where a stage's periodic ghosts come from (GpuOptions; measured: the faster).
// --time-step: a CFL step computed on the device, steps launched ahead (the default), or on the host from the read-back speed.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpen/families/common/grid_run.hpp"
#include "gpen/runtime/driver.hpp"
#include "gpen/simulate/gpu_backend.hpp"
#include "gpen/simulate/simulation.hpp"

using namespace gpen;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');) out.push_back(x);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: gpen_bench_simulate PROGRAM [--size N[,N...]] [--dtype float64[,float32]] [--steps S] [--repeat R] [--set name=value ...] "
                 "[--periodic-ghosts measured|stores|fills] [--time-step device|host]\n";
    return 2;
  }
  const std::string path = argv[1];
  std::vector<std::string> sizes{"256"}, dtypes{"float64"};
  long long steps = 50;
  int repeat = 20;
  sim::GpuOptions options;
  if ((argc - 2) % 2 != 0) {
    std::cerr << "gpen_bench_simulate: " << argv[argc - 1] << " without its value\n";
    return 2;
  }
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--size") sizes = split(v);
    else if (a == "--dtype") dtypes = split(v);
    else if (a == "--steps") steps = std::atoll(v.c_str());
    else if (a == "--repeat") repeat = std::atoi(v.c_str());
    else if (a == "--set") options.rhs_set.push_back(v);
    else if (a == "--periodic-ghosts" && (v == "measured" || v == "stores" || v == "fills"))
      options.periodic_ghosts = v == "measured" ? sim::GpuOptions::PeriodicGhosts::Measured
                                : v == "stores" ? sim::GpuOptions::PeriodicGhosts::Stores
                                                : sim::GpuOptions::PeriodicGhosts::Fills;
    else if (a == "--time-step" && (v == "device" || v == "host"))
      options.device_time_step = v == "device";
    else if (a == "--periodic-ghosts" || a == "--time-step") {
      std::cerr << "gpen_bench_simulate: " << a << " " << v << ": " << (a == "--time-step" ? "device or host" : "measured, stores or fills") << "\n";
      return 2;
    } else {
      std::cerr << "gpen_bench_simulate: unknown option " << a << "\n";
      return 2;
    }
  }
  for (const std::string& d : dtypes)
    if (!parse_dtype(d)) {
      std::cerr << "gpen_bench_simulate: --dtype " << d << ": float32 or float64\n";
      return 2;
    }
  if (steps < 1 || repeat < 1) {
    std::cerr << "gpen_bench_simulate: --steps and --repeat take whole numbers from 1\n";
    return 2;
  }
  std::string why;
  if (!driver_available(&why)) {
    std::cerr << "gpen_bench_simulate: no GPU (" << why << ")\n";
    return 3;
  }
  Context ctx(0);
  fmt::print("variant of the right-hand sides: {}; time step computed on the {}\n\n",
             options.rhs_set.empty() ? "tuned or default" : fmt::format("{}", fmt::join(options.rhs_set, " ")), options.device_time_step ? "device" : "host");
  fmt::print("| program | size | dtype | copy GB/s | step ms | Mcell/s | rhs kernels alone ms | rhs % of copy | boundaries ms | CFL ms | step / rhs kernels |\n");
  fmt::print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const std::string& size : sizes)
    for (const std::string& dtype : dtypes) {
      sim::Program p = sim::load_program(
          path, [&](int dims) { return parse_size(size, dims); }, *parse_dtype(dtype));
      p.diagnostics.every = 0;
      const double points = static_cast<double>(p.size[0] * p.size[1] * p.size[2]);
      const double copy_gbs = measure_copy_gbs(ctx, static_cast<std::size_t>(points) * size_of(p.dtype), 20);
      auto owned = std::make_unique<sim::GpuBackend>(p, ctx, options);
      sim::GpuBackend& gpu = *owned;
      for (const std::string& c : gpu.periodic_ghost_choices()) fmt::print(stderr, "{} {} {}: {}\n", p.name, size, dtype, c);
      sim::Simulation s(p, std::move(owned));
      s.initialize();
      sim::RunOptions o;
      o.steps = 3;  // warm: every kernel loaded, the clocks up
      s.run(o);
      o.steps = steps;
      const auto t0 = std::chrono::steady_clock::now();
      const sim::RunResult r = s.run(o);
      const double step_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / static_cast<double>(r.steps);
      double rhs_ms = 0, rhs_bytes = 0, boundaries_ms = 0, cfl_ms = 0;
      for (const sim::GpuBackend::PartTime& part : gpu.time_parts(1e-3, repeat)) {
        fmt::print(stderr, "{} {} {}: {:.4f} ms a step{}\n", p.name, size, dtype, part.ms,
                   part.bytes > 0 ? fmt::format(", {:.1f}% of copy", 100 * part.bytes / (part.ms * 1e-3) / (copy_gbs * 1e9)) : "");
        if (part.rhs) {
          rhs_ms += part.ms;
          rhs_bytes += part.bytes;
        } else if (part.what.rfind("boundaries", 0) == 0) {
          boundaries_ms += part.ms;
        } else {
          cfl_ms += part.ms;
        }
        fmt::print(stderr, "  {}\n", part.what);
      }
      fmt::print("| {} | {} | {} | {:.0f} | {:.3f} | {:.0f} | {:.3f} | {:.1f}% | {:.3f} | {:.3f} | {:.3f} |\n", p.name, size, dtype, copy_gbs, step_ms,
                 points / (step_ms * 1e-3) / 1e6, rhs_ms, 100 * rhs_bytes / (rhs_ms * 1e-3) / (copy_gbs * 1e9), boundaries_ms, cfl_ms, step_ms / rhs_ms);
      std::cout.flush();
    }
  return 0;
}
