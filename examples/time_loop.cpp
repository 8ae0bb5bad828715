// examples/time_loop.cpp: a heat equation stepped by gpen kernels on arrays
// this program owns (heat_loop.hpp), printing the total heat and the peak.
//   build/examples/gpen_time_loop [examples dir] [n] [steps]
#include <cmath>
#include <cstdio>
#include <string>

#include "heat_loop.hpp"

int main(int argc, char** argv) {
  std::string why;
  if (!gpen::driver_available(&why)) {
    std::printf("no GPU here (%s): nothing to step\n", why.c_str());
    return 0;
  }
  try {
    const std::string dir = argc > 1 ? argv[1] : "examples";
    const long long n = argc > 2 ? std::stoll(argv[2]) : 128;
    const int steps = argc > 3 ? std::stoi(argv[3]) : 100;
    gpen::Context ctx(0);  // the device's primary context, as the CUDA runtime's
    // A hot cube in the middle of a cold box whose walls (the ghost zones) stay at 0.
    const long long p = n + 4;
    std::vector<double> u0(static_cast<std::size_t>(p * p * p), 0.0);
    for (long long k = 2 + n / 4; k < 2 + 3 * n / 4; ++k)
      for (long long j = 2 + n / 4; j < 2 + 3 * n / 4; ++j)
        for (long long i = 2 + n / 4; i < 2 + 3 * n / 4; ++i) u0[static_cast<std::size_t>(i + p * (j + p * k))] = 1.0;
    const gpen::example::HeatLoop r = gpen::example::run_heat_loop(ctx, dir, n, steps, u0);
    for (int s = 0; s < steps; s += std::max(1, steps / 10))
      std::printf("step %4d  heat %.9e  peak %.6f\n", s + 1, r.heat[static_cast<std::size_t>(s)], r.peak[static_cast<std::size_t>(s)]);
    std::printf("device allocations inside the loop: %zu\n", r.allocations_in_loop);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "time_loop: %s\n", e.what());
    return 1;
  }
  return 0;
}
