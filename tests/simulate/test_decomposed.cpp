// A program run on subdomains (the CPU reference, every rank in this
// process, the exchange's host model between stages) against the same
// program undecomposed: the fields bit for bit after several steps, for
// 1-, 2- and 3-D splits of every shipped 3-D program (issue 30).
#include <algorithm>
#include <cmath>
#include <string>

#include <doctest/doctest.h>

#include "gpen/generator/error.hpp"
#include "gpen/simulate/decomposed_cpu_backend.hpp"
#include "gpen/simulate/simulation.hpp"
#include "halo_support.hpp"
#include "program_support.hpp"

using namespace gpen;
using namespace gpen::sim;

namespace {

std::string shipped(const std::string& name) { return test::read_file(test::source_dir() + "/specs/programs/" + name + ".json"); }

long long differences(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  long long n = a.size() == b.size() ? 0 : 1;
  for (std::size_t f = 0; f < std::min(a.size(), b.size()); ++f) n += test::differing_values(a[f], b[f]);
  return n;
}

}  // namespace

TEST_CASE("a program on subdomains: bitwise the undecomposed run, every shipped 3-D program, 1-, 2- and 3-D splits") {
  int ran = 0;
  for (const char* name : {"sound_wave3d", "heat_walls3d", "orszag_tang3d", "alfven_wave3d"}) {
    const Program p = test::program_of(shipped(name), std::array<long long, 3>{17, 13, 11});
    const std::vector<std::vector<double>> init = initial_values(p);
    CpuBackend whole(p);
    whole.set_fields(init);
    const std::vector<std::vector<double>> filled = whole.fields();  // walls may set their boundary points
    const double dt = 1e-4;  // a few small steps: the comparison is of bits, not of physics
    for (int s = 0; s < 3; ++s) whole.step(dt);
    for (const RankGrid grid : {RankGrid{{2, 1, 1}}, RankGrid{{1, 3, 1}}, RankGrid{{1, 1, 2}}, RankGrid{{2, 2, 1}}, RankGrid{{3, 2, 2}}}) {
      CAPTURE(std::string(name));
      CAPTURE(grid.ranks[0]);
      CAPTURE(grid.ranks[1]);
      CAPTURE(grid.ranks[2]);
      DecomposedCpuBackend parts(p, grid);
      parts.set_fields(init);
      CHECK(differences(parts.fields(), filled) == 0);  // scattered, filled and gathered as the whole
      for (int s = 0; s < 3; ++s) parts.step(dt);
      CHECK(differences(parts.fields(), whole.fields()) == 0);
      // Reductions across ranks: a maximum bit for bit, sums to rounding.
      if (p.time_step.speed) CHECK(parts.max_speed() == whole.max_speed());
      const std::vector<double> want = whole.diagnostics(), got = parts.diagnostics();
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - want[i]) <= 1e-13 * std::max(1.0, std::abs(want[i])));
      ++ran;
    }
  }
  CHECK(ran == 20);
}

TEST_CASE("a program on subdomains: what cannot be split is refused, naming why") {
  const Program sbp = test::program_of(shipped("wave2d_sbp"));
  std::string why;
  try {
    DecomposedCpuBackend parts(sbp, RankGrid{{2, 1, 1}});
  } catch (const UsageError& e) {
    why = e.what();
  }
  CHECK(why.find("of kind \"sbp\"") != std::string::npos);
  const Program heat = test::program_of(shipped("heat_walls3d"), std::array<long long, 3>{17, 13, 11});
  why.clear();
  try {
    DecomposedCpuBackend parts(heat, RankGrid{{17, 1, 1}});
  } catch (const UsageError& e) {
    why = e.what();
  }
  CHECK(why.find("--ranks: ") == 0);
}
