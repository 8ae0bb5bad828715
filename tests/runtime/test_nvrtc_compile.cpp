// Every shipped spec x strategy compiles with NVRTC for sm_90. NVRTC needs
// the toolkit only, so this runs in CI on machines without a GPU.
#include "gpen/families/common/spec_program.hpp"
#include "gpen/families/common/utility_units.hpp"
#include "gpen/runtime/nvrtc_compiler.hpp"
#include "test_nvrtc.hpp"
#include "test_support.hpp"

using namespace gpen;

TEST_CASE("every shipped stencil spec and strategy compiles for sm_90") {
  int compiled = 0;
  for (const auto& path : gpen::test::shipped_specs("stencil")) {
    const Spec spec = load_spec(path);
    for (const auto& v : spec.find_tunable("strategy")->values) {
      gpen::test::check_compiles(generate(spec, spec.choose({"strategy=" + to_string(v)})), spec.name);
      ++compiled;
    }
  }
  CHECK(compiled >= 20);
}

TEST_CASE("fp32 variants compile too") {
  const Spec spec = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json", Dtype::Float32);
  const Variant g = generate(spec, spec.choose());
  CHECK(g.source.find("using real = float;") != std::string::npos);
  CHECK(compile_with_nvrtc(source_program(g, spec.name), "sm_90").cubin.size() > 1000);
}

TEST_CASE("the runtime's own kernels compile: periodic fill, device comparison and a program's time loop, both dtypes") {
  for (Dtype dt : {Dtype::Float64, Dtype::Float32})
    for (const Variant& g : {generate_periodic_fill(dt), generate_compare(dt), generate_time_loop(dt)}) {
      CAPTURE(g.name);
      const CompiledKernel k = compile_with_nvrtc(source_program(g, "runtime"), "sm_90");
      CHECK(k.ptx.find(g.kernel_name) != std::string::npos);
      CHECK(k.usage.spill_stores == 0);
    }
  // Every entry the GPU back end asks the module for (simulate/gpu_backend.cpp).
  const CompiledKernel k = compile_with_nvrtc(source_program(generate_time_loop(Dtype::Float64), "runtime"), "sm_90");
  for (const char* entry : {"_boundary_axis", "_update_rk4", "_save", "_copy_padded", "_non_finite", "_time_step", "_time_step_f64"})
    CHECK(k.ptx.find(std::string(".entry gpen_time_loop_float64") + entry) != std::string::npos);
}

TEST_CASE("march variants with several points a thread compile without spilling") {
  // The register arrays of a vector_x x rows_y block must stay in registers
  // for the shipped 8th-order Laplacian at the sizes the tuner offers first.
  for (Dtype dt : {Dtype::Float64, Dtype::Float32}) {
    const Spec spec = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json", dt);
    for (const char* set : {"vector_x=2", "vector_x=4", "rows_y=2"}) {
      // From the register march's 2x2 points (the spec's own defaults are the ring's).
      const Variant g = generate(spec, spec.choose({"strategy=march", "ring_ahead=0", "vector_x=2", "rows_y=2", set}));
      CAPTURE(g.name);
      CAPTURE(set);
      const CompiledKernel k = compile_with_nvrtc(source_program(g, spec.name), "sm_90");
      INFO("NVRTC log:\n" << k.log);
      CHECK(k.usage.registers > 0);
      CHECK(k.usage.spill_stores == 0);
    }
  }
}

TEST_CASE("the march's ring compiles for every shipped stencil spec, both dtypes, without spilling") {
  for (const auto& path : gpen::test::shipped_specs("stencil"))
    for (Dtype dt : {Dtype::Float64, Dtype::Float32}) {
      const Spec spec = load_spec(path, dt);
      if (!gpen::test::offers_strategy(spec, "march")) continue;
      for (const char* ahead : {"ring_ahead=1", "ring_ahead=3"}) {
        const Variant g = generate(spec, spec.choose({"strategy=march", "rows_y=1", "vector_x=1", ahead}));
        CAPTURE(g.name);
        CAPTURE(ahead);
        const CompiledKernel k = compile_with_nvrtc(source_program(g, spec.name), "sm_90");
        INFO("NVRTC log:\n" << k.log);
        CHECK(k.usage.registers > 0);
        CHECK(k.usage.spill_stores == 0);
      }
    }
  // The 8th-order Laplacian's defaults: the ring, 2x4 points a thread.
  const Spec o8 = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  const CompiledKernel d = compile_with_nvrtc(source_program(generate(o8, o8.choose()), o8.name), "sm_90");
  CHECK(d.usage.registers > 0);
  CHECK(d.usage.spill_stores == 0);
  // Before sm_80 there is no cp.async: the copies are plain loads and stores.
  CHECK_NOTHROW(compile_with_nvrtc(source_program(generate(o8, o8.choose()), o8.name), "sm_75"));
}

TEST_CASE("ptxas usage is read from the named entry's section of the log") {
  const std::string log =
      "ptxas info    : Compiling entry function 'k_clamped' for 'sm_90'\n"
      "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 0 barriers\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 82 registers, used 0 barriers, 5120 bytes smem\n";
  const ResourceUsage k = parse_ptxas_usage(log, "k");
  CHECK(k.registers == 82);
  CHECK(k.spill_stores == 0);
  CHECK(k.shared_bytes == 5120);
  CHECK(parse_ptxas_usage(log, "k_clamped").registers == 255);
  CHECK(parse_ptxas_usage(log).registers == 255);  // no name: the first entry
}

TEST_CASE("a compile error shows the log and the generated lines around it") {
  const Spec spec = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json");
  Variant g = generate(spec, spec.choose());
  g.source = gpen::test::with(g.source, "out[0] =", "out[0] = undefined_name +");
  try {
    compile_with_nvrtc(source_program(g, spec.name), "sm_90");
    FAIL("no error");
  } catch (const CompileError& e) {
    const std::string what = e.what();
    CHECK(what.find("NVRTC could not compile laplacian3d_o2.march.cu (spec 'laplacian3d_o2'") != std::string::npos);
    CHECK(what.find("undefined_name") != std::string::npos);
    CHECK(what.find("> ") != std::string::npos);  // the marked source line
    CHECK(!e.log().empty());
  }
}

TEST_CASE("an architecture NVRTC does not compile for is a usage error naming the ones it does") {
  const Spec spec = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json");
  const Variant g = generate(spec, spec.choose());
  for (const char* arch : {"sm_35", "sm_999"}) {
    CAPTURE(arch);
    const std::string said = std::string("does not compile for ") + arch + " (the --arch given, else this GPU's): it compiles for sm_";
    CHECK_THROWS_WITH_AS(compile_with_nvrtc(source_program(g, spec.name), arch), doctest::Contains(said.c_str()), UsageError);
  }
  CHECK_THROWS_WITH_AS(compile_with_nvrtc(source_program(g, spec.name), "sm_35"), doctest::Contains("sm_90"), UsageError);
}
