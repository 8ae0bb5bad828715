// Programs (kind "program"): what they read, and how they refuse what they cannot run.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "gpen/simulate/memory.hpp"
#include "gpen/simulate/npy.hpp"
#include "gpen/simulate/simulation.hpp"
#include "program_support.hpp"

namespace gpen::test {

TEST_CASE("the shipped sound wave reads: fields, kernels bound by name, params as expressions, CFL, diagnostics") {
  const sim::Program p = program_of(sound_wave_text());
  CHECK(p.name == "sound_wave3d");
  REQUIRE(p.fields.size() == 4);
  CHECK(p.fields[0].name == "rho");
  CHECK(p.fields[0].ghost == 3);
  REQUIRE(p.rhs.size() == 2);
  // continuity_rho3d's inputs rho, ux, uy, uz are the program's fields 0..3; its one output is d rho/dt.
  CHECK(p.rhs[0].use.input_field == std::vector<int>{0, 1, 2, 3});
  CHECK(p.rhs[0].output_field == std::vector<int>{0});
  CHECK(p.rhs[1].output_field == std::vector<int>{1, 2, 3});
  // inv_h = 1 / hx with hx = 2 pi / 64 (periodic: box / n).
  const std::vector<double> env = p.param_values();
  CHECK(p.rhs[0].use.param[0](env.data()) == doctest::Approx(64 / (2 * M_PI)).epsilon(1e-15));
  CHECK(!p.time_step.fixed);
  CHECK(p.time_step.cdt == 0.4);
  CHECK(p.time_step.cdtv == 0.25);
  CHECK(p.diagnostics.every == 10);
  CHECK(p.snapshots.every_time == 1.0);
  CHECK(p.integrator == sim::Integrator::Rk3);
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) CHECK(p.fields[2].boundary[a][side].kind == sim::BoundaryKind::Periodic);
  // --size replaces the grid before anything is checked against it.
  const sim::Program small = program_of(sound_wave_text(), std::array<long long, 3>{16, 1, 1});
  CHECK(small.size == std::array<long long, 3>{16, 1, 1});
  CHECK(small.spacing()[0] == doctest::Approx(2 * M_PI / 16));
  CHECK(small.hash != p.hash);
}

TEST_CASE("a GPU run's host memory: one field's initial values in double and one padded staging copy in the dtype, whatever the count of fields") {
  const std::array<long long, 3> n{64, 48, 40};
  for (const char* dtype : {"float64", "float32"}) {
    CAPTURE(dtype);
    const sim::Program p = program_of(with(sound_wave_text(), R"("dtype": "float64")", fmt::format(R"("dtype": "{}")", dtype)), n);
    REQUIRE(p.fields.size() == 4);
    const std::uint64_t interior = 64ull * 48 * 40, padded = (64ull + 6) * (48 + 6) * (40 + 6);  // ghost 3
    CHECK(sim::program_memory(p, true).host == interior * 8 + padded * size_of(p.dtype));
  }
}

TEST_CASE("a kernel spec written inline in a program reads as its file does; its mistakes are errors at their place in the program") {
  const std::string base = sound_wave_text();
  const std::string spec = read_file(source_dir() + "/specs/stencil/continuity_rho3d.json");
  const std::string j = with(base, R"~("../stencil/continuity_rho3d.json")~", spec);
  const sim::Program file = program_of(base), inline_ = program_of(j);
  REQUIRE(inline_.rhs.size() == 2);
  CHECK(inline_.rhs[0].use.spec.name == "continuity_rho3d");
  CHECK(inline_.rhs[0].use.spec.hash == file.rhs[0].use.spec.hash);  // the same kernel: the same cache entry and tuning record
  CHECK(inline_.rhs[0].use.input_field == file.rhs[0].use.input_field);
  CHECK(inline_.rhs[0].use.path == "p.json#/rhs/0/spec");
  CHECK(inline_.hash != file.hash);

  // A mistake inside it: the whole pointer, the program's line and column.
  const SpecError e = program_error_at(with(j, "D1(rho * uy, y)", "D1(rho * uy, w)"), "/rhs/0/spec/outputs/0/expr");
  CHECK(e.detail().message == "the second argument of 'D1' must be an axis");
  const std::size_t at = j.find("D1(rho * uy, y)");
  CHECK(e.line() == 1 + std::count(j.begin(), j.begin() + static_cast<long>(at), '\n'));
  CHECK(program_error_at(with(j, R"~("ghost": 3},
    {"name": "drho_dt")~", R"~("ghost": "3"},
    {"name": "drho_dt")~"), "/rhs/0/spec/fields/3/ghost").detail().expected.find("integer") != std::string::npos);
  // Neither a file nor an object.
  CHECK(program_error_at(with(base, R"~("../stencil/continuity_rho3d.json")~", "7"), "/rhs/0/spec").detail().expected.find("written here") !=
        std::string::npos);
}

TEST_CASE("a field's initial values from its expression at every point, the rows spread over the cores, whole and a subdomain's part") {
  // Over the size where the rows go to several threads; the expression reads x, y and z.
  const std::array<long long, 3> n{67, 45, 33};
  const sim::Program p = program_of(conserving_wave_text(), n);
  const double a = 0.1;  // conserving_wave_text's amplitude
  const auto h = p.spacing();
  auto want = [&](long long i, long long j, long long k) {
    const double x = p.origin[0] + static_cast<double>(i) * h[0], y = p.origin[1] + static_cast<double>(j) * h[1],
                 z = p.origin[2] + static_cast<double>(k) * h[2];
    return 1 + a * std::sin(x) * std::cos(2 * y) + 0.5 * a * std::sin(z);
  };
  sim::Subdomain whole, part;
  whole.extent = n;
  part.offset = {5, 7, 11};
  part.extent = {60, 30, 20};
  for (const sim::Subdomain& s : {whole, part}) {
    CAPTURE(s.offset[0]);
    const std::vector<double> rho = sim::initial_values(p, &s).at(0);
    REQUIRE(static_cast<long long>(rho.size()) == s.extent[0] * s.extent[1] * s.extent[2]);
    long long wrong = 0;
    std::size_t at = 0;
    for (long long k = s.offset[2]; k < s.offset[2] + s.extent[2]; ++k)
      for (long long j = s.offset[1]; j < s.offset[1] + s.extent[1]; ++j)
        for (long long i = s.offset[0]; i < s.offset[0] + s.extent[0]; ++i) wrong += std::fabs(rho[at++] - want(i, j, k)) > 1e-15;
    CHECK(wrong == 0);
  }
}

TEST_CASE("a field's initial values from a .npy file (a snapshot's field), noise on top; a missing file or another shape refused at its pointer") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "gpen_init_npy";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::array<long long, 3> n{7, 5, 3};
  std::vector<double> values(static_cast<std::size_t>(n[0] * n[1] * n[2]));
  for (std::size_t t = 0; t < values.size(); ++t) values[t] = 1 + 0.01 * static_cast<double>(t);
  sim::write_npy((dir / "rho.npy").string(), Dtype::Float32, {n[2], n[1], n[0]}, values);
  sim::write_npy((dir / "flat.npy").string(), Dtype::Float64, {n[2] * n[1] * n[0]}, values);
  const std::string base = sound_wave_text();
  const std::string from_file = R"~("init": {"npy": ")~" + (dir / "rho.npy").string() + R"~("})~";
  const std::string j = with(base, R"~("init": "1 + amplitude * sin(x)")~", from_file);
  const sim::Program p = program_of(j, n);
  CHECK(p.fields[0].init_npy == (dir / "rho.npy").string());
  const auto init = sim::initial_values(p);
  for (std::size_t t = 0; t < values.size(); ++t) CHECK(init[0][t] == static_cast<double>(static_cast<float>(values[t])));  // x fastest, as written
  // Noise on top, the same as on an expression's values.
  const std::string noisy = with(j, from_file, from_file + R"~(, "noise": {"amplitude": 0.5, "seed": 3})~");
  const auto with_noise = sim::initial_values(program_of(noisy, n));
  int differ = 0;
  for (std::size_t t = 0; t < values.size(); ++t) differ += with_noise[0][t] != init[0][t];
  CHECK(differ == static_cast<int>(values.size()));

  // Refused, at the pointer: no such file, another shape (--size changes the program's), not an object of "npy".
  CHECK(program_error_at(with(j, "rho.npy", "rh0.npy"), "/fields/0/init/npy").detail().message.find("no file") != std::string::npos);
  const SpecError flat = program_error_at(with(j, "rho.npy", "flat.npy"), "/fields/0/init/npy");
  CHECK(flat.detail().message.find("has shape (105)") != std::string::npos);
  CHECK(flat.detail().message.find("size given") == std::string::npos);  // the file's own size
  try {
    program_of(j, std::array<long long, 3>{8, 5, 3});
    FAIL("another size accepted");
  } catch (const SpecErrors& e) {
    CHECK(e.errors().at(0).pointer() == "/fields/0/init/npy");
    CHECK(e.errors().at(0).detail().expected.find("shape (3, 5, 8)") != std::string::npos);
    CHECK(e.errors().at(0).detail().message.find("has shape (3, 5, 7) (the size given instead of /grid/size: 8x5x3)") != std::string::npos);
  }
  CHECK(program_error_at(with(j, R"~({"npy": ")~", R"~({"file": ")~"), "/fields/0/init").detail().message.find("npy") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a program's mistakes are errors at their JSON pointer, each one once") {
  const std::string base = sound_wave_text();
  SUBCASE("a kernel spec given as a program: one error at /kind, not the program keys it lacks and its own unknown ones") {
    try {
      program_of(read_file(source_dir() + "/specs/stencil/laplacian3d_o2.json"));
      FAIL("a kernel spec read as a program");
    } catch (const SpecErrors& all) {
      REQUIRE(all.errors().size() == 1);
      CHECK(all.errors()[0].pointer() == "/kind");
      CHECK(all.errors()[0].detail().message == "this file is a kernel spec (kind 'stencil'), not a program");
    }
  }
  SUBCASE("a name of an axis the program lacks: an error at its column, not its spacing 1 or coordinate 0") {
    const std::string wave = shipped_program("wave2d_sbp");  // 2-D
    SpecError e = program_error_at(with(wave, R"~("params": {"h": "hx"})~", R"~("params": {"h": "hz"})~"), "/rhs/1/params/h");
    CHECK(e.detail().message == "unknown name 'hz'");
    CHECK(e.detail().expected == "a param of the program, hx, hy, Lx, Ly or pi");
    e = program_error_at(with(wave, "(x - x0) * (x - x0)", "(x - x0) * (z - x0)"), "/fields/0/init");
    CHECK(e.detail().message == "unknown name 'z'");
    CHECK(e.detail().expected == "a coordinate (x, y), a param of the program or pi");
    CHECK(program_of(with(wave, R"~("params": {"h": "hx"})~", R"~("params": {"h": "Ly * hy / Ly"})~")).dims == 2);
  }
  SUBCASE("an SBP right-hand side along a periodic axis: its closures would sit at the seam, its spacing box / n") {
    const std::string wave = shipped_program("wave2d_sbp");
    SpecError e = program_error_at(with(wave, R"~("boundaries": [{"type": "none"}],)~", ""), "/rhs/1/spec");
    CHECK(e.detail().message == "sbp_laplacian2d_o4_neumann is of kind \"sbp\": its closures end the line at the x faces, which are periodic in this program");
    e = program_error_at(with(wave, R"~("boundaries": [{"type": "none"}],)~", R"~("boundaries": [{"type": "none", "faces": ["x"]}],)~"), "/rhs/1/spec");
    CHECK(e.detail().message.find("at the y faces") != std::string::npos);
    CHECK(program_of(wave).rhs.size() == 2);
    // A mistake in the boundaries is said alone, not also as an SBP axis left periodic.
    try {
      program_of(with(wave, R"~("boundaries": [{"type": "none"}],)~", R"~("boundaries": [{"type": "nnone"}],)~"));
      FAIL("a boundary type misspelt");
    } catch (const SpecErrors& all) {
      REQUIRE(all.errors().size() == 1);
      CHECK(all.errors()[0].pointer() == "/boundaries/0/type");
    }
  }
  SUBCASE("an SBP right-hand side on fewer points than its closures need: said at its spec, with the size's origin, before any run") {
    const std::string wave = shipped_program("wave2d_sbp");
    SpecError e = program_error_at(with(wave, "\"size\": [65, 49]", "\"size\": [65, 9]"), "/rhs/1/spec");
    CHECK(e.detail().message ==
          "9 points along y, but sbp_laplacian2d_o4_neumann needs at least 10 (4 closure rows at each end, each reaching 6 points, must not overlap)");
    CHECK(e.detail().expected == "at least 10 points along y");
    CHECK(program_of(with(wave, "\"size\": [65, 49]", "\"size\": [10, 10]")).size[1] == 10);
    try {
      program_of(wave, std::array<long long, 3>{4, 40, 1});
      FAIL("4 points along an SBP axis");
    } catch (const SpecErrors& all) {
      REQUIRE(all.errors().size() == 1);
      CHECK(all.errors()[0].detail().message.find("4 points along x, but") == 0);
      CHECK(all.errors()[0].detail().message.find("(the size given instead of /grid/size: 4x40)") != std::string::npos);
    }
  }
  SUBCASE("a size given on the command line that the program cannot take: its errors say so, and which size") {
    const std::string walls = read_file(source_dir() + "/specs/programs/heat_walls3d.json");
    try {
      program_of(walls, std::array<long long, 3>{1, 1, 1});
      FAIL("1 point an axis between walls");
    } catch (const SpecErrors& all) {
      REQUIRE(!all.errors().empty());
      CHECK(all.errors()[0].detail().message.find("for the ghost zones of") != std::string::npos);
      CHECK(all.errors()[0].detail().message.find("(the size given instead of /grid/size: 1x1x1)") != std::string::npos);
    }
    // The file's own size: the same error, without the note.
    const SpecError e = program_error_at(with(walls, "\"size\": [33, 32, 33]", "\"size\": [1, 32, 33]"), "/boundaries/0");
    CHECK(e.detail().message.find("for the ghost zones of") != std::string::npos);
    CHECK(e.detail().message.find("size given") == std::string::npos);
  }
  SUBCASE("a field without a right-hand side") {
    const std::string j = with(base, R"~({"name": "uz", "ghost": 3})~", R"~({"name": "uz", "ghost": 3}, {"name": "tracer", "ghost": 3})~");
    const SpecError e = program_error_at(j, "/fields/4");
    CHECK(e.detail().message == "the field 'tracer' has no right-hand side");
  }
  SUBCASE("a ghost zone narrower than a stencil reads") {
    const SpecError e = program_error_at(with(base, R"~({"name": "ux", "ghost": 3,)~", R"~({"name": "ux", "ghost": 2,)~"), "/rhs/0/spec");
    CHECK(e.detail().message == "continuity_rho3d reads 'ux' with ghost 3; the program's field 'ux' has ghost 2");
    CHECK(e.detail().expected == "ghost 3 or more at /fields/1/ghost");
  }
  SUBCASE("a boundary condition that names no field") {
    const std::string j = with(base, R"~("integrator": "rk3",)~", R"~("integrator": "rk3", "boundaries": [{"type": "symmetric", "faces": ["x"], "fields": ["rh0"]}],)~");
    const SpecError e = program_error_at(j, "/boundaries/0/fields/0");
    CHECK(e.detail().message == "no field 'rh0'; did you mean 'rho'?");
    CHECK(e.line() > 1);
    CHECK(e.column() > 1);
  }
  SUBCASE("an axis periodic for one field and walled for another") {
    const std::string j = with(base, R"~("integrator": "rk3",)~", R"~("integrator": "rk3", "boundaries": [{"type": "symmetric", "faces": ["x-", "x+"], "fields": ["ux"]}],)~");
    const SpecError e = program_error_at(j, "/boundaries/0");
    CHECK(e.detail().expected == "every field and face along x periodic, or none");
  }
  SUBCASE("a value boundary without its value, a value where none is taken") {
    const std::string j = with(base, R"~("integrator": "rk3",)~",
                               R"~("integrator": "rk3", "boundaries": [{"type": "value", "faces": ["z"]}, {"type": "symmetric", "faces": ["z"], "value": 1}],)~");
    CHECK(program_error_at(j, "/boundaries/0").detail().message == "a boundary of type 'value' without its value");
    CHECK(program_error_at(j, "/boundaries/1/value").detail().expected == "no value (only type 'value' takes one)");
  }
  SUBCASE("an unknown name in an initial value, at its column") {
    const std::string j = with(base, R"~("init": "1 + amplitude * sin(x)")~", R"~("init": "1 + amplitde * sin(x)")~");
    const SpecError e = program_error_at(j, "/fields/0/init");
    CHECK(e.detail().message == "unknown name 'amplitde'");
    CHECK(e.detail().expected == "a coordinate (x, y, z), a param of the program or pi");
  }
  SUBCASE("a reduction where a stencil must be, a stencil where a reduction must be") {
    const std::string j = with(with(base, "../stencil/continuity_rho3d.json", "../reduce/sum3d.json"), "../reduce/cfl_speed.json", "../stencil/diffusion3d.json");
    CHECK(program_error_at(j, "/rhs/0/spec").detail().expected == "a stencil or SBP spec: its outputs are time derivatives");
    CHECK(program_error_at(j, "/time_step/cfl/spec").detail().message.find("is a stencil spec") != std::string::npos);
  }
  SUBCASE("two outputs for one field's time derivative") {
    const std::string j = with(base, R"~("dux_dt": "ux", "duy_dt": "uy")~", R"~("dux_dt": "ux", "duy_dt": "ux")~");
    CHECK(program_error_at(j, "/rhs/1/outputs/duy_dt").detail().message == "dux/dt is already momentum_rho3d's output 'dux_dt'");
  }
  SUBCASE("a param no spec has, a time step given twice") {
    std::string j = with(base, R"~("params": {"inv_h": "1 / hx"})~", R"~("params": {"inv_hh": "1 / hx"})~");
    j = with(j, R"~("time_step": {"cfl")~", R"~("time_step": {"dt": 0.1, "cfl")~");
    CHECK(program_error_at(j, "/rhs/0/params/inv_hh").detail().message == "'inv_hh' is no param of continuity_rho3d");
    CHECK(program_error_at(j, "/time_step").detail().message == "both 'dt' and 'cfl'");
  }
  SUBCASE("a time derivative with ghost zones, a CFL speed that keeps an axis") {
    std::string j = with(base, R"~({"spec": "../stencil/continuity_rho3d.json", "params": {"inv_h": "1 / hx"}, "outputs": {"drho_dt": "rho"}})~",
                         R"~({"spec": "../../examples/heat_step.json", "inputs": {"u": "rho"}, "outputs": {"u_next": "rho"}})~");
    j = with(j, R"~("spec": "../reduce/cfl_speed.json", "params": {"cs": "sqrt(cs2)"})~", R"~("spec": "../reduce/column_sum.json")~");
    CHECK(program_error_at(j, "/rhs/0/outputs/u_next").detail().message == "heat_step's output 'u_next' has ghost 2: a time derivative is an interior");
    CHECK(program_error_at(j, "/time_step/cfl/spec").detail().expected == "a reduction over every axis (one number a result)");
  }
  SUBCASE("a number past float64, a non-finite param, a negative diffusivity, a program named as a kernel spec") {
    CHECK(program_error_at(with(base, R"~("init": "1 + amplitude * sin(x)")~", R"~("init": "1e999 * sin(x)")~"), "/fields/0/init").detail().message ==
          "'1e999' is beyond the range of a float64");
    std::string j = with(base, R"~("params": {"inv_h": "1 / hx"})~", R"~("params": {"inv_h": "1 / (hx - hx)"})~");
    j = with(j, R"~("diffusivity": "nu")~", R"~("diffusivity": "-1 - nu")~");
    j = with(j, "../stencil/momentum_rho3d.json", "heat_walls3d.json");
    CHECK(program_error_at(j, "/rhs/0/params/inv_h").detail().message == "continuity_rho3d's param 'inv_h' is inf");
    CHECK(program_error_at(j, "/time_step/cfl/diffusivity").detail().expected == "a finite value >= 0");
    CHECK(program_error_at(j, "/rhs/1/spec").detail().message == "'heat_walls3d.json' is a program, not a kernel spec");
  }
  SUBCASE("boundary 'none' on a field with ghost points, which nothing would write") {
    const std::string heat = read_file(source_dir() + "/specs/programs/heat_walls3d.json");
    const std::string j = with(heat, R"~({"type": "symmetric", "faces": ["x"]},)~", R"~({"type": "none", "faces": ["x"]},)~");
    const SpecError e = program_error_at(j, "/boundaries/0/type");
    CHECK(e.detail().message == "boundary 'none' on the x lower face of 'T', whose 1 ghost point there would never be written");
    // A later entry that fills those faces leaves no 'none' on them.
    const std::string replaced = with(heat, R"~({"type": "symmetric", "faces": ["x"]},)~", R"~({"type": "none", "faces": ["x"]}, {"type": "symmetric", "faces": ["x"]},)~");
    CHECK_NOTHROW(program_of(replaced, std::array<long long, 3>{5, 4, 5}));
  }
  SUBCASE("a kernel param past float32's range in a float32 program") {
    std::string j = read_file(source_dir() + "/specs/programs/heat_walls3d.json");
    j = with(with(j, R"~("dtype": "float64")~", R"~("dtype": "float32")~"), R"~("value": 1.0, "description": "thermal diffusivity")~",
             R"~("value": 1e39, "description": "thermal diffusivity")~");
    const SpecError e = program_error_at(j, "/rhs/0/params/inv_h2");
    CHECK(e.detail().message.find("laplacian3d_o2's param 'inv_h2' is ") == 0);
    CHECK(e.detail().message.find(", beyond float32's range") != std::string::npos);
  }
  SUBCASE("a CFL step that nothing bounds: a diffusivity of 0 without a speed or a cap") {
    const std::string heat = read_file(source_dir() + "/specs/programs/heat_walls3d.json");
    const std::string cfl = R"~("time_step": {"cfl": {"diffusivity": "kappa"}})~";
    const std::string j = with(heat, cfl, R"~("time_step": {"cfl": {"diffusivity": "0 * kappa"}})~");
    CHECK(program_error_at(j, "/time_step/cfl/diffusivity").detail().expected == "a diffusivity > 0, a 'spec', or a 'dt_max'");
    CHECK_NOTHROW(program_of(with(heat, cfl, R"~("time_step": {"cfl": {"diffusivity": "0 * kappa", "dt_max": 0.01}})~"), std::array<long long, 3>{5, 4, 5}));
  }
  SUBCASE("a face or a field named twice in one boundary entry") {
    const std::string j = with(base, R"~("integrator": "rk3",)~",
                               R"~("integrator": "rk3", "boundaries": [{"type": "periodic", "faces": ["x", "x+"]}, {"type": "periodic", "fields": ["ux", "ux"]}],)~");
    CHECK(program_error_at(j, "/boundaries/0/faces/1").detail().message == "the face x+ is named twice in this entry");
    CHECK(program_error_at(j, "/boundaries/1/fields/1").detail().message == "the field 'ux' is named twice in this entry");
  }
  SUBCASE("a missing required key is one error, once") {
    try {
      program_of(with(base, R"~("rhs": [)~", R"~("rhss": [)~"));
      FAIL("accepted");
    } catch (const SpecErrors& e) {
      CHECK(e.count() == 1);
    }
  }
  SUBCASE("a diagnostic that keeps an axis") {
    const std::string j = with(base, R"~({"spec": "../reduce/hydro_totals.json", "params": {"dv": "hx * hy * hz"}})~", R"~({"spec": "../reduce/column_sum.json"})~");
    CHECK(program_error_at(j, "/diagnostics/reductions/0/spec").detail().expected == "a reduction over every axis (one number a result)");
  }
}

TEST_CASE("scalar expressions: coordinates, params and math functions, evaluated in double precision") {
  const JsonSource src = JsonSource::from_string(R"~({"a": "2 * sin(pi / 2) - x / 4 + pow(b, 2)", "c": 0.5, "d": "sin(1, 2)"})~");
  Diagnostics diag;
  const JsonReader r(src, diag);
  const sim::ScalarExpr e = sim::ScalarExpr::parse(r, "/a", {"x", "b", "pi"}, "x, b or pi");
  const double v[3] = {2.0, 3.0, M_PI};
  CHECK(e(v) == doctest::Approx(2 - 0.5 + 9).epsilon(1e-15));
  CHECK(e.reads(0));
  CHECK(sim::ScalarExpr::parse(r, "/c", {}, "")(v) == 0.5);
  try {
    sim::ScalarExpr::parse(r, "/d", {}, "");
    FAIL("sin(1, 2) was accepted");
  } catch (const SpecError& x) {
    CHECK(x.detail().message == "sin() takes 1 argument, found 2");
  }
}

}  // namespace gpen::test
