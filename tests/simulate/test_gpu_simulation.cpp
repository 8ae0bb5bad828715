// A program's time loop on the GPU against its CPU reference: the boundary
// fills value for value, a few steps of every shipped program within the
// kernels' tolerance, conservation, a bitwise restart, nothing allocated.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "gpen/families/common/kernel.hpp"
#include "gpen/simulate/boundaries.hpp"
#include "gpen/simulate/cpu_backend.hpp"
#include "gpen/simulate/fused_update.hpp"
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

// Every field's padded array on the GPU, ghosts included, against the host
// model's boundary fill of its interior, bit for bit.
void check_ghosts_as_host_model(const sim::GpuBackend& gpu, const sim::Program& p) {
  const auto interiors = gpu.fields();
  for (std::size_t f = 0; f < p.fields.size(); ++f) {
    CAPTURE(p.fields[f].name);
    HostArray want(p.dims, p.size, p.fields[f].ghost);
    set_interior(want, interiors[f]);
    sim::apply_boundaries(p.fields[f], want);
    CHECK(gpu.padded_field(static_cast<int>(f)) == want.data);
  }
}

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
                        Case{"heat_walls3d", "rk3", {33, 17, 21}}, Case{"orszag_tang3d", "rk3", {36, 36, 9}},
                        Case{"alfven_wave3d", "rk3", {40, 5, 5}}, Case{"wave2d_sbp", "rk4", {37, 29, 1}}}) {
    CAPTURE(c.program);
    CAPTURE(c.integrator);
    std::string text = program_text(c.program);
    const std::string integrator = R"~("integrator": ")~" + c.integrator + "\"";
    if (text.find(integrator) == std::string::npos) text = with(text, R"~("integrator": "rk3")~", integrator);
    const sim::Program p = program_of(text, c.size);
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

TEST_CASE("the ghosts a 2N stage stores with its state (periodic images) equal the host model's fill of it, every strategy, mixed kinds, thin axes") {
  struct Case {
    std::string program;
    std::array<long long, 3> size;  // 6 (2 g): a point's images; 5 or 2: none (a fill copies some points twice)
    std::vector<std::string> set;    // the right-hand sides' variant
    sim::GpuOptions::PeriodicGhosts ghosts = sim::GpuOptions::PeriodicGhosts::Stores;
  };
  using Ghosts = sim::GpuOptions::PeriodicGhosts;
  int images = 0;
  for (const Case& c : {Case{"sound_wave3d", {37, 21, 19}, {"strategy=direct"}}, Case{"sound_wave3d", {37, 21, 19}, {"strategy=rolling"}},
                        Case{"sound_wave3d", {37, 21, 19}, {"strategy=stage"}}, Case{"sound_wave3d", {19, 6, 5}, {"strategy=direct"}},
                        Case{"sound_wave3d", {13, 7, 2}, {"strategy=stage"}}, Case{"heat_walls3d", {33, 17, 21}, {"strategy=march"}},
                        Case{"heat_walls3d", {32, 17, 21}, {"strategy=march", "vector_x=2", "rows_y=2"}},
                        Case{"heat_walls3d", {32, 16, 21}, {"strategy=march", "ring_ahead=1"}}, Case{"heat_walls3d", {33, 17, 21}, {"strategy=tile"}},
                        Case{"sound_wave3d", {37, 21, 19}, {"strategy=direct"}, Ghosts::Fills},
                        Case{"sound_wave3d", {37, 21, 19}, {"strategy=direct"}, Ghosts::Measured}}) {
      CAPTURE(c.program);
      CAPTURE(c.size[1]);
      CAPTURE(c.set[0]);
      const sim::Program p = program_of(program_text(c.program), c.size);
      for (std::size_t f = 0; f < p.fields.size(); ++f) images += sim::periodic_image_axes(p, static_cast<int>(f)) != 0;
      sim::GpuOptions o;
      o.rhs_set = c.set;
      o.periodic_ghosts = c.ghosts;
      auto backend = std::make_unique<sim::GpuBackend>(p, sim_ctx(), o);
      sim::GpuBackend& gpu = *backend;
      // A line per right-hand side with periodic faces; measured: both costs.
      const auto& choices = gpu.periodic_ghost_choices();
      CHECK(choices.size() == (c.program == "sound_wave3d" ? 2u : 1u));
      for (const std::string& line : choices) {
        CAPTURE(line);
        CHECK((line.find("ms a step") != std::string::npos) == (c.ghosts == Ghosts::Measured));
      }
      sim::Simulation g(p, std::move(backend));
      g.initialize();
      sim::RunOptions r;
      r.steps = 2;
      g.run(r);
      check_ghosts_as_host_model(gpu, p);
    }
  CHECK(images > 0);
}

TEST_CASE("a 2-D periodic rk3 program with an inline spec: its stages store the ghosts along x and y (kernel z) as the host model fills them") {
  // User y is the kernel's marched z in 2-D: the images must follow the axis map.
  const std::string text = R"~({"name": "heat2d", "kind": "program", "dims": 2,
    "grid": {"size": [24, 18], "box": [6.283185307179586, 6.283185307179586]},
    "fields": [{"name": "u", "ghost": 2, "init": "sin(x) * cos(2 * y)", "noise": {"amplitude": 0.1, "seed": 5}}],
    "rhs": [{"spec": {"name": "heat2d_rhs", "kind": "stencil", "dtype": "float64", "dims": 2,
                      "fields": [{"name": "u", "role": "input", "ghost": 2}, {"name": "du", "role": "output"}],
                      "params": [{"name": "k", "value": 0.1}],
                      "operators": [{"name": "D2", "derivative": 2, "order": 4}],
                      "outputs": [{"field": "du", "expr": "k * (D2(u, x) + D2(u, y)) + 0.3 * u * u"}]},
             "outputs": {"du": "u"}}],
    "integrator": "rk3", "time_step": {"dt": 0.01}})~";
  const sim::Program p = program_of(text);
  CHECK(sim::periodic_image_axes(p, 0) == 3u);
  for (const char* set : {"strategy=direct", "strategy=march", "strategy=stage", "strategy=tile"}) {
    CAPTURE(set);
    sim::GpuOptions o;
    o.rhs_set = {set};
    o.periodic_ghosts = sim::GpuOptions::PeriodicGhosts::Stores;
    auto backend = std::make_unique<sim::GpuBackend>(p, sim_ctx(), o);
    sim::GpuBackend& gpu = *backend;
    sim::Simulation g(p, std::move(backend)), h(p, std::make_unique<sim::CpuBackend>(p));
    g.initialize();
    h.initialize();
    sim::RunOptions r;
    r.steps = 3;
    g.run(r);
    h.run(r);
    CHECK(rel_l2(g.backend().fields(), h.backend().fields()) < 1e-12);
    check_ghosts_as_host_model(gpu, p);
  }
}

TEST_CASE("the time step computed on the device, steps launched ahead: the same steps, times, snapshots and fields as the host's dt, bit for bit") {
  namespace fs = std::filesystem;
  const std::string root = (fs::temp_directory_path() / "gpen_gpu_device_dt").string();
  // Snapshots every 0.05 of simulated time and every 7 steps, diagnostics
  // every 5 steps, a stop at t = 0.37 between snapshot times: every way a
  // step lands or stops.
  std::string text = with(program_text("sound_wave3d"), R"~("every_time": 1.0)~", R"~("every_time": 0.05, "every": 7)~");
  text = with(text, R"~("diagnostics": {"every": 10)~", R"~("diagnostics": {"every": 5)~");
  const sim::Program p = program_of(text, std::array<long long, 3>{24, 16, 12});
  struct Run {
    sim::RunResult result;
    std::vector<std::vector<double>> fields;
    double t;
    long long step;
    std::vector<std::string> snapshots;
    std::string csv;
  };
  auto run = [&](bool on_device, const std::string& dir) {
    fs::remove_all(dir);
    sim::GpuOptions o;
    o.device_time_step = on_device;
    auto backend = std::make_unique<sim::GpuBackend>(p, sim_ctx(), o);
    CHECK(backend->steps_on_device() == on_device);
    sim::Simulation s(p, std::move(backend));
    s.initialize();
    sim::RunOptions r;
    r.until = 0.37;
    r.out_dir = dir;
    Run out{s.run(r), s.backend().fields(), s.time(), s.step(), {}, read_file(dir + "/diagnostics.csv")};
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_directory()) out.snapshots.push_back(e.path().filename().string());
    std::sort(out.snapshots.begin(), out.snapshots.end());
    return out;
  };
  const Run host = run(false, root + "/host"), device = run(true, root + "/device");
  REQUIRE(!device.snapshots.empty());
  CHECK(device.result.stop == sim::RunResult::Stop::Time);
  CHECK(device.t == 0.37);
  CHECK(device.step == host.step);
  CHECK(device.t == host.t);
  CHECK(device.fields == host.fields);
  CHECK(device.snapshots == host.snapshots);
  CHECK(device.snapshots.size() >= 8);  // 7 by time (0.05 .. 0.35, each a step; step 7 among them), the stop at 0.37
  CHECK(device.csv == host.csv);
  // Each snapshot's files, byte for byte: none was written while a later step ran.
  for (const std::string& snap : device.snapshots)
    for (const char* f : {"rho.npy", "ux.npy", "uy.npy", "uz.npy"}) {
      CAPTURE(snap);
      CHECK(read_file(root + "/device/" + snap + "/" + f) == read_file(root + "/host/" + snap + "/" + f));
    }
  fs::remove_all(root);
}

TEST_CASE("an infinite time step (at rest, no sound speed, no diffusion, no cap) is refused on the device as on the host, no state changed") {
  // Amplitude 0 (at rest), c_s 0 in the CFL speed, snapshots by step count (their times would bound the step).
  std::string text = with(program_text("sound_wave3d"), R"~("every_time": 1.0)~", R"~("every": 1000)~");
  text = with(text, R"~({"name": "amplitude", "value": 1e-3,)~", R"~({"name": "amplitude", "value": 0,)~");
  text = with(text, R"~("params": {"cs": "sqrt(cs2)"}, "diffusivity": "nu"})~", R"~("params": {"cs": "0"}})~");
  const sim::Program p = program_of(text, std::array<long long, 3>{16, 8, 8});
  for (bool on_device : {false, true}) {
    CAPTURE(on_device);
    sim::GpuOptions o;
    o.device_time_step = on_device;
    auto backend = std::make_unique<sim::GpuBackend>(p, sim_ctx(), o);
    REQUIRE(backend->steps_on_device() == on_device);
    sim::Simulation s(p, std::move(backend));
    s.initialize();
    const std::vector<std::vector<double>> before = s.backend().fields();
    sim::RunOptions r;
    r.steps = 3;
    CHECK_THROWS_WITH_AS(s.run(r), doctest::Contains("the CFL condition bounds no time step at t = 0"), std::runtime_error);
    CHECK(s.step() == 0);
    CHECK(s.time() == 0);
    CHECK(s.backend().fields() == before);
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


namespace {

// A program on the caller's pitched arrays against the same on gpen's own,
// its right-hand sides' variant `rhs_set` in both.
void check_callers_arrays(const std::vector<std::string>& rhs_set) {
  Context& ctx = sim_ctx();
  ctx.make_current();
  const std::array<long long, 3> n{37, 21, 19};
  const sim::Program p = program_of(program_text("sound_wave3d"), n);
  // Each field's array as a caller pads it: rows 5 and planes 2 rows longer than packed, every byte 0xff (NaN) to start.
  std::vector<DeviceMemory> memory;
  std::vector<DeviceBuffer> views;
  std::vector<Pitch> pitches;
  for (const sim::ProgramField& f : p.fields) {
    const long long px = n[0] + 2 * f.ghost, py = n[1] + 2 * f.ghost, pz = n[2] + 2 * f.ghost;
    const Pitch pitch{px + 5, (px + 5) * (py + 2)};
    memory.emplace_back(static_cast<std::size_t>(pitch.plane * pz) * sizeof(double));
    GPEN_CU(cuMemsetD8(memory.back().get(), 0xff, static_cast<std::size_t>(pitch.plane * pz) * sizeof(double)), "poisoning a caller's array");
    views.push_back(DeviceBuffer::view(memory.back().get(), Dtype::Float64, 3, n, f.ghost, pitch));
    pitches.push_back(pitch);
  }
  // The interiors of the caller's arrays, and the count of gap elements that are no longer all ones.
  long long gaps_written = 0;
  auto callers_fields = [&] {
    std::vector<std::vector<double>> out;
    gaps_written = 0;
    for (std::size_t i = 0; i < views.size(); ++i) {
      const int g = p.fields[i].ghost;
      const long long px = n[0] + 2 * g, py = n[1] + 2 * g, pz = n[2] + 2 * g;
      std::vector<double> all(static_cast<std::size_t>(pitches[i].plane * pz));
      GPEN_CU(cuMemcpyDtoH(all.data(), memory[i].get(), all.size() * sizeof(double)), "reading a caller's array");
      std::vector<double> interior;
      for (long long k = 0; k < pz; ++k)
        for (long long j = 0; j < pitches[i].plane / pitches[i].row; ++j)
          for (long long x = 0; x < pitches[i].row; ++x) {
            const double v = all[static_cast<std::size_t>(x + pitches[i].row * j + pitches[i].plane * k)];
            const bool in_array = x < px && j < py;
            if (!in_array) {
              std::uint64_t bits;
              std::memcpy(&bits, &v, sizeof bits);
              gaps_written += bits != ~0ull;
            } else if (x >= g && x < g + n[0] && j >= g && j < g + n[1] && k >= g && k < g + n[2]) {
              interior.push_back(v);
            }
          }
      out.push_back(std::move(interior));
    }
    return out;
  };
  sim::GpuOptions o, mine;
  o.rhs_set = mine.rhs_set = rhs_set;
  for (const DeviceBuffer& v : views) o.fields.push_back(&v);
  sim::Simulation theirs(p, std::make_unique<sim::GpuBackend>(p, ctx, o)), ours(p, std::make_unique<sim::GpuBackend>(p, ctx, mine));
  theirs.initialize();
  ours.initialize();
  CHECK(callers_fields() == ours.backend().fields());
  sim::RunOptions r;
  for (long long steps : {5, 2}) {  // an odd count of rk3 steps leaves the state in gpen's array of the pair: run() copies it back
    CAPTURE(steps);
    r.steps = steps;
    theirs.run(r);
    ours.run(r);
    CHECK(theirs.time() == ours.time());
    const auto fields = callers_fields();
    CHECK(fields == ours.backend().fields());
    CHECK(theirs.backend().fields() == fields);
    CHECK(gaps_written == 0);
  }
  // One field set after a lone step, whose state is in gpen's array of the
  // pair: the other fields keep their stepped values, in the caller's arrays.
  theirs.backend().step(1e-3);
  ours.backend().step(1e-3);
  const std::vector<std::vector<double>> stepped = ours.backend().fields();
  CHECK(theirs.backend().fields() == stepped);
  const std::vector<double> ones(stepped[0].size(), 1.0);
  theirs.backend().set_field(0, ones);
  theirs.backend().fill_boundaries();
  const std::vector<std::vector<double>> set = callers_fields();
  CHECK(set[0] == ones);
  for (std::size_t i = 1; i < set.size(); ++i) CHECK(set[i] == stepped[i]);
  CHECK(theirs.backend().fields() == set);
  CHECK_THROWS_WITH(theirs.backend().set_field(1, std::vector<double>(5, 1.0)), doctest::Contains("5 values for field 1's"));
  CHECK_THROWS_WITH(theirs.backend().set_fields({ones}), doctest::Contains("1 fields' values for 4 fields"));
  // The same field set in gpen's own arrays, so that the loops below go on alike.
  ours.backend().set_field(0, ones);
  ours.backend().fill_boundaries();
  CHECK(ours.backend().fields() == set);
  // A new loop on the same arrays goes on from what they hold, their ghost
  // zones (NaN here, as a caller that wrote interiors alone left them) filled again.
  for (std::size_t i = 0; i < views.size(); ++i) {
    const int g = p.fields[i].ghost;
    for (long long k = 0; k < n[2] + 2 * g; ++k)
      for (long long j = 0; j < n[1] + 2 * g; ++j) {
        const bool ghost_row = k < g || k >= g + n[2] || j < g || j >= g + n[1];
        for (long long x = 0; x < n[0] + 2 * g; ++x)
          if (ghost_row || x < g || x >= g + n[0])
            GPEN_CU(cuMemsetD8(memory[i].get() + static_cast<CUdeviceptr>((x + pitches[i].row * j + pitches[i].plane * k) * 8), 0xff, 8), "a ghost to NaN");
      }
  }
  sim::Simulation again(p, std::make_unique<sim::GpuBackend>(p, ctx, o));
  again.resume(theirs.time(), theirs.step());
  r.steps = 3;
  again.run(r);
  ours.run(r);
  CHECK(again.step() == ours.step());
  CHECK(again.time() == ours.time());
  CHECK(callers_fields() == ours.backend().fields());
  CHECK(gaps_written == 0);
  // Arrays that do not fit the program are refused in words.
  sim::GpuOptions wrong;
  wrong.fields = {o.fields[0]};
  CHECK_THROWS_WITH_AS(sim::GpuBackend(p, ctx, wrong), doctest::Contains("1 array for its 4 fields"), BindingError);
  wrong.fields = o.fields;
  wrong.fields[2] = o.fields[0];
  CHECK_THROWS_WITH_AS(sim::GpuBackend(p, ctx, wrong), doctest::Contains("the arrays for fields 'rho' and 'uy' overlap"), BindingError);
  wrong.fields = o.fields;
  DeviceBuffer narrow = DeviceBuffer::view(memory[3].get(), Dtype::Float64, 3, n, 2, pitches[3]);
  wrong.fields[3] = &narrow;
  CHECK_THROWS_WITH_AS(sim::GpuBackend(p, ctx, wrong), doctest::Contains("the array for field 'uz' must be float64 3-D, 37x21x19 points, ghost 3"), BindingError);
}

}  // namespace

TEST_CASE("on the GPU: a program on the caller's pitched arrays steps as on gpen's own, the state in them after each run, the gaps untouched") {
  // The default right-hand side (direct), and the stage strategy, whose
  // fields share a pitch where they are padded alike: the caller's arrays
  // and gpen's registers are not, so its stages run the unit of every
  // field's own pitch, with its own dt beta (written on the device).
  for (const std::vector<std::string>& rhs_set : {std::vector<std::string>{}, std::vector<std::string>{"strategy=stage"}}) {
    CAPTURE(rhs_set.size());
    check_callers_arrays(rhs_set);
  }
}

}  // namespace gpen::test
