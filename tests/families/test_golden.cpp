// Golden files: the generated source of every shipped spec x strategy,
// compared byte for byte. GPEN_UPDATE_GOLDEN=1 rewrites them; review the
// change as a git diff.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gpen/families/common/tunable_offer.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/ir_common.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/families/stencil/stencil_plan.hpp"
#include "test_support.hpp"

using namespace gpen;

namespace {

// "line N: expected <...> got <...>" for the first line that differs.
std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int n = 1;; ++n) {
    const bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
    if (ea && eb) return "identical";
    if (ea || eb || la != lb)
      return "first difference at line " + std::to_string(n) + ":\n  golden:    " + (ea ? "<end of file>" : la) +
             "\n  generated: " + (eb ? "<end of file>" : lb);
  }
}

}  // namespace

bool update_golden() { return std::getenv("GPEN_UPDATE_GOLDEN") && std::string(std::getenv("GPEN_UPDATE_GOLDEN")) == "1"; }

// Compares g, a unit of a spec of `kind`, with its golden file beside its
// family (or rewrites it); returns whether it compared.
bool check_golden(const std::string& kind, const Variant& g) {
  const std::string golden = gpen::test::source_dir() + "/families/" + kind + "/golden/" + g.name;
  CAPTURE(golden);
  if (update_golden()) {
    std::ofstream(golden, std::ios::binary) << g.source;
    return false;
  }
  const std::string want = gpen::test::read_file(golden);
  REQUIRE_MESSAGE(!want.empty(), "missing golden file; run with GPEN_UPDATE_GOLDEN=1");
  CHECK_MESSAGE(want == g.source, first_difference(want, g.source));
  return true;
}

// Every shipped spec of a kind directory with every strategy it allows;
// returns how many files compared.
int check_golden_every_strategy(const std::string& kind) {
  int compared = 0;
  for (const auto& path : gpen::test::shipped_specs(kind)) {
    const Spec spec = load_spec(path);
    for (const auto& v : spec.find_tunable("strategy")->values)
      compared += check_golden(kind, generate(spec, spec.choose({"strategy=" + to_string(v)})));
  }
  return compared;
}

TEST_CASE("golden files of every shipped spec and strategy") {
  const int compared = check_golden_every_strategy("stencil");
  if (!update_golden()) CHECK(compared >= 33);  // 5 stencil specs x 5 strategies, the heavy specs' 3 + 4 + 1
}

TEST_CASE("golden files of every shipped scan spec") {
  int compared = 0;
  for (const auto& path : gpen::test::shipped_specs("scan")) {
    const Spec spec = load_spec(path);
    compared += check_golden("scan", generate(spec, spec.choose()));
  }
  if (!update_golden()) CHECK(compared == 7);
}

TEST_CASE("golden files of every shipped SBP operator and strategy") {
  const int compared = check_golden_every_strategy("sbp");
  if (!update_golden()) CHECK(compared == 5 * 2 + 3);  // five operators x {direct, pencil}, three Laplacians (direct)
}

TEST_CASE("golden files of every shipped pairwise spec and strategy") {
  const int compared = check_golden_every_strategy("pairwise");
  if (!update_golden()) CHECK(compared == 8 + 1);  // eight specs, the grid one with tile and blocks
}

TEST_CASE("golden files of every shipped reduction spec") {
  int compared = 0;
  for (const auto& path : gpen::test::shipped_specs("reduce")) {
    const Spec spec = load_spec(path);
    compared += check_golden("reduce", generate(spec, spec.choose()));
  }
  if (!update_golden()) CHECK(compared == 10);
}

TEST_CASE("generation is deterministic") {
  const Spec a = load_spec(gpen::test::source_dir() + "/specs/stencil/continuity3d.json");
  const Spec b = load_spec(gpen::test::source_dir() + "/specs/stencil/continuity3d.json");
  CHECK(generate(a, a.choose()).source == generate(b, b.choose()).source);
  CHECK(a.hash.size() == 64);
}

TEST_CASE("banner names the spec, its hash and the tunables") {
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  const auto g = generate(s, s.choose({"strategy=tile", "block_x=64", "block_y=4"}));
  CHECK(g.source.find("spec 'laplacian3d_o8'") != std::string::npos);
  CHECK(g.source.find("sha256:" + s.hash) != std::string::npos);
  CHECK(g.source.find("strategy=tile block_x=64 block_y=4 points_per_thread=128 vector_x=1 rows_y=1 unroll_z=0") != std::string::npos);
  CHECK(g.source.find("#include \"gpen/stencil_tile.cuh\"") != std::string::npos);
  CHECK(g.source.find("//   work:      25 reads (25 distinct), 26 operations (26 with common subexpressions once) a point") != std::string::npos);
}

TEST_CASE("plan: launch geometry and shared memory") {
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  const StencilPlan rolling = plan_stencil(s, s.choose({"strategy=rolling", "block_x=32", "block_y=8", "points_per_thread=16"}));
  const LaunchDims d = rolling.launch({67, 45, 33});
  CHECK(d.grid == std::array<unsigned, 3>{3, 6, 3});
  CHECK(d.block == std::array<unsigned, 3>{32, 8, 1});
  CHECK(rolling.shared_bytes == (32 + 8) * (8 + 8) * 8);
  const StencilPlan direct = plan_stencil(s, s.choose({"strategy=direct"}));
  CHECK(direct.launch({67, 45, 33}).grid[2] == 33);
  CHECK(direct.shared_bytes == 0);

  const Spec s2 = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian2d_o4.json");
  const StencilPlan p2 = plan_stencil(s2, s2.choose({"points_per_thread=8"}));
  CHECK(p2.kernel_extent({100, 50, 1}) == std::array<long long, 3>{100, 1, 50});  // y marched as kernel z
  CHECK(p2.launch({100, 50, 1}).grid == std::array<unsigned, 3>{1, 1, 7});
  CHECK(p2.radius[0] == std::array<int, 3>{2, 0, 2});
}

TEST_CASE("plan: march owns vector_x x rows_y points, other strategies refuse them") {
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  const StencilPlan m = plan_stencil(s, s.choose({"strategy=march", "block_x=32", "block_y=4", "vector_x=2", "rows_y=4", "points_per_thread=8"}));
  CHECK(m.launch({67, 45, 33}).grid == std::array<unsigned, 3>{2, 3, 5});  // 67 / 64, 45 / 16, 33 / 8 (points_per_thread)
  const auto g = generate(s, s.choose({"strategy=march", "vector_x=4", "rows_y=2"}));
  CHECK(g.source.find("kVectorX = 4;") != std::string::npos);
  CHECK(g.source.find("kRowsY = 2;") != std::string::npos);
  // A choice that holds it under another strategy (a --set is refused before,
  // by choose()) is refused by the plan, at the tunable.
  TunableChoice tile = s.choose({"strategy=tile"});
  tile["vector_x"] = 2LL;
  try {
    plan_stencil(s, tile);
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.detail().message.find("only the march strategy has it") != std::string::npos);
    CHECK(e.detail().pointer == "/tunables");
  }
  // Streaming stores: on by default in the march, off (and refused) elsewhere.
  CHECK(plan_stencil(s, s.choose({"strategy=march"})).stream_stores);
  CHECK(g.source.find("kStreamStores = true;") != std::string::npos);
  CHECK_FALSE(plan_stencil(s, s.choose({"strategy=rolling"})).stream_stores);
  CHECK(generate(s, s.choose({"strategy=march", "stream_stores=0"})).source.find("kStreamStores = false;") != std::string::npos);
  tile = s.choose({"strategy=direct"});
  tile["stream_stores"] = 1LL;
  CHECK_THROWS_WITH_AS(plan_stencil(s, tile), doctest::Contains("stream_stores = 1 with strategy direct"), SpecError);
}

TEST_CASE("plan: the march's ring of planes in shared memory, and its launch bounds") {
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  // The spec's defaults: ring 2 ahead, 32x4 threads of 2x4 points, 128 planes a block.
  const StencilPlan p = plan_stencil(s, s.choose());
  CHECK(p.ring_ahead == 2);
  CHECK(p.ring_slots() == 4 + 2 + 1);  // planes k .. k + rz + D
  // (64 + 2 * 4) x (16 + 2 * 4) values a slot, 8 bytes each.
  CHECK(p.dynamic_shared_bytes == 72 * 24 * 7 * 8);
  CHECK(p.shared_bytes == 0);
  CHECK(p.launch({512, 512, 512}).grid == std::array<unsigned, 3>{8, 32, 4});
  const auto g = generate(s, s.choose());
  CHECK(g.source.find("kRingAhead = 2;") != std::string::npos);
  CHECK(g.source.find("kRingSlots = 7;") != std::string::npos);
  CHECK(g.source.find("== 96768, \"the ring's shared memory as planned\"") != std::string::npos);
  CHECK(g.source.find("96768 bytes per block (dynamic): a ring of 7 planes") != std::string::npos);
  CHECK(g.source.find("__launch_bounds__(") == std::string::npos);
  // float32 runs of 4: the x radius 4 is one run on each side.
  const Spec f = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json", Dtype::Float32);
  CHECK(plan_stencil(f, f.choose({"vector_x=4", "rows_y=1", "ring_ahead=1"})).dynamic_shared_bytes == (128 + 8) * (4 + 8) * 6 * 4);

  // No ring: nothing dynamic, no slots.
  const StencilPlan none = plan_stencil(s, s.choose({"ring_ahead=0"}));
  CHECK(none.dynamic_shared_bytes == 0);
  CHECK(generate(s, s.choose({"ring_ahead=0"})).source.find("kRingSlots = 0;") != std::string::npos);
  // A march tunable: other strategies refuse it.
  TunableChoice rolling = s.choose({"strategy=rolling"});
  rolling["ring_ahead"] = 2LL;
  CHECK_THROWS_WITH_AS(plan_stencil(s, rolling), doctest::Contains("only the march and stage strategies have it"), SpecError);
  CHECK_THROWS_WITH_AS(s.choose({"strategy=rolling", "ring_ahead=2"}), doctest::Contains("--set ring_ahead=2: only the march and stage strategies have ring_ahead"),
                       UsageError);
  // Four inputs of radius 3 in 2x4 points a thread: more than any GPU's block may have.
  const Spec c = load_spec(gpen::test::source_dir() + "/specs/stencil/continuity3d.json");
  try {
    plan_stencil(c, c.choose({"strategy=march", "block_y=4", "vector_x=2", "ring_ahead=2", "rows_y=4"}));
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.detail().message.find("the march's ring of 6 planes needs 248064 bytes of shared memory") != std::string::npos);
    CHECK(e.detail().expected.find("a smaller ring_ahead") != std::string::npos);
    CHECK(e.detail().pointer == "/tunables/ring_ahead");  // the spec's own entry
  }
  CHECK_NOTHROW(plan_stencil(c, c.choose({"strategy=march", "block_y=4", "vector_x=2", "ring_ahead=2", "rows_y=2"})));

  // min_blocks: __launch_bounds__ on both entries.
  const auto b = generate(s, s.choose({"min_blocks=3"}));
  CHECK(b.source.find("__global__ void __launch_bounds__(128, 3) gpen_laplacian3d_o8(") != std::string::npos);
  CHECK(b.source.find("__global__ void __launch_bounds__(128, 3) gpen_laplacian3d_o8_clamped(") != std::string::npos);
}

TEST_CASE("plan: values carried from plane to plane in registers, refused with the numbers when they cannot fit") {
  // laplacian3d_o8, one input of radius 4: without a ring the march's
  // queue holds 9 planes of each of its vector_x x rows_y points; with one,
  // the 4 planes behind (those ahead are in shared memory).
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  CHECK(plan_stencil(s, s.choose({"strategy=march", "vector_x=2", "rows_y=4", "ring_ahead=0"})).carried_values() == 9 * 8);
  CHECK(plan_stencil(s, s.choose({"strategy=march", "vector_x=2", "rows_y=4", "ring_ahead=2"})).carried_values() == 4 * 8);
  CHECK(plan_stencil(s, s.choose({"strategy=direct"})).carried_values() == 0);
  // 4x4 points: 144 values, 288 registers in float64 -- refused, at rows_y.
  try {
    plan_stencil(s, s.choose({"strategy=march", "vector_x=4", "rows_y=4", "ring_ahead=0"}));
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.detail().message.find("the march carries 144 values a thread from plane to plane in its z queues (1 input, 4x4 points a thread): "
                                  "288 registers in float64, more than the 255 a thread may have") != std::string::npos);
    CHECK(e.detail().expected.find("fewer rows_y or vector_x") != std::string::npos);
    CHECK(e.detail().expected.find("ring_ahead > 0") != std::string::npos);
    CHECK(e.detail().pointer == "/tunables/rows_y");
  }
  // With a ring the same points carry 64 values; float32 fits without one.
  CHECK_NOTHROW(plan_stencil(s, s.choose({"strategy=march", "vector_x=4", "rows_y=4", "ring_ahead=2"})));
  const Spec f = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json", Dtype::Float32);
  CHECK_NOTHROW(plan_stencil(f, f.choose({"strategy=march", "vector_x=4", "rows_y=4", "ring_ahead=0"})));
  // min_blocks 4 of 256 threads leaves 64 registers a thread: 2x4 points' queues (144) do not fit.
  try {
    plan_stencil(s, s.choose({"strategy=march", "block_y=8", "ring_ahead=0", "min_blocks=4"}));
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.detail().message.find("144 registers in float64, more than the 64 a thread may have (min_blocks 4 with 256 threads a block)") != std::string::npos);
    CHECK(e.detail().expected.find("a smaller min_blocks") != std::string::npos);
  }
  CHECK_NOTHROW(plan_stencil(s, s.choose({"strategy=march", "block_y=8", "rows_y=2", "ring_ahead=0", "min_blocks=2"})));
  // min_blocks 1 bounds nothing here: the 255 a thread does, and the pointer is at rows_y.
  try {
    plan_stencil(s, s.choose({"strategy=march", "vector_x=4", "rows_y=4", "ring_ahead=0", "min_blocks=1"}));
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.detail().pointer == "/tunables/rows_y");
    CHECK(e.detail().message.find("more than the 255 a thread may have") != std::string::npos);
    CHECK(e.detail().message.find("min_blocks") == std::string::npos);
  }
  // One block of 512 threads must fit an SM's registers: 128 a thread.
  CHECK_THROWS_WITH_AS(plan_stencil(s, s.choose({"strategy=march", "block_y=16", "ring_ahead=0"})),
                       doctest::Contains("144 registers in float64, more than the 128 a thread may have (a block of 512 threads)"), SpecError);
  // The stage strategy: each input's column (z_queue 1) and the queues of
  // intermediates read along z. continuity3d's radii along z: lnrho 3, ux
  // 0, uy 0, uz 3; momentum adds two intermediates of reach 3 read along z.
  const Spec c = load_spec(gpen::test::source_dir() + "/specs/stencil/continuity3d.json");
  CHECK(plan_stencil(c, c.choose({"strategy=stage", "rows_y=2", "z_queue=1"})).carried_values() == (7 + 1 + 1 + 7) * 2);
  CHECK(plan_stencil(c, c.choose({"strategy=stage", "rows_y=2", "z_queue=0"})).carried_values() == 0);
  const Spec m = load_spec(gpen::test::source_dir() + "/specs/stencil/momentum_visc3d.json");
  CHECK(plan_stencil(m, m.choose({"strategy=stage", "z_queue=1", "xz_queue=0"})).carried_values() == 4 * 7 + 2 * 7);
  CHECK(plan_stencil(m, m.choose({"strategy=stage", "z_queue=0", "xz_queue=0", "rows_y=2"})).carried_values() == 2 * 7 * 2);
  // A stage of one row whose column alone does not fit: a 2-D spec (y is
  // marched) reading 129 planes along y (an operator of 65 points, the
  // most, applied twice). The refusal points at z_queue.
  std::string offsets, coeffs;
  for (int o = -32; o <= 32; ++o) {
    offsets += (o > -32 ? ", " : "") + std::to_string(o);
    coeffs += (o > -32 ? ", " : "") + std::string(o == 0 ? "1" : "0.5");
  }
  const Spec w = load_spec_string("{\"name\": \"wide\", \"kind\": \"stencil\", \"dtype\": \"float64\", \"dims\": 2,\n"
                                  "  \"fields\": [{\"name\": \"u\", \"role\": \"input\", \"ghost\": 64}, {\"name\": \"v\", \"role\": \"output\"}],\n"
                                  "  \"operators\": [{\"name\": \"W\", \"offsets\": [" + offsets + "], \"coeffs\": [" + coeffs + "]}],\n"
                                  "  \"outputs\": [{\"field\": \"v\", \"expr\": \"W(W(u, y), y)\"}],\n"
                                  "  \"tunables\": {\"z_queue\": {\"default\": 1}}}\n");
  CHECK_NOTHROW(plan_stencil(w, w.choose({"strategy=stage", "z_queue=0"})));
  try {
    plan_stencil(w, w.choose({"strategy=stage", "z_queue=1"}));
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.detail().message.find("the stage strategy carries 129 values a thread from plane to plane in its columns (z_queue 1)") != std::string::npos);
    CHECK(e.detail().message.find("258 registers in float64, more than the 255") != std::string::npos);
    CHECK(e.detail().expected.find("z_queue 0") != std::string::npos);
    CHECK(e.detail().pointer == "/tunables/z_queue");
  }
}

TEST_CASE("plan: the stage strategy's planes, refused with the numbers, and chosen by the footprint") {
  // continuity3d: each input's ring has 2 rz + 1 + 2 slots of (32 + 2 rx) x
  // (4 * 2 + 2 ry) values: lnrho reaches 3 along every axis, ux along x
  // only, uy along y, uz along z.
  const Spec c = load_spec(gpen::test::source_dir() + "/specs/stencil/continuity3d.json");
  const StencilPlan p = plan_stencil(c, c.choose({"strategy=stage", "block_x=32", "block_y=4", "rows_y=2", "ring_ahead=2", "points_per_thread=16"}));
  CHECK(p.strategy == StencilStrategy::Stage);
  CHECK(p.dynamic_shared_bytes == (38 * 14 * 9 + 38 * 8 * 3 + 32 * 14 * 3 + 32 * 8 * 9) * 8);
  CHECK(p.shared_bytes == 0);
  CHECK(p.ring_slots() == 0);  // the march's ring constant stays 0
  CHECK(p.launch({67, 45, 33}).grid == std::array<unsigned, 3>{3, 6, 3});  // 67 / 32, 45 / 8, 33 / 16
  const auto g = generate(c, c.choose({"strategy=stage", "ring_ahead=2"}));
  CHECK(g.source.find("#include \"gpen/stencil_stage.cuh\"") != std::string::npos);
  CHECK(g.source.find("kRingAhead = 2;") != std::string::npos);
  CHECK(g.source.find("\"the staged planes' shared memory as planned\"") != std::string::npos);
  // The velocity of the induction equation is read at the point: it has
  // no ring, each thread reads it from global memory.
  const Spec ind = load_spec(gpen::test::source_dir() + "/specs/stencil/induction3d.json");
  const StencilPlan pi = plan_stencil(ind, ind.choose({"block_x=32", "block_y=4", "rows_y=1", "ring_ahead=1", "xz_queue=0"}));
  // Its mixed derivatives in two passes (the default): intermediates read
  // along x take each of the 4 warps a row of 32 + 2 x 3 values; those read
  // along z, registers. (ay along y and az along z, read together along x
  // in dax_dt, are one.)
  int along_x = 0;
  for (const auto& g : pi.mids) along_x += g[0] == 0;
  CHECK(along_x == 3);
  CHECK(pi.mids.size() == 5);
  CHECK(pi.mid_shared_bytes == along_x * 4 * 38 * 8);
  CHECK(pi.dynamic_shared_bytes == (3 * 38 * 10 * (7 + 1) + along_x * 4 * 38) * 8);
  CHECK(plan_stencil(ind, ind.choose({"block_x=32", "block_y=4", "rows_y=1", "ring_ahead=1", "xz_queue=0", "mixed_passes=1"})).dynamic_shared_bytes ==
        3 * 38 * 10 * (7 + 1) * 8);
  // point_registers: 1 by default where the inputs read at the point take
  // at most 8 registers a point (the velocity's 3 in float64: 6); with 0,
  // each has a ring of its points (no halo) of its plane and the one ahead.
  CHECK(tunable_int(ind.choose(), "point_registers") == 1);
  CHECK(tunable_int(load_spec(gpen::test::source_dir() + "/specs/stencil/induction3d.json", Dtype::Float32).choose(), "point_registers") == 1);
  const StencilPlan rings = plan_stencil(ind, ind.choose({"block_x=32", "block_y=4", "rows_y=1", "ring_ahead=1", "xz_queue=0", "point_registers=0"}));
  CHECK(rings.dynamic_shared_bytes == (3 * 32 * 4 * (1 + 1) + 3 * 38 * 10 * (7 + 1) + along_x * 4 * 38) * 8);
  // The velocity's 3 values a point, carried once: in registers, or with
  // z_queue as its rings' queues of one plane.
  const std::vector<std::string> base = {"block_x=32", "block_y=4", "rows_y=1", "ring_ahead=1"};
  auto carried = [&](const char* queue, const char* regs) {
    std::vector<std::string> t = base;
    t.push_back(queue);
    t.push_back(regs);
    return plan_stencil(ind, ind.choose(t)).carried_values();
  };
  CHECK(carried("z_queue=1", "point_registers=0") == carried("z_queue=1", "point_registers=1"));
  CHECK(carried("z_queue=0", "point_registers=0") + 3 == carried("z_queue=0", "point_registers=1"));
  // Five inputs read at the point: 10 registers in float64 (rings by
  // default), 5 in float32; a spec with none has only 0 to take.
  std::string five = "{\"name\": \"five\", \"kind\": \"stencil\", \"dtype\": \"float64\", \"dims\": 3,\n  \"fields\": [{\"name\": \"u\", \"role\": \"input\", \"ghost\": 1}";
  for (const char* f : {"a", "b", "c", "d", "e"}) five += std::string(", {\"name\": \"") + f + "\", \"role\": \"input\"}";
  five += ", {\"name\": \"v\", \"role\": \"output\"}],\n  \"operators\": [{\"name\": \"D1\", \"derivative\": 1, \"order\": 2}],\n"
          "  \"outputs\": [{\"field\": \"v\", \"expr\": \"D1(u, x) * a + b * c - d * e\"}]}\n";
  CHECK(tunable_int(load_spec_string(five).choose({"strategy=stage"}), "point_registers") == 0);
  std::string five32 = five;
  five32.replace(five32.find("float64"), 7, "float32");
  CHECK(tunable_int(load_spec_string(five32).choose({"strategy=stage"}), "point_registers") == 1);
  const Spec lap = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json");
  CHECK_THROWS_WITH_AS(lap.choose({"strategy=stage", "point_registers=1"}), doctest::Contains("no input is read at the point alone"), UsageError);

  // Seven inputs of radius 3 in 32x8 points: more than a block may have.
  const Spec m = load_spec(gpen::test::source_dir() + "/specs/stencil/mhd_iso3d.json");
  try {
    plan_stencil(m, m.choose({"rows_y=2", "ring_ahead=1", "block_x=32", "block_y=4", "mixed_passes=1"}));
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.detail().message.find("the stage strategy's planes need 238336 bytes of shared memory with block 32x4, 2 rows a thread and ring_ahead 1") !=
          std::string::npos);
    CHECK(e.detail().expected == "at most 232448 bytes: a smaller block, rows_y or ring_ahead");
    CHECK(e.detail().pointer == "/tunables");
  }
  // The intermediates' share is named, and mixed_passes 1 offered where it fits.
  const Spec mom = load_spec(gpen::test::source_dir() + "/specs/stencil/momentum_visc3d.json");
  try {
    plan_stencil(mom, mom.choose({"rows_y=1", "ring_ahead=0", "block_x=64", "block_y=8", "xz_queue=0"}));
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.detail().message.find("need 234112 bytes of shared memory (14592 of them for intermediates) with block 64x8") != std::string::npos);
    CHECK(e.detail().expected == "at most 232448 bytes: a smaller block, rows_y or ring_ahead, or mixed_passes 1");
  }
  // Intermediates a warp at a time: a block whose warps cover parts of rows is refused.
  const std::string mom48 = gpen::test::with(gpen::test::read_file(gpen::test::source_dir() + "/specs/stencil/momentum_visc3d.json"),
                                             "\"tunables\": {", "\"tunables\": {\"block_x\": {\"values\": [48, 32], \"default\": 48}, ");
  const Spec m48 = load_spec_string(mom48, "mom48.json");
  CHECK_THROWS_WITH(plan_stencil(m48, m48.choose({"strategy=stage"})), doctest::Contains("has warps that cover parts of rows"));
  CHECK(plan_stencil(m48, m48.choose({"strategy=stage", "mixed_passes=1"})).block_x == 48);
  const Spec m16 = load_spec(gpen::test::source_dir() + "/specs/stencil/momentum_visc3d.json");
  try {
    plan_stencil(m16, m16.choose({"strategy=stage", "block_x=16", "block_y=1"}));
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.detail().message.find("block 16x1 is 16 threads, not whole warps") != std::string::npos);
    CHECK(e.detail().pointer == "/tunables/block_y");  // the spec sets block_y's default
  }
  CHECK(plan_stencil(m16, m16.choose({"strategy=stage", "block_x=16", "block_y=2"})).mid_shared_bytes > 0);

  // The default strategy follows the footprint: the fused specs read more
  // than 128 distinct values a point and stage them, one row a thread, one
  // plane ahead, 32 planes a block; the single operators march, and so
  // would continuity3d but for its spec's defaults.
  const std::map<std::string, int> height = {{"momentum_visc3d", 4}, {"induction3d", 6}, {"mhd_iso3d", 4}};
  for (const char* heavy : {"momentum_visc3d", "induction3d", "mhd_iso3d"}) {
    CAPTURE(heavy);
    const Spec h = load_spec(gpen::test::source_dir() + "/specs/stencil/" + heavy + ".json");
    const TunableChoice d = h.choose();
    CHECK(to_string(d.at("strategy")) == "stage");
    CHECK(tunable_int(d, "rows_y") == 1);
    CHECK(tunable_int(d, "ring_ahead") == 1);
    CHECK(tunable_int(d, "points_per_thread") == 32);
    // Blocks of 5 and 6 rows of threads are theirs to tune (their planes
    // fill an SM's shared memory with more warps), 4 gpen's default; the
    // specs set their float64 heights (bench/RESULTS.md, thirty-eighth
    // session; mhd_iso3d keeps 4 for the Orszag-Tang program's fused stages;
    // momentum_visc3d 4 with rings without the planes behind, forty-fourth).
    CHECK(tunable_int(d, "block_y") == height.at(heavy));
    CHECK(plan_stencil(h, h.choose({"block_y=6"})).launch({256, 256, 256}).block == std::array<unsigned, 3>{32, 6, 1});
    CHECK(plan_stencil(h, h.choose({"block_y=5"})).launch({256, 256, 256}).grid[1] == 52);  // 256 / 5, rounded up
    // The stage walks 4 x 32 planes a block where the grid keeps 4096
    // blocks (512^3: 16 x 103 x 4), 2 x 32 where only that does, else 32.
    const StencilPlan five = plan_stencil(h, h.choose({"block_y=5", "points_per_thread=32"}));
    CHECK(five.launch({512, 512, 512}).grid[2] == 4);
    CHECK(five.launch({512, 160, 512}).grid[2] == 8);   // 16 x 32 x 8
    CHECK(five.launch({256, 256, 256}).grid[2] == 8);   // 8 x 52 x 4 < 4096
    CHECK(five.launch({37, 21, 19}).grid[2] == 1);
  }
  for (const char* single : {"laplacian3d_o2", "laplacian3d_o8", "diffusion3d"}) {
    CAPTURE(single);
    const Spec o = load_spec(gpen::test::source_dir() + "/specs/stencil/" + single + ".json");
    CHECK(to_string(o.choose().at("strategy")) == "march");
    CHECK_THROWS_WITH_AS(o.choose({"block_y=6"}), doctest::Contains("6 is not an allowed value of block_y; allowed: 1, 2, 4, 8, 16"), UsageError);
  }
  CHECK(to_string(c.choose().at("strategy")) == "stage");
  CHECK(tunable_int(c.choose(), "z_queue") == 1);
  CHECK(tunable_int(c.choose(), "ring_ahead") == 3);
}

TEST_CASE("plan: the stage's columns in registers (z_queue): 1 in float64 unless x and z queues take them, 0 in float32 and where a spec says so, the stage's own") {
  const std::string dir = gpen::test::source_dir() + "/specs/stencil/";
  const Spec m64 = load_spec(dir + "momentum_visc3d.json");
  const Spec m32 = load_spec(dir + "momentum_visc3d.json", Dtype::Float32);
  // Where no x and z pair splits, float64 takes the columns: diffusion3d
  // (no mixed derivative) and an x and y pair; momentum_visc3d, whose x
  // and z pairs split, takes the x and z queues instead, and its spec the
  // columns too, for rings without the planes behind (ring_behind 0).
  const Spec diffusion = load_spec(dir + "diffusion3d.json");
  CHECK(plan_stencil(diffusion, diffusion.choose({"strategy=stage"})).z_queue);
  const Spec xy = load_spec_string(gpen::test::two_input_spec(3, 6, {{"w", "D1(D1(u, y), x) + v"}}));
  CHECK(xy.find_tunable("mixed_passes")->values.size() == 2);
  CHECK(xy.find_tunable("xz_queue")->values.size() == 1);
  CHECK(plan_stencil(xy, xy.choose({"strategy=stage"})).z_queue);
  CHECK(m64.find_tunable("z_queue")->default_value == TunableValue{1LL});  // the spec's
  CHECK(plan_stencil(m64, m64.choose()).z_queue);
  CHECK(plan_stencil(m64, m64.choose()).xz_queue);
  CHECK_FALSE(plan_stencil(m32, m32.choose()).z_queue);
  CHECK(plan_stencil(m32, m32.choose({"z_queue=1"})).z_queue);
  // mhd_iso3d's seven columns spill in float64: its spec keeps them in the ring.
  const Spec mhd = load_spec(dir + "mhd_iso3d.json");
  CHECK_FALSE(plan_stencil(mhd, mhd.choose()).z_queue);
  // The same shared memory either way; the unit says which.
  CHECK(plan_stencil(m64, m64.choose({"z_queue=0"})).dynamic_shared_bytes == plan_stencil(m64, m64.choose({"z_queue=1", "ring_behind=1"})).dynamic_shared_bytes);
  CHECK(generate(m64, m64.choose({"z_queue=1"})).source.find("static constexpr bool kZQueue = true;") != std::string::npos);
  CHECK(generate(m64, m64.choose({"z_queue=0"})).source.find("static constexpr bool kZQueue = false;") != std::string::npos);
  // Another strategy takes 0, and refuses 1 by name.
  const Spec o2 = load_spec(dir + "laplacian3d_o2.json");
  CHECK_FALSE(plan_stencil(o2, o2.choose()).z_queue);
  CHECK_THROWS_WITH_AS(o2.choose({"z_queue=1"}), doctest::Contains("only the stage strategy has z_queue, and the strategy is march"), UsageError);
}

TEST_CASE("plan: rings without the planes behind the centre (ring_behind 0) where nothing reads them, else the unit of 1") {
  const std::string dir = gpen::test::source_dir() + "/specs/stencil/";
  const Spec m64 = load_spec(dir + "momentum_visc3d.json");
  // momentum_visc3d's float64 default: columns and x and z pairs in queues,
  // so no read reaches a plane behind; its 4 rings (38 x 10 cells a plane
  // at 32x4) keep planes k .. k + 3 and 1 ahead, 3 fewer than with them.
  const StencilPlan d = plan_stencil(m64, m64.choose());
  const StencilPlan with = plan_stencil(m64, m64.choose({"ring_behind=1"}));
  CHECK_FALSE(d.ring_behind);
  CHECK(with.ring_behind);
  CHECK(with.dynamic_shared_bytes - d.dynamic_shared_bytes == 4 * 38 * 10 * 3 * 8);
  const std::string unit = generate(m64, m64.choose()).source;
  CHECK(unit.find("static constexpr bool kRingBehind = false;") != std::string::npos);
  CHECK(unit.find("each input's planes k .. k + rz and 1 ahead") != std::string::npos);
  CHECK(generate(m64, m64.choose({"ring_behind=1"})).source.find("each input's planes k - rz .. k + rz and 1 ahead") != std::string::npos);
  // A read behind keeps them, and the choice is the twin of ring_behind 1:
  // the columns read from the rings (z_queue 0); the products off the
  // column (mixed_passes 1); an intermediate computed from planes behind
  // (xz_queue 0: uz along z, read along x, across its row's halo).
  for (const char* keep : {"z_queue=0", "mixed_passes=1", "xz_queue=0"}) {
    CAPTURE(keep);
    const TunableChoice c = m64.choose({keep});
    CHECK(plan_stencil(m64, c).ring_behind);
    const auto twin = stencil_plain_twin(m64, c, nullptr);
    REQUIRE(twin);
    CHECK(tunable_int(*twin, "ring_behind") == 1);
    CHECK(generate(m64, c).source.find("static constexpr bool kRingBehind = true;") != std::string::npos);
  }
  CHECK_FALSE(stencil_plain_twin(m64, m64.choose(), nullptr));
  // mhd_iso3d in float32 (its spec's 0) drops them; in float64 (xz_queue
  // 0) an intermediate reads behind, unless x and z pairs go along z.
  const Spec mhd32 = load_spec(dir + "mhd_iso3d.json", Dtype::Float32);
  const Spec mhd64 = load_spec(dir + "mhd_iso3d.json");
  CHECK_FALSE(plan_stencil(mhd32, mhd32.choose()).ring_behind);
  CHECK(plan_stencil(mhd64, mhd64.choose({"z_queue=1", "ring_behind=0"})).ring_behind);
  CHECK_FALSE(plan_stencil(mhd64, mhd64.choose({"z_queue=1", "xz_queue=1", "ring_behind=0"})).ring_behind);
  // No mixed derivative (continuity3d, columns by default): 0 drops them;
  // gpen's default is 1, and another strategy refuses 0 by name.
  const Spec c = load_spec(dir + "continuity3d.json");
  CHECK(plan_stencil(c, c.choose()).ring_behind);
  CHECK_FALSE(plan_stencil(c, c.choose({"ring_behind=0"})).ring_behind);
  const Spec o2 = load_spec(dir + "laplacian3d_o2.json");
  CHECK(plan_stencil(o2, o2.choose()).ring_behind);
  CHECK_THROWS_WITH_AS(o2.choose({"ring_behind=0"}), doctest::Contains("only the stage strategy has ring_behind, and the strategy is march"), UsageError);
}

TEST_CASE("plan: intermediates of x and z pairs read along z (xz_queue): 1 by default, offered where such a pair splits") {
  const std::string dir = gpen::test::source_dir() + "/specs/stencil/";
  const Spec m64 = load_spec(dir + "momentum_visc3d.json");
  const Spec m32 = load_spec(dir + "momentum_visc3d.json", Dtype::Float32);
  CHECK(m64.find_tunable("xz_queue")->values.size() == 2);
  const StencilPlan x = plan_stencil(m64, m64.choose({"xz_queue=0", "z_queue=1"}));
  const StencilPlan z = plan_stencil(m64, m64.choose({"xz_queue=1", "z_queue=1"}));
  CHECK_FALSE(x.xz_queue);
  CHECK(plan_stencil(m64, m64.choose()).xz_queue);
  CHECK(plan_stencil(m32, m32.choose()).xz_queue);
  // mhd_iso3d's spec says 0 in float64 (the Orszag-Tang program's fused
  // stages spill with them), and keeps gpen's 1 in float32.
  const Spec mhd64 = load_spec(dir + "mhd_iso3d.json");
  const Spec mhd32 = load_spec(dir + "mhd_iso3d.json", Dtype::Float32);
  CHECK_FALSE(plan_stencil(mhd64, mhd64.choose()).xz_queue);
  CHECK(plan_stencil(mhd32, mhd32.choose()).xz_queue);
  // momentum_visc3d's: uy along y + uz along z (one row: read together in
  // dux_dt), ux along y, uz along y, ux along z, uy along y; with xz_queue
  // the x and z pairs leave the rows for the columns' queues: uy along y,
  // uz along x, ux along y, uz along y, ux along x, uy along y (the last
  // two apart: uy along y is also D1(uy, y), read at the point).
  CHECK(x.mids == std::vector<std::array<int, 2>>{{0, 3}, {0, 3}, {2, 3}, {0, 3}, {2, 3}});
  CHECK(z.mids == std::vector<std::array<int, 2>>{{0, 3}, {2, 3}, {0, 3}, {2, 3}, {2, 3}, {2, 3}});
  CHECK(z.mid_shared_bytes * 3 == x.mid_shared_bytes * 2);
  CHECK(z.carried_values() == x.carried_values() + 2 * 7);
  CHECK(generate(m64, m64.choose({"xz_queue=1"})).source.find("1: uz along x read along z") != std::string::npos);
  // Nothing to choose without such a pair; another strategy takes 0.
  const Spec o2 = load_spec(dir + "laplacian3d_o2.json");
  CHECK(o2.find_tunable("xz_queue")->values.size() == 1);
  CHECK_FALSE(plan_stencil(m32, m32.choose({"strategy=direct"})).xz_queue);
}

TEST_CASE("a tunable of several strategies: listed, kept and refused by name") {
  CHECK(strategy_listed("march, stage", "stage"));
  CHECK(strategy_listed("march, stage", "march"));
  CHECK(strategy_listed("march", "march"));
  CHECK_FALSE(strategy_listed("march, stage", "tile"));
  CHECK_FALSE(strategy_listed("march, stage", "mar"));
  CHECK_FALSE(strategy_listed("march", "march, stage"));
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json");
  // rows_y and ring_ahead: the stage strategy keeps them, the tile takes their plain values.
  const TunableChoice st = s.choose({"strategy=stage", "rows_y=4", "ring_ahead=3"});
  CHECK(plan_stencil(s, st).rows_y == 4);
  CHECK(plan_stencil(s, st).ring_ahead == 3);
  const TunableChoice tile = s.choose({"strategy=tile"});
  CHECK(tunable_int(tile, "rows_y") == 1);
  CHECK(tunable_int(tile, "ring_ahead") == 0);
  // vector_x is the march's alone.
  CHECK_THROWS_WITH_AS(s.choose({"strategy=stage", "vector_x=2"}), doctest::Contains("--set vector_x=2: only the march strategy has vector_x"), UsageError);
  CHECK_THROWS_WITH_AS(s.choose({"strategy=tile", "rows_y=2"}),
                       doctest::Contains("only the march and stage strategies have rows_y, and the strategy is tile (--set strategy=tile); expected rows_y = 1, or strategy march or stage"),
                       UsageError);
}

TEST_CASE("plan refuses tiles beyond the static shared-memory limit") {
  std::string t = "  \"tunables\": {\"block_x\": {\"values\": [1024]}, \"block_y\": {\"values\": [1]}},\n";
  std::string js = gpen::test::minimal_spec("D2(u, x)", t);
  js = gpen::test::with(js, "\"dims\": 2", "\"dims\": 3");
  js = gpen::test::with(js, "\"ghost\": 1", "\"ghost\": 8");
  js = gpen::test::with(js, "\"order\": 2", "\"order\": 16");
  const Spec s = load_spec_string(js);
  CHECK_NOTHROW(plan_stencil(s, s.choose({"strategy=direct"})));
  // (1024 + 16) x 1 x 8 bytes fits; try a spec that does not
  std::string t2 = "  \"tunables\": {\"block_x\": {\"values\": [1024]}, \"block_y\": {\"values\": [8]}},\n";
  std::string js2 = gpen::test::minimal_spec("D2(u, x) + D2(u, y)", t2);
  js2 = gpen::test::with(js2, "\"dims\": 2", "\"dims\": 3");
  const Spec s2 = load_spec_string(js2);
  try {
    plan_stencil(s2, s2.choose({"strategy=tile"}));
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.detail().message.find("threads, more than a block may have") != std::string::npos);
  }
}

TEST_CASE("a subexpression written in two outputs is computed once") {
  const std::string spec = R"({
    "name": "t", "kind": "stencil", "dtype": "float64", "dims": 2,
    "fields": [{"name": "u", "role": "input", "ghost": 1}, {"name": "v", "role": "output"}, {"name": "w", "role": "output"}],
    "params": [{"name": "k", "value": 2}],
    "operators": [{"name": "D2", "derivative": 2, "order": 2}],
    "outputs": [{"field": "v", "expr": "D2(u, x) * u"}, {"field": "w", "expr": "D2(u, x) * u + k"}]})";
  const Spec s = load_spec_string(spec);
  const std::string src = generate(s, s.choose({"strategy=direct"})).source;
  const auto count = [&](const std::string& what) {
    int n = 0;
    for (auto at = src.find(what); at != std::string::npos; at = src.find(what, at + 1)) ++n;
    return n;
  };
  CHECK(count("at<f_u, -1, 0, 0>()") == 1);  // D2(u, x) once
  CHECK(count("* in.template at<f_u, 0, 0, 0>();") == 1);  // its product with u once
  const IrWork w = ir_work(s.output_exprs());
  CHECK(w.ops == 2 * (3 + 1) + 1);
  CHECK(w.distinct_ops == 3 + 1 + 1);
}

TEST_CASE("a division by a constant is a product with its reciprocal; by a parameter it stays a division") {
  const std::string spec = R"({
    "name": "t", "kind": "stencil", "dtype": "float64", "dims": 1,
    "fields": [{"name": "u", "role": "input", "ghost": 1}, {"name": "v", "role": "output"}],
    "params": [{"name": "k", "value": 2}],
    "operators": [{"name": "D2", "derivative": 2, "order": 2}],
    "outputs": [{"field": "v", "expr": "D2(u, x) * u / 3 + k * u / -0.25 + u / k"}]})";
  const Spec s = load_spec_string(spec);
  const std::string src = generate(s, s.choose({"strategy=direct"})).source;
  CHECK(src.find("constexpr real kC1 = 0.3333333333333333;  // 1/3") != std::string::npos);
  CHECK(src.find("constexpr real kC2 = -4.0;") != std::string::npos);
  CHECK(src.find("t0 * in.template at<f_u, 0, 0, 0>() * kC1 + p_k * in.template at<f_u, 0, 0, 0>() * kC2 + in.template at<f_u, 0, 0, 0>() / p_k;") != std::string::npos);
  CHECK(src.find("/ 3") == std::string::npos);
}
