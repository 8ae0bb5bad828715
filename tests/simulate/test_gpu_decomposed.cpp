// A program's GPU time loop on subdomains (issue 30), every rank on this
// GPU, a thread each, through the local transport: its fields bit for bit
// the undecomposed GPU run's after several steps, for 1-, 2- and 3-D
// splits of 2 to 8 ranks of every shipped 3-D program, each integrator,
// both dtypes; the CFL speed bit for bit, diagnostic sums to rounding; the
// time step on the device (its maximum over the ranks in stream order)
// gives the same steps, times and fields; a failing rank stops the others.
// With the stages overlapping their exchanges (each subdomain's shell, then
// its exchange, on a stream of high priority beside its core), the fields
// bit for bit the undecomposed run's with the same kernels (no periodic
// images stored along split axes), walls and corners included.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <doctest/doctest.h>

#include "gpen/simulate/decomposed_gpu_backend.hpp"
#ifdef GPEN_HAVE_NCCL
#include "gpen/simulate/halo_nccl.hpp"
#include "nccl_support.hpp"
#endif
#include "gpen/simulate/simulation.hpp"
#include "halo_support.hpp"
#include "program_support.hpp"

using namespace gpen;
using namespace gpen::sim;

namespace {

Context& split_ctx() {
  static Context c(0);
  return c;
}

}  // namespace

namespace {

// p's fields after 3 small steps (dt 1e-4: the comparison is of bits, not
// of physics) from `init`, the host computing the time step, with `o`, on
// the whole grid or on `grid`; `overlapped`: whether the stages overlapped
// their exchanges.
std::vector<std::vector<double>> three_steps(const sim::Program& p, const std::vector<std::vector<double>>& init, GpuOptions o, const RankGrid& grid = {},
                                             bool* overlapped = nullptr, long long* core_points = nullptr) {
  o.device_time_step = false;
  std::unique_ptr<Backend> b;
  if (grid.count() == 1) {
    b = std::make_unique<GpuBackend>(p, split_ctx(), o);
  } else {
    auto parts = std::make_unique<DecomposedGpuBackend>(p, grid, split_ctx(), o);
    if (overlapped) *overlapped = parts->rank(0).overlapped();
    if (core_points) *core_points = parts->rank(0).core_points();
    b = std::move(parts);
  }
  b->set_fields(init);
  for (int s = 0; s < 3; ++s) b->step(1e-4);
  return b->fields();
}

// The options of the whole run whose kernels are those of a run on `grid`
// with `ghosts` whose stages overlap their exchanges: no periodic images
// stored along the split axes (and the stores where measured, as on a
// decomposed grid).
GpuOptions as_overlapped(GpuOptions::PeriodicGhosts ghosts, const RankGrid& grid) {
  GpuOptions o;
  o.periodic_ghosts = ghosts == GpuOptions::PeriodicGhosts::Measured ? GpuOptions::PeriodicGhosts::Stores : ghosts;
  for (int a = 0; a < 3; ++a)
    if (grid.ranks[static_cast<std::size_t>(a)] > 1) o.image_axes &= ~(1u << a);
  return o;
}

GpuOptions with_ghosts(GpuOptions::PeriodicGhosts ghosts) {
  GpuOptions o;
  o.periodic_ghosts = ghosts;
  return o;
}

}  // namespace

TEST_CASE("a GPU loop on subdomains of one GPU: bitwise the undecomposed GPU run, every shipped 3-D program, 2 to 8 ranks") {
  struct Case {
    std::string program, integrator, dtype;
    GpuOptions::PeriodicGhosts ghosts = GpuOptions::PeriodicGhosts::Measured;  // a decomposed grid's: the stores
  };
  int ran = 0, overlapped_runs = 0;
  for (const Case& c : {Case{"sound_wave3d", "rk3", "float64"}, Case{"sound_wave3d", "rk4", "float64"}, Case{"sound_wave3d", "euler", "float32"},
                        Case{"heat_walls3d", "rk3", "float64"}, Case{"orszag_tang3d", "rk3", "float32"}, Case{"alfven_wave3d", "rk3", "float64"},
                        Case{"orszag_tang3d", "rk3", "float64", GpuOptions::PeriodicGhosts::Fills}}) {
    std::string text = test::shipped_program(c.program);
    text = test::with(text, R"~("integrator": "rk3")~", R"~("integrator": ")~" + c.integrator + "\"");
    text = test::with(text, R"~("dtype": "float64")~", R"~("dtype": ")~" + c.dtype + "\"");
    const sim::Program p = test::program_of(text, std::array<long long, 3>{17, 13, 11});
    const std::vector<std::vector<double>> init = initial_values(p);
    GpuOptions host_dt;
    host_dt.device_time_step = false;
    host_dt.periodic_ghosts = c.ghosts;
    host_dt.overlap = false;
    // The undecomposed run with the kernels a decomposed one takes without
    // overlap (its ghosts in the stores where measured): the same arithmetic.
    GpuOptions as_split = host_dt;
    if (c.ghosts == GpuOptions::PeriodicGhosts::Measured) as_split.periodic_ghosts = GpuOptions::PeriodicGhosts::Stores;
    GpuBackend whole(p, split_ctx(), as_split);
    whole.set_fields(init);
    const std::vector<std::vector<double>> filled = whole.fields();
    const double dt = 1e-4;  // a few small steps: the comparison is of bits, not of physics
    for (int s = 0; s < 3; ++s) whole.step(dt);
    for (const RankGrid grid : {RankGrid{{2, 1, 1}}, RankGrid{{1, 3, 1}}, RankGrid{{2, 2, 1}}, RankGrid{{3, 1, 2}}, RankGrid{{2, 2, 2}}}) {
      CAPTURE(c.program);
      CAPTURE(c.integrator);
      CAPTURE(c.dtype);
      CAPTURE(grid.ranks[0]);
      CAPTURE(grid.ranks[1]);
      CAPTURE(grid.ranks[2]);
      DecomposedGpuBackend parts(p, grid, split_ctx(), host_dt);
      CHECK(!parts.rank(0).overlapped());
      const std::size_t allocations = DeviceMemory::allocations();
      parts.set_fields(init);
      CHECK(test::field_differences(parts.fields(), filled) == 0);
      for (int s = 0; s < 3; ++s) parts.step(dt);
      CHECK(test::field_differences(parts.fields(), whole.fields()) == 0);
      if (p.time_step.speed) CHECK(parts.max_speed() == whole.max_speed());
      const std::vector<double> want = whole.diagnostics(), got = parts.diagnostics();
      REQUIRE(got.size() == want.size());
      const double tolerance = p.dtype == Dtype::Float64 ? 1e-12 : 1e-5;
      for (std::size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - want[i]) <= tolerance * std::max(1.0, std::abs(want[i])));
      CHECK(DeviceMemory::allocations() == allocations);  // nothing allocated once the ranks' loops were set up
      ++ran;
      // The stages overlapping their exchanges (2N integrators): the whole
      // run with the same kernels.
      bool overlapped = false;
      const std::vector<std::vector<double>> with_overlap = three_steps(p, init, with_ghosts(c.ghosts), grid, &overlapped);
      CHECK(overlapped == (c.integrator != "rk4"));
      if (overlapped) {
        CHECK(test::field_differences(with_overlap, three_steps(p, init, as_overlapped(c.ghosts, grid))) == 0);
        ++overlapped_runs;
      }
    }
  }
  CHECK(ran == 35);
  CHECK(overlapped_runs == 30);
}

TEST_CASE("stages overlapping their exchanges: bitwise the whole run with the same kernels, walls and mixed derivatives, thin and wide subdomains") {
  // orszag_tang3d reads its neighbours' corners (mixed derivatives); here
  // also with value and symmetric walls, whose fills come after the exchanges.
  const std::string walls = R"~("boundaries": [{"type": "value", "faces": ["x-"], "value": 0.25}, {"type": "symmetric", "faces": ["x+"]}, )~"
                            R"~({"type": "value", "faces": ["z"], "value": -0.5}], "integrator": "rk3")~";
  auto overlap_case = [&](const std::string& dtype, const std::array<long long, 3> size, bool every_split_keeps_a_core) {
    int ran = 0;
    for (const bool with_walls : {false, true}) {
      std::string text = test::shipped_program("orszag_tang3d");
      text = test::with(text, R"~("dtype": "float64")~", R"~("dtype": ")~" + dtype + "\"");
      if (with_walls) text = test::with(text, R"~("integrator": "rk3")~", walls);
      const sim::Program p = test::program_of(text, size);
      const std::vector<std::vector<double>> init = initial_values(p);
      for (const GpuOptions::PeriodicGhosts ghosts : {GpuOptions::PeriodicGhosts::Measured, GpuOptions::PeriodicGhosts::Fills})
        for (const RankGrid grid : {RankGrid{{4, 1, 1}}, RankGrid{{1, 2, 2}}, RankGrid{{2, 2, 2}}, RankGrid{{3, 1, 3}}}) {
          CAPTURE(with_walls);
          CAPTURE(ghosts == GpuOptions::PeriodicGhosts::Fills);
          CAPTURE(grid.ranks[0]);
          CAPTURE(grid.ranks[1]);
          CAPTURE(grid.ranks[2]);
          bool overlapped = false;
          long long core = 0;
          const std::vector<std::vector<double>> parts = three_steps(p, init, with_ghosts(ghosts), grid, &overlapped, &core);
          CHECK(overlapped);
          if (every_split_keeps_a_core) CHECK(core > 0);
          CHECK(test::field_differences(parts, three_steps(p, init, as_overlapped(ghosts, grid))) == 0);
          ++ran;
        }
    }
    CHECK(ran == 16);
  };
  // Nested subcases, so that a sanitizer run can take one dtype and size (-sc).
  auto sizes = [&](const std::string& dtype) {
    SUBCASE("thin 17x14x13") { overlap_case(dtype, {17, 14, 13}, false); }
    SUBCASE("wide 64x48x40") { overlap_case(dtype, {64, 48, 40}, false); }
    // Every split keeps a core, cut along the rows too (an x slab is at least a 128-byte line).
    SUBCASE("cores cut along x 288x16x24") { overlap_case(dtype, {288, 16, 24}, true); }
  };
  SUBCASE("float64") { sizes("float64"); }
  SUBCASE("float32") { sizes("float32"); }
}

TEST_CASE("a GPU loop on subdomains with the time step on the device: the same steps, times and fields as the undecomposed run") {
  std::string text = test::shipped_program("orszag_tang3d");  // its CFL speed reads ghosts (curl A)
  text = test::with(text, R"~("diagnostics": {"every": 10)~", R"~("diagnostics": {"every": 5)~");
  const sim::Program p = test::program_of(text, std::array<long long, 3>{24, 16, 12});
  auto run = [&](std::unique_ptr<Backend> b) {
    CHECK(b->steps_on_device());
    Simulation s(p, std::move(b));
    s.initialize();
    RunOptions r;
    r.steps = 12;
    const RunResult result = s.run(r);
    return std::make_tuple(result.steps, s.time(), s.backend().fields(), result.last_diagnostics);
  };
  GpuOptions stores;
  stores.periodic_ghosts = GpuOptions::PeriodicGhosts::Stores;  // as the decomposed runs fill them
  const auto whole = run(std::make_unique<GpuBackend>(p, split_ctx(), stores));
  GpuOptions no_overlap;
  no_overlap.overlap = false;
  for (const RankGrid grid : {RankGrid{{2, 1, 1}}, RankGrid{{2, 2, 2}}})
    for (const bool overlap : {false, true}) {
      CAPTURE(grid.ranks[1]);
      CAPTURE(overlap);
      // Overlapped: the whole run with the kernels that store no images along split axes.
      const auto want = overlap ? run(std::make_unique<GpuBackend>(p, split_ctx(), as_overlapped(GpuOptions::PeriodicGhosts::Measured, grid))) : whole;
      const auto parts = run(std::make_unique<DecomposedGpuBackend>(p, grid, split_ctx(), overlap ? GpuOptions{} : no_overlap));
      CHECK(std::get<0>(parts) == std::get<0>(want));
      CHECK(std::get<1>(parts) == std::get<1>(want));
      CHECK(test::field_differences(std::get<2>(parts), std::get<2>(want)) == 0);
      REQUIRE(std::get<3>(parts).size() == std::get<3>(want).size());
    }
}

TEST_CASE("local ranks: one rank's failure stops the others at their next meeting, and is what the caller sees") {
  const sim::Program p = test::program_of(test::shipped_program("sound_wave3d"), std::array<long long, 3>{17, 13, 11});
  const Decomposition d = decompose(p, RankGrid{{2, 2, 1}});
  LocalRanks group(p, d, split_ctx());
  std::vector<std::shared_ptr<RankLinks>> links;
  for (int r = 0; r < d.count(); ++r) links.push_back(group.links(r));
  std::string what;
  try {
    group.run([&](int r) {
      if (r == 2) throw std::runtime_error("rank 2 failed on purpose");
      links[static_cast<std::size_t>(r)]->gather({1.0});  // the others wait here for rank 2
    });
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  CHECK(what == "rank 2 failed on purpose");
  // The group cannot meet again; and no rank meets outside run().
  CHECK_THROWS_AS(group.run([&](int r) { links[static_cast<std::size_t>(r)]->gather({1.0}); }), RankAborted);
  CHECK_THROWS_AS(links[0]->gather({1.0}), std::logic_error);
}

#ifdef GPEN_HAVE_NCCL
TEST_CASE("one rank through NCCL's links: the loop's steps, speed and diagnostics as without links") {
  const test::OneRankComm one(split_ctx());
  {
    const sim::Program p = test::program_of(test::shipped_program("sound_wave3d"), std::array<long long, 3>{24, 16, 12});
    auto run = [&](std::shared_ptr<RankLinks> links) {
      GpuOptions o;
      o.links = links;
      o.periodic_ghosts = GpuOptions::PeriodicGhosts::Stores;  // as a decomposed run fills them
      Simulation s(p, std::make_unique<GpuBackend>(p, split_ctx(), o));
      if (links) s.set_rank(links);
      s.initialize();
      RunOptions r;
      r.steps = 12;
      const RunResult result = s.run(r);
      return std::make_tuple(s.time(), s.backend().fields(), result.last_diagnostics, s.backend().max_speed());
    };
    const auto alone = run(nullptr);
    const auto linked = run(std::make_shared<NcclRankLinks>(p, decompose(p, RankGrid{}), 0, one.comm, split_ctx()));
    CHECK(std::get<0>(linked) == std::get<0>(alone));
    CHECK(test::field_differences(std::get<1>(linked), std::get<1>(alone)) == 0);
    CHECK(std::get<2>(linked) == std::get<2>(alone));
    CHECK(std::get<3>(linked) == std::get<3>(alone));
  }
}
#endif
