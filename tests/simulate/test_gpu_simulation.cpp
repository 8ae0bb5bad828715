// A program's time loop on the GPU against its CPU reference: the boundary
// fills value for value, a few steps of every shipped program within the
// kernels' tolerance, conservation, a bitwise restart, nothing allocated.
#include <cmath>
#include <filesystem>

#include "gpen/simulate/cpu_backend.hpp"
#include "gpen/simulate/gpu_backend.hpp"
#include "gpen/simulate/simulation.hpp"
#include "program_support.hpp"

namespace gpen::test {
namespace {

Context& sim_ctx() {
  static Context c(0);
  return c;
}

// ||a - b|| / ||b|| over every field.
double rel_l2(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  double num = 0, den = 0;
  for (std::size_t f = 0; f < a.size(); ++f)
    for (std::size_t i = 0; i < a[f].size(); ++i) {
      num += (a[f][i] - b[f][i]) * (a[f][i] - b[f][i]);
      den += b[f][i] * b[f][i];
    }
  return std::sqrt(num / (den > 0 ? den : 1));
}

std::string program_text(const std::string& name) { return read_file(source_dir() + "/specs/programs/" + name + ".json"); }

}  // namespace

TEST_CASE("GPU boundary fills equal the host model value for value, every kind, odd sizes") {
  // heat_walls3d: symmetric x, value z, periodic y; with noise everywhere.
  const sim::Program p = program_of(program_text("heat_walls3d"), std::array<long long, 3>{9, 7, 5});
  sim::GpuBackend gpu(p, sim_ctx());
  sim::CpuBackend cpu(p);
  const auto init = sim::initial_values(p);
  gpu.set_fields(init);
  cpu.set_fields(init);
  CHECK(gpu.padded_field(0) == cpu.arrays()[0].data);
  // Antisymmetric faces too, on the sound wave (ghost 3, every face), every
  // field noisy so that a mirror's index error would show along each axis.
  std::string j = program_text("sound_wave3d");
  for (const char* f : {"rho", "ux", "uy", "uz"}) j = with(j, std::string(R"~({"name": ")~") + f + R"~(", "ghost": 3)~", std::string(R"~({"name": ")~") + f + R"~(", "ghost": 3, "noise": {"amplitude": 0.5, "seed": 11})~");
  j = with(j, R"~("integrator": "rk3",)~",
                       R"~("integrator": "rk3", "boundaries": [{"type": "antisymmetric", "faces": ["y"]}, {"type": "symmetric", "faces": ["z-"], "fields": ["ux"]}, {"type": "value", "faces": ["z+"], "value": 0.25, "fields": ["ux"]}, {"type": "antisymmetric", "faces": ["z"], "fields": ["rho", "uy", "uz"]}],)~");
  const sim::Program q = program_of(j, std::array<long long, 3>{11, 9, 7});
  sim::GpuBackend gq(q, sim_ctx());
  sim::CpuBackend cq(q);
  const auto iq = sim::initial_values(q);
  gq.set_fields(iq);
  cq.set_fields(iq);
  for (int f = 0; f < 4; ++f) {
    CAPTURE(f);
    CHECK(gq.padded_field(f) == cq.arrays()[static_cast<std::size_t>(f)].data);
  }
}

TEST_CASE("the GPU's search for a non-finite value finds the CPU's first one, and nothing in a finite state") {
  const sim::Program p = program_of(program_text("sound_wave3d"), std::array<long long, 3>{13, 7, 5});
  sim::GpuBackend gpu(p, sim_ctx());
  sim::CpuBackend cpu(p);
  auto v = sim::initial_values(p);
  gpu.set_fields(v);
  CHECK(!gpu.first_non_finite());
  v[2][3 + 13 * (4 + 7 * 2)] = INFINITY;  // uy at (3, 4, 2)
  v[2][9 + 13 * (6 + 7 * 4)] = NAN;       // and later in the same field
  v[3][0] = NAN;                          // uz: a later field
  gpu.set_fields(v);
  cpu.set_fields(v);
  const auto g = gpu.first_non_finite(), c = cpu.first_non_finite();
  REQUIRE(g);
  REQUIRE(c);
  CHECK(g->field == 2);
  CHECK(g->at == std::array<long long, 3>{3, 4, 2});
  CHECK(g->at == c->at);
  CHECK(std::isinf(g->value));
}

TEST_CASE("a few GPU steps of each shipped program equal the CPU reference's, each integrator, odd sizes, nothing allocated in the loop") {
  struct Case {
    std::string program, integrator;
    std::array<long long, 3> size;
  };
  for (const Case& c : {Case{"sound_wave3d", "rk3", {37, 21, 19}}, Case{"sound_wave3d", "rk4", {19, 11, 13}}, Case{"sound_wave3d", "euler", {19, 11, 13}},
                        Case{"heat_walls3d", "rk3", {33, 17, 21}}, Case{"orszag_tang3d", "rk3", {36, 36, 9}}}) {
    CAPTURE(c.program);
    CAPTURE(c.integrator);
    const sim::Program p = program_of(with(program_text(c.program), R"~("integrator": "rk3")~", R"~("integrator": ")~" + c.integrator + "\""), c.size);
    auto gpu_backend = std::make_unique<sim::GpuBackend>(p, sim_ctx());
    sim::GpuBackend& gpu = *gpu_backend;
    sim::Simulation g(p, std::move(gpu_backend)), h(p, std::make_unique<sim::CpuBackend>(p));
    g.initialize();
    h.initialize();
    sim::RunOptions o;
    o.steps = 5;
    const sim::RunResult rg = g.run(o), rh = h.run(o);
    CHECK(g.time() == doctest::Approx(h.time()).epsilon(1e-12));
    const double e = rel_l2(g.backend().fields(), h.backend().fields());
    CAPTURE(e);
    CHECK(e < 1e-11);
    REQUIRE(rg.last_diagnostics.size() == rh.last_diagnostics.size());
    for (std::size_t i = 0; i < rg.last_diagnostics.size(); ++i) CHECK(rg.last_diagnostics[i] == doctest::Approx(rh.last_diagnostics[i]).epsilon(1e-11));
    CHECK(gpu.allocations_since_setup() == 0);
  }
}

TEST_CASE("on the GPU: the total mass over 1000 steps to 1e-12, and a bitwise restart") {
  const std::string dir = (std::filesystem::temp_directory_path() / "gpen_gpu_restart").string();
  std::filesystem::remove_all(dir);
  const sim::Program p = program_of(conserving_wave_text(), std::array<long long, 3>{32, 24, 20});
  sim::Simulation one(p, std::make_unique<sim::GpuBackend>(p, sim_ctx()));
  one.initialize();
  const double m0 = one.backend().diagnostics()[0];
  sim::RunOptions o;
  o.steps = 1000;
  one.run(o);
  const double m1 = one.backend().diagnostics()[0];
  CAPTURE(m0);
  CAPTURE(m1);
  CHECK(std::fabs(m1 - m0) / m0 < 1e-12);

  sim::Simulation whole(p, std::make_unique<sim::GpuBackend>(p, sim_ctx())), first(p, std::make_unique<sim::GpuBackend>(p, sim_ctx())),
      second(p, std::make_unique<sim::GpuBackend>(p, sim_ctx()));
  whole.initialize();
  o.steps = 40;
  whole.run(o);
  first.initialize();
  o.steps = 20;
  o.out_dir = dir;
  const sim::RunResult half = first.run(o);
  second.restart(half.last_snapshot);
  second.run(o);
  CHECK(second.step() == 40);
  CHECK(second.time() == whole.time());
  CHECK(second.backend().fields() == whole.backend().fields());
  std::filesystem::remove_all(dir);
}

}  // namespace gpen::test
