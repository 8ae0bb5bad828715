// The CPU reference of a program's time loop: boundaries, snapshots, the
// integrators' orders, the operators' order in space, conservation, restarts.
#include <atomic>
#include <cmath>
#include <filesystem>
#include <functional>

#include "gpen/families/sbp/sbp_reference.hpp"
#include "gpen/simulate/boundaries.hpp"
#include "gpen/simulate/cpu_backend.hpp"
#include "gpen/simulate/decomposed_cpu_backend.hpp"
#include "gpen/simulate/integrator.hpp"
#include "gpen/simulate/npy.hpp"
#include "gpen/simulate/picture.hpp"
#include "gpen/simulate/simulation.hpp"
#include "program_support.hpp"

namespace gpen::test {
namespace {

namespace fs = std::filesystem;

sim::Boundary boundary(sim::BoundaryKind k, double v = 0) {
  sim::Boundary b;
  b.kind = k;
  b.value = v;
  return b;
}

// The sound wave on a line (n x 1 x 1: y and z periodic over one point),
// amplitude a, integrator and time step as given, no diagnostics or snapshots.
std::string line_wave(double amplitude, const std::string& integrator, const std::string& time_step) {
  std::string j = with(sound_wave_text(), R"~({"name": "amplitude", "value": 1e-3,)~", R"~({"name": "amplitude", "value": )~" + fmt::format("{:.17g}", amplitude) + ",");
  j = with(j, R"~("integrator": "rk3")~", R"~("integrator": ")~" + integrator + R"~(")~");
  j = with(j, R"~("time_step": {"cfl": {"spec": "../reduce/cfl_speed.json", "params": {"cs": "sqrt(cs2)"}, "diffusivity": "nu"}})~", R"~("time_step": )~" + time_step);
  return j;
}

// The field `name` after running `p` from its initial values to time T.
std::vector<double> field_at(const sim::Program& p, double T, const std::string& name = "rho") {
  sim::Simulation s(p, std::make_unique<sim::CpuBackend>(p));
  s.initialize();
  sim::RunOptions o;
  o.until = T;
  s.run(o);
  CHECK(s.time() == T);
  return s.backend().fields()[static_cast<std::size_t>(p.find_field(name))];
}

// max |a - b| over a's points, b on a grid `every` times as fine (the
// points both grids share), relative to the wave's amplitude.
double difference(const std::vector<double>& a, const std::vector<double>& b, std::size_t every, double amplitude) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i * every]));
  return worst / amplitude;
}

// Two steps of the program `json` on 5 x 4 x 5 points, on the CPU.
sim::RunResult two_steps(const std::string& json) {
  const sim::Program p = program_of(json, std::array<long long, 3>{5, 4, 5});
  sim::Simulation s(p, std::make_unique<sim::CpuBackend>(p));
  s.initialize();
  sim::RunOptions o;
  o.steps = 2;
  return s.run(o);
}

// On lines of 8, 16 and 32 points (run(n)), the difference from `reference`
// (on 256) falls at the operators' 6th order, each halving of h.
void check_sixth_order(const std::function<std::vector<double>(long long)>& run, const std::vector<double>& reference, double amplitude) {
  std::vector<double> errors;
  for (long long n : {8, 16, 32}) errors.push_back(difference(run(n), reference, static_cast<std::size_t>(256 / n), amplitude));
  for (std::size_t i = 1; i < errors.size(); ++i) {
    CAPTURE(errors[i - 1]);
    CAPTURE(errors[i]);
    CHECK(std::log2(errors[i - 1] / errors[i]) > 5.5);
  }
}

}  // namespace

TEST_CASE("boundary conditions fill the ghost zones as their host model says, faces, edges and corners, at odd sizes") {
  sim::ProgramField f;
  f.ghost = 2;
  HostArray a(2, {7, 5, 1}, 2);
  fill_random(a, 5, Dtype::Float64);
  f.boundary[0] = {boundary(sim::BoundaryKind::Symmetric), boundary(sim::BoundaryKind::Value, 1.5)};
  f.boundary[1] = {boundary(sim::BoundaryKind::Antisymmetric), boundary(sim::BoundaryKind::Periodic)};
  f.boundary[1][1] = boundary(sim::BoundaryKind::Symmetric);
  const HostArray before = a;
  sim::apply_boundaries(f, a);
  // Along x at an interior row: the mirror, and 2 v - the mirror with the wall at v.
  for (long long j = 1; j < 4; ++j) {
    CHECK(a.at(6, j, 0) == 1.5);
    for (long long m = 1; m <= 2; ++m) {
      CHECK(a.at(-m, j, 0) == before.at(m, j, 0));
      CHECK(a.at(6 + m, j, 0) == 2 * 1.5 - before.at(6 - m, j, 0));
    }
  }
  // Along y over the whole padded x extent (x ghosts included: corners),
  // the lower wall antisymmetric through 0, the upper symmetric.
  for (long long i = -2; i < 9; ++i) {
    CHECK(a.at(i, 0, 0) == 0.0);
    for (long long m = 1; m <= 2; ++m) {
      CHECK(a.at(i, -m, 0) == -a.at(i, m, 0));
      CHECK(a.at(i, 4 + m, 0) == a.at(i, 4 - m, 0));
    }
  }
  // Periodic everywhere is the runtime's periodic fill.
  HostArray p(3, {5, 3, 4}, 3), q(3, {5, 3, 4}, 3);
  fill_random(p, 9, Dtype::Float64);
  q = p;
  sim::ProgramField periodic;
  sim::apply_boundaries(periodic, p);
  fill_periodic(q);
  CHECK(p.data == q.data);
}

TEST_CASE(".npy files: what gpen writes it reads back, in both dtypes, with NumPy's header") {
  const std::string dir = fs::temp_directory_path() / "gpen_test_npy";
  fs::create_directories(dir);
  const std::vector<double> v{1.0, -2.5, 1e-300, 3.0, 0.1, 7.0};
  sim::write_npy(dir + "/a.npy", Dtype::Float64, {2, 3}, v);
  const sim::NpyArray a = sim::read_npy(dir + "/a.npy");
  CHECK(a.shape == std::vector<long long>{2, 3});
  CHECK(a.values == v);
  const std::string bytes = read_file(dir + "/a.npy");
  CHECK(bytes.substr(0, 6) == "\x93NUMPY");
  CHECK(bytes.find("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }") != std::string::npos);
  CHECK((bytes.size() - 6 * 8) % 64 == 0);  // the header padded to 64 bytes
  sim::write_npy(dir + "/b.npy", Dtype::Float32, {6}, v);
  const sim::NpyArray b = sim::read_npy(dir + "/b.npy");
  CHECK(b.dtype == Dtype::Float32);
  CHECK(b.values[4] == static_cast<double>(0.1f));
  CHECK(read_file(dir + "/b.npy").find("'shape': (6,)") != std::string::npos);
  // Cut short: refused in words.
  std::ofstream(dir + "/c.npy", std::ios::binary) << bytes.substr(0, bytes.size() - 3);
  CHECK_THROWS_WITH_AS(sim::read_npy(dir + "/c.npy"), doctest::Contains("bytes of data for a shape of 6 values"), std::runtime_error);
  fs::remove_all(dir);
}

TEST_CASE("the integrators converge at their order in time (sound wave, against a step 8 times smaller)") {
  // The same grid and equations in every run: the spatial error and the
  // wave's own nonlinearity are the same in all, and cancel.
  const double a = 1e-3, T = 1.0;
  for (auto [name, order] : {std::pair<const char*, int>{"euler", 1}, {"rk3", 3}, {"rk4", 4}}) {
    CAPTURE(std::string(name));
    auto run = [&](double dt) { return field_at(program_of(line_wave(a, name, fmt::format(R"~({{"dt": {}}})~", dt)), std::array<long long, 3>{32, 1, 1}), T); };
    const std::vector<double> reference = run(0.1 / 32);
    std::vector<double> errors;
    for (double dt : {0.1, 0.05, 0.025}) errors.push_back(difference(run(dt), reference, 1, a));
    for (std::size_t i = 1; i < errors.size(); ++i) {
      CAPTURE(errors[i - 1]);
      CAPTURE(errors[i]);
      const double rate = std::log2(errors[i - 1] / errors[i]);
      CHECK(rate > order - 0.3);
      CHECK(rate < order + 0.5);
    }
  }
}

TEST_CASE("the sound wave converges at the operators' 6th order in space (against a grid 16 times finer)") {
  // The same fixed step on every grid (RK4, far below the grids' own): the
  // time error is nearly the same on each, and cancels.
  const double a = 1e-3, T = 1.0;
  auto run = [&](long long n) { return field_at(program_of(line_wave(a, "rk4", R"~({"dt": 0.01})~"), std::array<long long, 3>{n, 1, 1}), T); };
  const std::vector<double> reference = run(256);
  check_sixth_order(run, reference, a);
}

TEST_CASE("the conservative continuity equation keeps the total mass to rounding over 1000 steps") {
  const sim::Program p = program_of(conserving_wave_text(), std::array<long long, 3>{12, 10, 9});
  sim::Simulation s(p, std::make_unique<sim::CpuBackend>(p));
  s.initialize();
  const double m0 = s.backend().diagnostics()[0];
  sim::RunOptions o;
  o.steps = 1000;
  const sim::RunResult r = s.run(o);
  CHECK(r.steps == 1000);
  const double m1 = s.backend().diagnostics()[0];
  CAPTURE(m0);
  CAPTURE(m1);
  CHECK(std::fabs(m1 - m0) / m0 < 1e-12);
  CHECK(s.backend().diagnostics()[1] > 0);  // something moved
}

// The sound wave with noise in uy: every field moves, so a step undone or repeated shows.
std::string noisy_wave_text() {
  return with(sound_wave_text(), R"~({"name": "uy", "ghost": 3})~", R"~({"name": "uy", "ghost": 3, "noise": {"amplitude": 1e-3, "seed": 7}})~");
}

// `steps` steps of p on the CPU reference from its initial values.
sim::Simulation cpu_run(const sim::Program& p, long long steps) {
  sim::Simulation s(p, std::make_unique<sim::CpuBackend>(p));
  s.initialize();
  sim::RunOptions o;
  o.steps = steps;
  s.run(o);
  return s;
}

TEST_CASE("a restart is bitwise: 2N steps in one run equal N steps, a snapshot, a restart and N steps") {
  const std::string dir = fs::temp_directory_path() / "gpen_test_restart";
  fs::remove_all(dir);
  const std::string j = noisy_wave_text();
  const sim::Program p = program_of(j, std::array<long long, 3>{9, 7, 5});
  sim::Simulation one = cpu_run(p, 30);
  sim::RunOptions o;
  sim::Simulation first(p, std::make_unique<sim::CpuBackend>(p));
  first.initialize();
  o.steps = 15;
  o.out_dir = dir;
  // A folder of step 15 from an earlier run into the same folder is replaced whole.
  fs::create_directories(dir + "/snap_000000015");
  std::ofstream(dir + "/snap_000000015/stale.txt") << "from before";
  const sim::RunResult half = first.run(o);
  REQUIRE(half.last_snapshot == dir + "/snap_000000015");
  CHECK(!fs::exists(dir + "/snap_000000015/stale.txt"));
  CHECK(fs::exists(dir + "/snap_000000015/snapshot.json"));
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().extension() != ".part");  // written under .part, renamed once whole
  sim::Simulation second(p, std::make_unique<sim::CpuBackend>(p));
  second.restart(half.last_snapshot);
  CHECK(second.step() == 15);
  CHECK(second.time() == first.time());
  second.run(o);
  CHECK(second.step() == 30);
  CHECK(second.time() == one.time());
  CHECK(second.backend().fields() == one.backend().fields());
  {
    // A restart that takes no step into the folder it read leaves that snapshot as it was (not written again).
    std::ofstream(dir + "/snap_000000030/mark.txt") << "still here";
    sim::Simulation again(p, std::make_unique<sim::CpuBackend>(p));
    again.restart(dir + "/snap_000000030");
    sim::RunOptions none = o;
    none.steps = 0;
    CHECK(again.run(none).last_snapshot == dir + "/snap_000000030");
    CHECK(fs::exists(dir + "/snap_000000030/mark.txt"));
    // A state put in place after the restart (resume, initialize) is another: it is written.
    again.resume(again.time(), again.step());
    CHECK(again.run(none).last_snapshot == dir + "/snap_000000030");
    CHECK(!fs::exists(dir + "/snap_000000030/mark.txt"));
    // The message of a restart past --until.
    sim::Simulation late(p, std::make_unique<sim::CpuBackend>(p));
    late.restart(dir + "/snap_000000030");
    sim::RunOptions past = o;
    past.until = 1e-9;
    const sim::RunResult r = late.run(past);
    CHECK(r.stop == sim::RunResult::Stop::Time);
    CHECK(r.message == "--until 1e-09 was already past: the state read is later");
  }
  // The time series goes on where it stopped: its header once, steps 0, 10, 20, 30 (and 15, the first run's last).
  const std::string csv = read_file(dir + "/diagnostics.csv");
  CHECK(csv.rfind("step,t,dt,mass,ekin,umax\n", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 6);
  // A snapshot of another size is refused in words.
  const sim::Program other = program_of(j, std::array<long long, 3>{9, 7, 6});
  sim::Simulation wrong(other, std::make_unique<sim::CpuBackend>(other));
  CHECK_THROWS_WITH_AS(wrong.restart(half.last_snapshot), doctest::Contains("rho.npy has shape (5, 7, 9), the run (6, 7, 9)"), std::runtime_error);
  // What a run ended between removing a folder and renaming its successor would leave (where the two cannot be exchanged): the restart names the whole one.
  fs::rename(half.last_snapshot, half.last_snapshot + ".part");
  fs::create_directories(half.last_snapshot);
  sim::Simulation third(p, std::make_unique<sim::CpuBackend>(p));
  const std::string hint = "it holds no snapshot.json; " + half.last_snapshot + ".part holds a whole snapshot";
  CHECK_THROWS_WITH_AS(third.restart(half.last_snapshot), doctest::Contains(hint.c_str()), std::runtime_error);
  fs::remove(half.last_snapshot);  // as the fallback leaves it: the old folder gone
  const std::string gone = "it does not exist; " + half.last_snapshot + ".part holds a whole snapshot";
  CHECK_THROWS_WITH_AS(third.restart(half.last_snapshot + "/"), doctest::Contains(gone.c_str()), std::runtime_error);
  fs::remove_all(dir);
}

TEST_CASE("Ctrl-C during a CPU reference step ends it part way: the fields as they were before it, the snapshot of the last whole step") {
  const std::string dir = fs::temp_directory_path() / "gpen_test_cancel";
  fs::remove_all(dir);
  const sim::Program p = program_of(noisy_wave_text(), std::array<long long, 3>{9, 7, 5});
  sim::Simulation one = cpu_run(p, 1);
  sim::RunOptions o;
  o.steps = 1;

  // How often a step polls within (a row of the reference a poll), counted on a step never stopped.
  std::atomic<int> polls{0};
  {
    sim::Simulation counting(p, std::make_unique<sim::CpuBackend>(p));
    counting.initialize();
    o.stop_requested = [&] { return polls.fetch_add(1) < 0; };
    counting.run(o);
  }
  const int within = polls.load() - 1;  // one poll before the step
  REQUIRE(within > 10);

  sim::Simulation s(p, std::make_unique<sim::CpuBackend>(p));
  s.initialize();
  // Raised half way through step 2, after its first stages changed the
  // fields (a stop between steps, or before anything changed, would be no test).
  std::atomic<bool> armed{false};
  polls = 0;
  o.steps = 3;
  o.out_dir = dir;
  o.stop_requested = [&] { return armed.load() && polls.fetch_add(1) >= 1 + within / 2; };
  const sim::RunResult r = s.run(o, [&](const sim::StepReport& rep) { armed = rep.step >= 1; });
  CHECK(r.stop == sim::RunResult::Stop::Requested);
  CHECK(polls.load() < within);  // ended part way
  CHECK(s.step() == 1);
  CHECK(s.time() == one.time());
  CHECK(s.backend().fields() == one.backend().fields());
  CHECK(r.last_snapshot == dir + "/snap_000000001");
  // Put back whole: the run goes on as the one that was never stopped.
  o.stop_requested = {};
  o.steps = 1;
  s.run(o);
  one.run(o);
  CHECK(s.backend().fields() == one.backend().fields());
  fs::remove_all(dir);
}

TEST_CASE("a run that goes non-finite stops at the first diagnostic that sees it, naming the field and the point") {
  const std::string dir = fs::temp_directory_path() / "gpen_test_nan";
  fs::remove_all(dir);
  // A time step far past stability: the wave blows up within steps.
  std::string j = line_wave(0.1, "euler", R"~({"dt": 3.0})~");
  const sim::Program p = program_of(j, std::array<long long, 3>{16, 1, 1});
  sim::Simulation s(p, std::make_unique<sim::CpuBackend>(p));
  s.initialize();
  sim::RunOptions o;
  o.steps = 100000;
  o.out_dir = dir;
  const sim::RunResult r = s.run(o);
  CHECK(r.stop == sim::RunResult::Stop::NonFinite);
  CHECK(r.message.find("field '") != std::string::npos);
  CHECK(r.message.find("at the interior point (i, j, k) = (") != std::string::npos);
  CHECK(s.step() < 100000);
  // What it kept is good: every value of the last snapshot finite.
  if (!r.last_snapshot.empty())
    for (const char* f : {"rho", "ux", "uy", "uz"})
      for (double v : sim::read_npy(r.last_snapshot + "/" + f + ".npy").values) REQUIRE(std::isfinite(v));
  fs::remove_all(dir);
}

TEST_CASE("fixed-value, symmetric and periodic walls in a run: the heat program settles to the straight profile between its walls") {
  const std::string text = read_file(source_dir() + "/specs/programs/heat_walls3d.json");
  const sim::Program p = program_of(text, std::array<long long, 3>{9, 8, 9});
  CHECK(p.spacing()[0] == 0.125);  // walls: box / (n - 1)
  CHECK(p.spacing()[1] == 0.125);  // periodic: box / n
  sim::Simulation s(p, std::make_unique<sim::CpuBackend>(p));
  s.initialize();
  sim::RunOptions o;
  o.until = 3.0;  // the slowest mode decays as exp(-pi^2 t)
  s.run(o);
  const std::vector<double> t = s.backend().fields()[0];
  double worst = 0;
  for (long long k = 0; k < 9; ++k)
    for (long long j = 0; j < 8; ++j)
      for (long long i = 0; i < 9; ++i) worst = std::max(worst, std::fabs(t[static_cast<std::size_t>(i + 9 * (j + 8 * k))] - (1 - 0.125 * static_cast<double>(k))));
  CHECK(worst < 1e-10);
}

TEST_CASE("the Orszag-Tang vortex (isothermal MHD, one fused right-hand side) runs, stays finite and loses energy to viscosity and resistivity") {
  const sim::Program p = program_of(read_file(source_dir() + "/specs/programs/orszag_tang3d.json"), std::array<long long, 3>{16, 16, 4});
  CHECK(p.spacing()[0] == doctest::Approx(p.spacing()[2]).epsilon(1e-15));
  sim::Simulation s(p, std::make_unique<sim::CpuBackend>(p));
  s.initialize();
  const std::vector<double> d0 = s.backend().diagnostics();  // mass, ekin, emag, va_max
  REQUIRE(d0.size() == 4);
  CHECK(d0[1] > 0);
  CHECK(d0[2] > 0);
  sim::RunOptions o;
  o.until = 1.0;
  const sim::RunResult r = s.run(o);
  CHECK(r.stop == sim::RunResult::Stop::Time);
  CHECK(!s.backend().first_non_finite());
  const std::vector<double> d1 = s.backend().diagnostics();
  CAPTURE(d0[1] + d0[2]);
  CAPTURE(d1[1] + d1[2]);
  CHECK(d1[1] + d1[2] < d0[1] + d0[2]);
  CHECK(std::fabs(d1[0] - d0[0]) / d0[0] < 1e-3);  // ln(rho) form: mass kept to the scheme's accuracy, not to rounding
}

TEST_CASE("a snapshot's picture: the slice asked for, lowest value dark, highest bright, NaN magenta, and a PNG file") {
  const sim::Program p = program_of(read_file(source_dir() + "/specs/programs/heat_walls3d.json"), std::array<long long, 3>{5, 4, 3});
  // T = i + 10 k: across y, u = x to the right, v = z upward.
  std::vector<double> t(5 * 4 * 3);
  for (long long k = 0; k < 3; ++k)
    for (long long j = 0; j < 4; ++j)
      for (long long i = 0; i < 5; ++i) t[static_cast<std::size_t>(i + 5 * (j + 4 * k))] = static_cast<double>(i + 10 * k);
  t[static_cast<std::size_t>(2 + 5 * (2 + 4 * 1))] = NAN;  // (2, 2, 1): on the slice at y = 2 (at 0.5 of 3 rows)
  const sim::Picture pic = *p.snapshots.picture;
  REQUIRE(pic.axis == 1);
  const sim::Image img = sim::render_slice(p, t, pic);
  // 5 x 3 points, 51 pixels a point (256 / 5), from (12, 12); z upward.
  auto px = [&](int x, int y) { const std::size_t o = 3 * (static_cast<std::size_t>(y) * img.width + x); return std::array<int, 3>{img.rgb[o], img.rgb[o + 1], img.rgb[o + 2]}; };
  const int s = 51;
  CHECK(px(12 + s / 2, 12 + 2 * s + s / 2) == std::array<int, 3>{0x44, 0x01, 0x54});  // (0, k = 0): the lowest, bottom left
  CHECK(px(12 + 4 * s + s / 2, 12 + s / 2) == std::array<int, 3>{0xfd, 0xe7, 0x25});  // (4, k = 2): the highest, top right
  CHECK(px(12 + 2 * s + s / 2, 12 + s + s / 2) == std::array<int, 3>{0xff, 0x00, 0xff});  // the NaN
  if (sim::png_available()) {
    const std::string path = (fs::temp_directory_path() / "gpen_test_picture.png").string();
    sim::write_png(path, img);
    CHECK(read_file(path).substr(0, 8) == "\x89PNG\r\n\x1a\n");
    fs::remove(path);
  } else {
    CHECK_THROWS_WITH_AS(sim::write_png("x.png", img), doctest::Contains("built without libpng"), std::runtime_error);
  }
}

TEST_CASE("a step that would end a hair short of --until lands on it: no sliver of a step after it") {
  // Ten steps of 0.1 add up to 0.9999999999999999: the tenth lands on 1
  // (0.1 and a hair), instead of an eleventh step of 1.1e-16. A step that
  // would pass its stop by more is shortened to it, as before.
  const sim::Program p = program_of(line_wave(1e-3, "rk3", R"~({"dt": 0.1})~"), std::array<long long, 3>{8, 1, 1});
  sim::Simulation s(p, std::make_unique<sim::CpuBackend>(p));
  s.initialize();
  sim::RunOptions o;
  o.until = 1.0;
  s.run(o);
  CHECK(s.step() == 10);
  CHECK(s.time() == 1.0);
  o.until = 1.25;  // 1.1, 1.2 and then a half step
  s.run(o);
  CHECK(s.step() == 13);
  CHECK(s.time() == 1.25);
}

TEST_CASE("a run refuses what would never end or go unnoticed: a step that does not advance t, a foreign or damaged snapshot, a non-finite field without output") {
  // dt far below t's precision once t = 1.
  const sim::Program tiny = program_of(line_wave(1e-3, "rk3", R"~({"dt": 1e-20})~"), std::array<long long, 3>{8, 1, 1});
  sim::Simulation s(tiny, std::make_unique<sim::CpuBackend>(tiny));
  s.initialize();
  sim::RunOptions o;
  o.until = 1.0;
  o.steps = 10;
  s.run(o);  // from t = 0 the steps advance
  CHECK(s.step() == 10);
  {
    // At rest with no sound speed and no diffusion the CFL condition bounds nothing: an infinite step is refused, not taken into NaN.
    // (snapshots by step count: snapshot times would bound the step)
    const std::string at_rest = with(line_wave(0, "rk3", R"~({"cfl": {"spec": "../reduce/cfl_speed.json", "params": {"cs": "0"}}})~"),
                                     R"~("snapshots": {"every_time": 1.0,)~", R"~("snapshots": {"every": 1000,)~");
    const sim::Program rest = program_of(at_rest, std::array<long long, 3>{8, 1, 1});
    sim::Simulation r(rest, std::make_unique<sim::CpuBackend>(rest));
    r.initialize();
    sim::RunOptions two;
    two.steps = 2;
    CHECK_THROWS_WITH_AS(r.run(two), doctest::Contains("step 0: the CFL condition bounds no time step at t = 0: the largest speed is 0"), std::runtime_error);
    CHECK(r.step() == 0);
    sim::RunOptions landing;  // a time to land on bounds it
    landing.until = 0.5;
    r.run(landing);
    CHECK(r.step() == 1);
    CHECK(r.time() == 0.5);
  }
  {
    // Snapshot times so close that the run would land on ten million of them.
    const std::string dense = with(line_wave(1e-3, "rk3", R"~({"dt": 1e-3})~"), R"~("snapshots": {"every_time": 1.0,)~", R"~("snapshots": {"every_time": 1e-9,)~");
    const sim::Program p = program_of(dense, std::array<long long, 3>{8, 1, 1});
    sim::Simulation d(p, std::make_unique<sim::CpuBackend>(p));
    d.initialize();
    sim::RunOptions until;
    until.until = 0.01;
    CHECK_THROWS_WITH_AS(d.run(until), doctest::Contains(" snapshot times from t = 0 to --until 0.01 (/snapshots/every_time 1e-09); at most 100000"),
                         std::runtime_error);
    CHECK(d.step() == 0);
  }
  const std::string dir = (fs::temp_directory_path() / "gpen_test_refusals").string();
  fs::remove_all(dir);
  {
    // A snapshot at t = 1 (the heat program, fixed step), restarted with a step t cannot take.
    std::string j = with(read_file(source_dir() + "/specs/programs/heat_walls3d.json"), R"~("time_step": {"cfl": {"diffusivity": "kappa"}})~", R"~("time_step": {"dt": 1e-20})~");
    const sim::Program p = program_of(j, std::array<long long, 3>{5, 4, 5});
    sim::Simulation a(p, std::make_unique<sim::CpuBackend>(p));
    a.initialize();
    a.write_snapshot(dir + "/snap");
    std::string meta = read_file(dir + "/snap/snapshot.json");
    meta = with(meta, R"~("time": "0")~", R"~("time": "1")~");
    std::ofstream(dir + "/snap/snapshot.json") << meta;
    sim::Simulation b(p, std::make_unique<sim::CpuBackend>(p));
    b.restart(dir + "/snap");
    CHECK(b.time() == 1.0);
    sim::RunOptions u;
    u.until = 2.0;
    CHECK_THROWS_WITH_AS(b.run(u), doctest::Contains("does not advance t = 1"), std::runtime_error);
    // A damaged time, another program's snapshot.
    std::ofstream(dir + "/snap/snapshot.json") << with(meta, R"~("time": "1")~", R"~("time": "1xyz")~");
    CHECK_THROWS_WITH_AS(b.restart(dir + "/snap"), doctest::Contains("\"time\" is '1xyz', not a finite time >= 0"), std::runtime_error);
    std::ofstream(dir + "/snap/snapshot.json") << with(meta, R"~("program": "heat_walls3d")~", R"~("program": "other")~");
    CHECK_THROWS_WITH_AS(b.restart(dir + "/snap"), doctest::Contains("it is a snapshot of the program 'other'"), std::runtime_error);
  }
  {
    // No diagnostics, no output: a field born non-finite is still reported at the stop.
    std::string j = with(read_file(source_dir() + "/specs/programs/heat_walls3d.json"), R"~(,
  "diagnostics": {"every": 100, "reductions": [{"spec": "../reduce/sum3d.json", "inputs": {"u": "T"}}]})~", "");
    j = with(j, R"~({"name": "T", "ghost": 1,)~", R"~({"name": "T", "ghost": 1, "init": "x / (y - y)",)~");
    const sim::RunResult r = two_steps(j);
    CHECK(r.stop == sim::RunResult::Stop::NonFinite);
  }
  {
    // Finite fields whose diagnostic overflows: said, and the run stops.
    std::string j = with(read_file(source_dir() + "/specs/programs/heat_walls3d.json"), R"~({"name": "T", "ghost": 1,)~", R"~({"name": "T", "ghost": 1, "init": "1e308",)~");
    const sim::RunResult r = two_steps(j);
    CHECK(r.stop == sim::RunResult::Stop::NonFinite);
    CHECK(r.message.find("the diagnostic 'total' is inf while the fields are finite") != std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("the Runge-Kutta tables: the 2N scheme's stage times, the weights of the classic RK4") {
  const sim::Scheme& rk3 = sim::scheme(sim::Integrator::Rk3);
  REQUIRE(rk3.stages.size() == 3);
  CHECK(rk3.stages[1].alpha == -5.0 / 9.0);
  CHECK(rk3.stages[2].alpha == -153.0 / 128.0);
  CHECK(rk3.stages[2].beta == 8.0 / 15.0);
  const sim::Scheme& rk4 = sim::scheme(sim::Integrator::Rk4);
  double w = 0;
  for (const sim::Stage& s : rk4.stages) w += s.weight;
  CHECK(w == doctest::Approx(1.0).epsilon(1e-15));
}


TEST_CASE("resume goes on from the state the back end holds, its ghosts filled again; a time or step that cannot be is refused") {
  const sim::Program p = program_of(sound_wave_text(), std::array<long long, 3>{10, 9, 8});
  sim::Simulation whole(p, std::make_unique<sim::CpuBackend>(p)), parts(p, std::make_unique<sim::CpuBackend>(p));
  whole.initialize();
  parts.initialize();
  sim::RunOptions o;
  o.steps = 4;
  whole.run(o);
  o.steps = 2;
  parts.run(o);
  // Ghosts the caller left stale are filled again.
  auto& arrays = const_cast<std::vector<HostArray>&>(static_cast<sim::CpuBackend&>(parts.backend()).arrays());
  const std::vector<HostArray> filled = arrays;
  for (HostArray& a : arrays) a.at(-1, 0, 0) = a.at(10, 9, 8) = std::nan("");
  parts.resume(parts.time(), parts.step());
  for (std::size_t i = 0; i < arrays.size(); ++i) CHECK(arrays[i].data == filled[i].data);
  parts.run(o);
  CHECK(parts.step() == 4);
  CHECK(parts.time() == whole.time());
  CHECK(parts.backend().fields() == whole.backend().fields());
  // The time and step are the caller's.
  parts.resume(0.25, 7);
  CHECK(parts.time() == 0.25);
  CHECK(parts.step() == 7);
  o.steps = 1;
  parts.run(o);
  CHECK(parts.step() == 8);
  CHECK(parts.time() > 0.25);
  CHECK_THROWS_WITH_AS(parts.resume(-1, 0), doctest::Contains("a finite time >= 0"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(parts.resume(0, -3), doctest::Contains("a step >= 0"), std::invalid_argument);
  CHECK_THROWS_AS(parts.resume(std::nan(""), 0), std::invalid_argument);
}

TEST_CASE("the Alfven wave travels at vA as the linear solution says, and converges at the operators' 6th order in space") {
  // On a line (n x 1 x 1) along the imposed field, RK4 at one fixed step far
  // below the grids' own (the time error cancels between grids), no
  // viscosity or resistivity: uy = -eps vA cos(x - vA t), vA = 1.
  const double eps = 1e-3, T = 1.0;
  const std::string text = read_file(source_dir() + "/specs/programs/alfven_wave3d.json");
  std::string j = with(text, R"~("integrator": "rk3")~", R"~("integrator": "rk4")~");
  j = with(j, R"~("time_step": {"cfl": {"spec": "../reduce/mhd_speed.json", "params": {"inv_h": "1 / hx"}, "diffusivity": "max(nu, eta)"}})~",
           R"~("time_step": {"dt": 0.01})~");
  auto uy_at = [&](long long n) { return field_at(program_of(j, std::array<long long, 3>{n, 1, 1}), T, "uy"); };
  const std::vector<double> reference = uy_at(256);
  double off = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double x = 2 * M_PI * static_cast<double>(i) / 256;
    off = std::max(off, std::fabs(reference[i] + eps * std::cos(x - T)));
  }
  CAPTURE(off / eps);
  CHECK(off / eps < 1e-4);  // the linear solution, to the wave's own nonlinearity (order eps)
  check_sixth_order(uy_at, reference, eps);
}

TEST_CASE("the SBP wave with Neumann SAT terms keeps its energy: E = (v^T H v + u^T M u) / 2 never grows, and RK4 takes little of it") {
  const sim::Program p = program_of(read_file(source_dir() + "/specs/programs/wave2d_sbp.json"));
  const sim::RhsKernel& lap = p.rhs[1];
  REQUIRE(lap.use.spec.kind == "sbp");
  REQUIRE(lap.use.spec.sbp().neumann_sat);
  const auto h = p.spacing();
  // H = Hx x Hy: the norm's weights at the closure points of each end.
  auto weight = [&](long long i, long long n) {
    const std::vector<Rational>& w = lap.use.spec.sbp().norm;
    const long long from_end = std::min(i, n - 1 - i);
    return from_end < static_cast<long long>(w.size()) ? w[static_cast<std::size_t>(from_end)].to_double() : 1.0;
  };
  // u^T M u = -u^T H (D2 u), D2 the operator with the SAT folded in (its CPU reference).
  auto energy = [&](const std::vector<std::vector<double>>& f) {
    HostArray u(2, p.size, 0), lap_u(2, p.size, 0);
    set_interior(u, f[0]);
    reference_sbp(lap.use.spec, u, {{"h", h[0]}}, lap_u);
    double e = 0;
    for (long long j = 0; j < p.size[1]; ++j)
      for (long long i = 0; i < p.size[0]; ++i) {
        const double w = weight(i, p.size[0]) * weight(j, p.size[1]) * h[0] * h[1];
        const double v = f[1][static_cast<std::size_t>(i + p.size[0] * j)];
        e += 0.5 * w * (v * v - u.at(i, j, 0) * lap_u.at(i, j, 0));
      }
    return e;
  };
  sim::Simulation s(p, std::make_unique<sim::CpuBackend>(p));
  s.initialize();
  const double e0 = energy(s.backend().fields());
  CHECK(e0 > 0);
  double e = e0;
  sim::RunOptions o;
  o.steps = 10;
  for (int k = 0; k < 25; ++k) {  // t = 1: the pulse has met every wall
    s.run(o);
    const double next = energy(s.backend().fields());
    CAPTURE(k);
    CAPTURE(e);
    CAPTURE(next);
    CHECK(next <= e * (1 + 1e-13));
    e = next;
  }
  CAPTURE(e0);
  CAPTURE(e);
  CHECK(e > 0.999 * e0);
}

TEST_CASE("a back end's fields one at a time: each field's values its own, every field or a refusal") {
  const sim::Program p = program_of(sound_wave_text(), std::array<long long, 3>{6, 5, 7});
  for (const bool split : {false, true}) {
    CAPTURE(split);
    std::unique_ptr<sim::Backend> b = split ? std::unique_ptr<sim::Backend>(std::make_unique<sim::DecomposedCpuBackend>(p, sim::RankGrid{{2, 1, 1}}))
                                            : std::make_unique<sim::CpuBackend>(p);
    REQUIRE(b->field_count() == 4);
    std::vector<std::vector<double>> want;
    for (std::size_t f = 0; f < 4; ++f) {
      std::vector<double> v(6 * 5 * 7);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(f * 1000 + i);
      b->set_field(f, v);
      want.push_back(v);
    }
    b->fill_boundaries();
    CHECK(b->fields() == want);
    CHECK(b->field(2) == want[2]);
    CHECK_THROWS_WITH(b->set_fields({want[0]}), doctest::Contains("1 fields' values for 4 fields"));
    CHECK_THROWS_AS(b->set_field(1, std::vector<double>(7)), std::invalid_argument);
  }
}

}  // namespace gpen::test
