// Pairwise specs without a GPU: the pair values _i/_j and their errors (with
// lines and columns), plan refusals, NVRTC compiles of every shipped spec x
// strategy x dtype, the flattened evaluation and its error magnitudes, the
// CPU reference on hand-checked cases, group lists and sizes.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "gpen/families/pairwise/pairwise_reference.hpp"
#include "gpen/families/pairwise/pairwise_run.hpp"
#include "gpen/families/pairwise/pairwise_scope.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/families/pairwise/pairwise_plan.hpp"
#include "test_nvrtc.hpp"
#include "test_support.hpp"

using namespace gpen;
using gpen::test::spec_error_of;
using gpen::test::with;

namespace {

std::string pair_path(const char* name) { return gpen::test::source_dir() + "/specs/pairwise/" + name + ".json"; }

// A small same-set spec; tests edit its text.
std::string potential_json() {
  return R"J({
  "name": "p",
  "kind": "pairwise",
  "dtype": "float64",
  "dims": 1,
  "fields": [
    {"name": "x", "role": "input"},
    {"name": "m", "role": "input"},
    {"name": "phi", "role": "output"}
  ],
  "params": [{"name": "eps2", "value": 0.5}],
  "pairwise": {"sources": "targets", "self": "include"},
  "lets": [{"name": "dx", "expr": "x_i - x_j"}],
  "outputs": [{"field": "phi", "expr": "m_j / sqrt(dx*dx + eps2)"}]
})J";
}

std::vector<std::string> value_names(const Spec& s) {
  std::vector<std::string> v;
  for (const auto& pv : s.pairwise().values) v.push_back(pv.name);
  return v;
}

}  // namespace

TEST_CASE("pair values: each field at both ends of a same-set pair, at one end of separate sets, cell coordinates on grids") {
  const Spec p = load_spec_string(potential_json());
  CHECK(p.kind == "pairwise");
  CHECK(value_names(p) == std::vector<std::string>{"x_i", "x_j", "m_i", "m_j"});
  CHECK_FALSE(p.pairwise().skip_self);
  CHECK(p.outputs.size() == 1);
  CHECK(p.outputs[0].reduce == Reduce::Sum);
  std::vector<IrPtr> e{p.outputs[0].ir};
  CHECK(p.pairwise().read_by(false, e) == std::vector<int>{0});     // x_i
  CHECK(p.pairwise().read_by(true, e) == std::vector<int>{1, 3});   // x_j, m_j
  const Spec mp = load_spec(pair_path("multipole_potential"));
  CHECK_FALSE(mp.pairwise().same_set);
  CHECK(value_names(mp).front() == "x_i");
  CHECK(value_names(mp).back() == "qzx_j");
  CHECK(mp.pairwise().values.size() == 16);
  const Spec g = load_spec(pair_path("radiation_grid"));
  CHECK(g.pairwise().grid);
  CHECK(g.pairwise().skip_self);
  CHECK(value_names(g) == std::vector<std::string>{"e_i", "e_j", "ix_i", "ix_j", "iy_i", "iy_j", "iz_i", "iz_j"});
  // Only what the outputs read is loaded: the target reads its coordinates, not e.
  CHECK(g.pairwise().read_by(false, {g.outputs[0].ir}).size() == 3);
  const Spec r = load_spec_string(with(potential_json(), "\"expr\": \"m_j / sqrt(dx*dx + eps2)\"}",
                                       "\"expr\": \"dx*dx\", \"reduce\": \"min\"}"));
  CHECK(r.outputs.size() == 1);
  CHECK(r.outputs[0].reduce == Reduce::Min);
}

TEST_CASE("pairwise errors name the JSON path, the line and column, and what was expected") {
  struct Case {
    const char* what;
    std::string json;
    std::string pointer;
    std::string message;   // part of the message
    std::string expected;  // part of what was expected
  };
  const std::string j = potential_json();
  const std::string sep = with(with(with(j, "\"sources\": \"targets\", \"self\": \"include\"", "\"sources\": \"separate\""),
                                    "{\"name\": \"x\", \"role\": \"input\"}", "{\"name\": \"x\", \"role\": \"target\"}"),
                               "{\"name\": \"m\", \"role\": \"input\"}", "{\"name\": \"m\", \"role\": \"source\"}");
  // (its let reads the target's x only: "x_i - x_j" would be the first error)
  const std::string separate = with(sep, "x_i - x_j", "2 * x_i");
  load_spec_string(separate);
  const std::vector<Case> cases = {
      {"a field without its suffix", with(j, "x_i - x_j", "x - x_j"), "/lets/0/expr", "field 'x' is read without saying", "x_i or x_j"},
      {"a target field at the source", with(separate, "2 * x_i", "2 * x_i + m_j - x_j"), "/lets/0/expr", "'x' is a target field, read at the source",
       "x_i, or declare 'x' with role \"source\""},
      {"a source field at the target", with(separate, "m_j / sqrt", "m_i / sqrt"), "/outputs/0/expr", "'m' is a source field, read at the target", "m_j"},
      {"a cell coordinate of particles", with(j, "x_i - x_j", "ix_i - x_j"), "/lets/0/expr", "cell coordinate 'ix_i' outside a grid",
       "domain \"grid\""},
      {"a coordinate without a suffix", with(with(j, "\"sources\": \"targets\"", "\"domain\": \"grid\", \"sources\": \"targets\""), "x_i - x_j", "ix - x_j"),
       "/lets/0/expr", "cell coordinate 'ix' needs a suffix", "ix_i"},
      {"a coordinate beyond the grid", with(with(j, "\"sources\": \"targets\"", "\"domain\": \"grid\", \"sources\": \"targets\""), "x_i - x_j", "iy_i - x_j"),
       "/lets/0/expr", "'iy_i' is beyond the 1-D grid", "a coordinate of the grid's axes"},
      {"a let read with a suffix", with(j, "dx*dx", "dx_i*dx"), "/outputs/0/expr", "unknown identifier 'dx_i'", "x_i, x_j, m_i, m_j, eps2, dx"},
      {"no self rule for one set", with(j, ", \"self\": \"include\"", ""), "/pairwise", "missing key 'self'", "\"skip\" or \"include\""},
      {"a self rule for separate sets", with(separate, "\"sources\": \"separate\"", "\"sources\": \"separate\", \"self\": \"skip\""), "/pairwise/self",
       "'self' with separate sources", "a target is never one of separate sources"},
      {"a target role in one set", with(j, "{\"name\": \"m\", \"role\": \"input\"}", "{\"name\": \"m\", \"role\": \"source\"}"), "/fields/1/role",
       "role 'source' while the sources are the targets", "role \"input\""},
      {"an input role with separate sets", with(separate, "{\"name\": \"m\", \"role\": \"source\"}", "{\"name\": \"m\", \"role\": \"input\"}"),
       "/fields/1/role", "role 'input' with separate sources", "\"target\" or \"source\""},
      {"separate sources on a grid", with(with(separate, "\"sources\": \"separate\"", "\"domain\": \"grid\", \"sources\": \"separate\""), "", ""),
       "/pairwise/sources", "separate sources on a grid", "the same cells"},
      {"3-D particles", with(j, "\"dims\": 1", "\"dims\": 3"), "/dims", "dims 3 for particles", "dims 1"},
      {"a name with a pair suffix", with(j, "\"name\": \"dx\"", "\"name\": \"dx_j\""), "/lets/0/name", "'dx_j' ends in a pair suffix",
       "not ending in _i or _j"},
      {"an unknown reduction", with(j, "\"expr\": \"m_j / sqrt(dx*dx + eps2)\"}", "\"expr\": \"m_j\", \"reduce\": \"prod\"}"), "/outputs/0/reduce",
       "'prod' is not allowed here", "sum, min, max"},
      {"a ghost zone", with(j, "{\"name\": \"m\", \"role\": \"input\"}", "{\"name\": \"m\", \"role\": \"input\", \"ghost\": 1}"), "/fields/1/ghost",
       "ghost width 1 on 'm'", "pairs read no neighbours"},
      {"an output read in a pair", with(j, "m_j / sqrt", "phi_j / sqrt"), "/outputs/0/expr", "output field 'phi' cannot be read", "an input field"},
      {"a term of the target alone", with(j, "m_j / sqrt(dx*dx + eps2)", "m_i * eps2"), "/outputs", "no output reads a value of the source",
       "a source field with the suffix _j"},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.what));
    const SpecError e = spec_error_of(c.json);
    INFO(e.what());
    CHECK(e.pointer() == c.pointer);
    CHECK(std::string(e.detail().message).find(c.message) != std::string::npos);
    CHECK(std::string(e.detail().expected).find(c.expected) != std::string::npos);
    CHECK(e.line() > 1);
    CHECK(e.column() > 0);
  }
  // The column points at the offending name inside the expression string.
  const SpecError e = spec_error_of(with(j, "x_i - x_j", "x_i - x"));
  std::istringstream text(with(j, "x_i - x_j", "x_i - x"));
  std::string line;
  for (int k = 0; k < e.line(); ++k) std::getline(text, line);
  CHECK(line.substr(e.column() - 1, 3) == "x\"}");
}

TEST_CASE("pairwise plans refuse tunables that cannot run") {
  const Spec p = load_spec(pair_path("softened_potential"));
  CHECK_THROWS_WITH_AS(p.choose({"cell_block=8"}), doctest::Contains("--set cell_block=8: 'cell_block' names no tunable"), UsageError);
  const Spec g = load_spec(pair_path("radiation_grid"));
  CHECK_THROWS_WITH_AS(g.choose({"strategy=tile", "cell_block=16"}), doctest::Contains("--set cell_block=16: only the blocks strategy has cell_block"),
                       UsageError);
  const SpecError e = [&] {
    try {
      TunableChoice tile = g.choose({"strategy=tile"});
      tile["cell_block"] = 16LL;
      generate(g, tile);
    } catch (const SpecError& x) {
      return x;
    }
    FAIL("cell_block with strategy tile was not refused");
    throw std::logic_error("unreachable");
  }();
  CHECK(e.detail().message.find("cell_block = 16 with strategy tile") != std::string::npos);
  // Under its own strategy, a block-on-block tunable must be one of its
  // values; its plain value (what the tile holds) is not.
  TunableChoice no_blocks = g.choose({"strategy=blocks"});
  no_blocks["cell_block"] = 0LL;
  CHECK_THROWS_WITH_AS(plan_pairwise(g, no_blocks), doctest::Contains("cell_block = 0 with strategy blocks: not one of its values"), SpecError);
  const Spec odd = load_spec_string(with(potential_json(), "\"outputs\"", "\"tunables\": {\"block_x\": {\"values\": [80]}}, \"outputs\""));
  CHECK_THROWS_WITH_AS(generate(odd, odd.choose()), doctest::Contains("a multiple of 32"), SpecError);
  const Spec unroll = load_spec_string(with(potential_json(), "\"outputs\"", "\"tunables\": {\"unroll\": {\"values\": [5]}}, \"outputs\""));
  CHECK_THROWS_WITH_AS(generate(unroll, unroll.choose()), doctest::Contains("a divisor of block_x"), SpecError);
  const std::string grouped = with(potential_json(), "\"self\": \"include\"", "\"self\": \"include\", \"pairs\": \"grouped\"");
  const Spec lanes = load_spec_string(with(grouped, "\"outputs\"", "\"tunables\": {\"target_lanes\": {\"values\": [3]}}, \"outputs\""));
  CHECK_THROWS_WITH_AS(generate(lanes, lanes.choose()), doctest::Contains("expected: a power of two"), SpecError);
  const Spec mp = load_spec(pair_path("multipole_potential"), Dtype::Float64);
  CHECK(packed_source_bytes(mp) == 13 * 8 + 8);  // padded to whole 16-byte words
  CHECK_THROWS_WITH_AS(generate(mp, mp.choose({"block_x=512"})), doctest::Contains("at most 48 KiB"), SpecError);
  CHECK(plan_pairwise(mp, mp.choose({"block_x=256"})).shared_bytes == 256 * 112);
  CHECK(plan_pairwise(mp, mp.choose({"block_x=128", "buffers=2"})).shared_bytes == 2 * 128 * 112);
  CHECK_THROWS_WITH_AS(plan_pairwise(mp, mp.choose({"block_x=256", "buffers=2"})), doctest::Contains("one buffer"), SpecError);
}

// flag_chunk: offered where a float64 accurate pair has IEEE sqrt,
// division or exp to test; 2 by default where a long formula's pairs are
// particles' (Yukawa), 1 on grids; 1 only elsewhere, and a
// value the spec cannot take says why.
TEST_CASE("flag_chunk is offered where the pair has float64 IEEE operations to test, and says why not elsewhere") {
  auto offered = [](const Spec& s) {
    for (const auto& o : family_of(s).offers(s))
      if (o.name == "flag_chunk") return o;
    FAIL("no flag_chunk offer");
    throw std::logic_error("unreachable");
  };
  const Spec yukawa = load_spec(pair_path("yukawa_potential"), Dtype::Float64);
  CHECK(offered(yukawa).values == std::vector<TunableValue>{1LL, 2LL, 4LL});
  CHECK(offered(yukawa).default_value == TunableValue(2LL));
  CHECK(plan_pairwise(yukawa, yukawa.choose()).flag_chunk == 2);
  CHECK(plan_pairwise(yukawa, yukawa.choose({"flag_chunk=4"})).flag_chunk == 4);
  const Spec grid = load_spec(pair_path("radiation_grid"), Dtype::Float64);  // divisions, on a grid
  CHECK(offered(grid).values.size() == 3);
  CHECK(offered(grid).default_value == TunableValue(1LL));
  // Float32, and float64 rsqrt (Coulomb's: CUDA's own, with its branches).
  for (const Spec& s : {load_spec(pair_path("yukawa_potential"), Dtype::Float32), load_spec(pair_path("coulomb_potential"), Dtype::Float64)}) {
    INFO(s.name << " " << to_string(s.dtype));
    CHECK(offered(s).values == std::vector<TunableValue>{1LL});
    CHECK(plan_pairwise(s, s.choose()).flag_chunk == 1);
  }
  const std::string f32 = with(potential_json(), "\"float64\"", "\"float32\"");
  CHECK_THROWS_WITH_AS(load_spec_string(with(f32, "\"outputs\"", "\"tunables\": {\"flag_chunk\": {\"default\": 2}}, \"outputs\"")),
                       doctest::Contains("1 only: the pair has no float64 IEEE sqrt, division or exp to test"), SpecError);
  const Spec three = load_spec_string(with(potential_json(), "\"outputs\"", "\"tunables\": {\"flag_chunk\": {\"values\": [3]}}, \"outputs\""));
  CHECK_THROWS_WITH_AS(generate(three, three.choose()), doctest::Contains("1, 2 or 4 sources a test"), SpecError);
}

TEST_CASE("every shipped pairwise spec x strategy x dtype compiles with NVRTC for sm_90") {
  int compiled = 0;
  for (const auto& path : gpen::test::shipped_specs("pairwise"))
    for (Dtype dt : {Dtype::Float32, Dtype::Float64}) {
      const Spec s = load_spec(path, dt);
      for (const auto& v : s.find_tunable("strategy")->values) {
        gpen::test::check_compiles(generate(s, s.choose({"strategy=" + to_string(v)})), s.name);
        // Two buffers hold the next source in registers too: block on block
        // in float64 spills with them, and the float64 Yukawa with two
        // targets a thread (4 B; the tuner refuses such variants).
        if (to_string(v) != "blocks")
          gpen::test::check_compiles(generate(s, s.choose({"strategy=" + to_string(v), "buffers=2", "block_x=128", "targets_per_thread=1"})), s.name);
        ++compiled;
      }
    }
  CHECK(compiled == 2 * (8 + 1));  // eight specs, the grid one with two strategies; tile and grouped with two buffers too
  const Spec p = load_spec(pair_path("softened_acceleration"));
  gpen::test::check_compiles(generate(p, p.choose({"targets_per_thread=8", "unroll=32", "block_x=256"})), p.name);
}

TEST_CASE("the generated unit loads only what the outputs read, and prints lets once") {
  const Spec g = load_spec(pair_path("radiation_grid"));
  const std::string src = generate(g, g.choose()).source;
  CHECK(src.find("struct Target {\n    real ix, iy, iz;\n  };") != std::string::npos);
  CHECK(src.find("struct __align__(16) Source {\n    real f_e, ix, iy, iz;\n  };") != std::string::npos);
  CHECK(src.find("const real l_inv_d = gpen::fast_rsqrt(") != std::string::npos);  // float32: one MUFU.RSQ
  CHECK(src.find("l_inv_d * l_inv_d") != std::string::npos);
  const Spec a = load_spec(pair_path("softened_acceleration"));
  const std::string acc = generate(a, a.choose()).source;
  CHECK(acc.find("acc[2] += -l_w * l_dz;") != std::string::npos);
  std::size_t uses = 0;
  for (std::size_t at = acc.find("fast_rsqrt("); at != std::string::npos; at = acc.find("fast_rsqrt(", at + 1)) ++uses;
  CHECK(uses == 1);  // the let inv_r, printed once for three outputs
  // float64 keeps CUDA's rsqrt.
  const Spec a64 = load_spec(pair_path("softened_acceleration"), Dtype::Float64);
  CHECK(generate(a64, a64.choose()).source.find("rsqrt(l_") == std::string::npos);
  CHECK(generate(a64, a64.choose()).source.find("= rsqrt(") != std::string::npos);
}

TEST_CASE("IrTape evaluates like evaluate(), and its magnitudes see through cancellation") {
  const Spec mp = load_spec(pair_path("multipole_potential"));
  const IrTape tape({mp.outputs[0].ir});
  std::vector<double> v(mp.pairwise().values.size());
  for (int trial = 0; trial < 20; ++trial) {
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = std::sin(1.7 * k + 0.3 * trial) + (k < 3 ? 2.0 : 0.0);
    double got = 0, mag = 0;
    tape.run(v.data(), nullptr, &got, &mag);
    const double want = evaluate(*mp.outputs[0].ir, [&](const Access& a) { return v[a.field]; }, {});
    CHECK(got == doctest::Approx(want).epsilon(1e-14));
    CHECK(mag >= std::fabs(got));
  }
  // x - y of nearly equal values: the magnitude is |x| + |y|, not the tiny difference.
  const Spec p = load_spec_string(potential_json());
  const IrTape d({p.lets[0].ir});
  const double xy[4] = {1.0, 1.0 - 1e-9, 0, 0};
  double diff = 0, m = 0;
  d.run(xy, nullptr, &diff, &m);
  CHECK(diff == doctest::Approx(1e-9).epsilon(1e-6));
  CHECK(m == doctest::Approx(2.0 - 1e-9));
}

TEST_CASE("IrTape::run_points gives each point what run() gives it, bit for bit, magnitudes included") {
  // A pairwise spec (calls, divisions, lets) and a fused stencil (linear
  // combinations of many reads), each over 37 points of a stretch of 40.
  const Spec mp = load_spec(pair_path("multipole_potential"));
  const Spec mom = load_spec(gpen::test::source_dir() + "/specs/stencil/momentum_visc3d.json");
  std::vector<Access> reads;
  for (const auto& o : mom.outputs) collect_accesses(*o.ir, reads);
  const IrTape pair_tape(mp.output_exprs());
  const IrTape stencil_tape(mom.output_exprs(), [&](const Access& a) { return static_cast<int>(std::find(reads.begin(), reads.end(), a) - reads.begin()); });
  std::vector<double> params;
  for (const auto& q : mom.params) params.push_back(q.value);
  for (const auto& [tape, slots, outs] : {std::tuple{&pair_tape, mp.pairwise().values.size(), mp.outputs.size()},
                                          std::tuple{&stencil_tape, reads.size(), mom.outputs.size()}}) {
    CAPTURE(slots);
    const std::size_t stride = 40, count = 37;
    std::vector<double> values(slots * stride, std::nan("")), got(outs * stride), mags(outs * stride);
    for (std::size_t k = 0; k < slots; ++k)
      for (std::size_t p = 0; p < count; ++p) values[k * stride + p] = std::sin(1.7 * k + 0.3 * p) + (k < 3 ? 2.0 : 0.0);
    tape->run_points(values.data(), stride, count, params.data(), got.data(), mags.data());
    // Beside evaluate() (the IR walked per point, no tape): the stencil's outputs.
    if (tape == &stencil_tape)
      for (std::size_t p = 0; p < count; p += 9)
        for (std::size_t o = 0; o < outs; ++o) {
          const double want = evaluate(*mom.output_exprs()[o], [&](const Access& a) {
            return values[static_cast<std::size_t>(std::find(reads.begin(), reads.end(), a) - reads.begin()) * stride + p];
          }, params);
          CHECK(got[o * stride + p] == doctest::Approx(want).epsilon(1e-13));
        }
    for (std::size_t p = 0; p < count; ++p) {
      std::vector<double> one(slots), want(outs), want_mag(outs);
      for (std::size_t k = 0; k < slots; ++k) one[k] = values[k * stride + p];
      tape->run(one.data(), params.data(), want.data(), want_mag.data());
      for (std::size_t o = 0; o < outs; ++o) {
        CHECK(std::isfinite(want[o]));
        CHECK(got[o * stride + p] == want[o]);
        CHECK(mags[o * stride + p] == want_mag[o]);
      }
    }
  }
}

TEST_CASE("the CPU reference on hand-checked pairs: self rules, min and max, groups, grid coordinates") {
  const Spec inc = load_spec_string(potential_json());
  // x = 0, 1, 3; m = 1, 2, 4; eps2 = 0.5 (the spec's default, passed explicitly)
  const std::vector<std::vector<double>> in = {{0, 1, 3}, {1, 2, 4}};
  PairSizes n;
  n.targets = n.sources = 3;
  auto phi0 = [](bool self) { return (self ? 1 / std::sqrt(0.5) : 0.0) + 2 / std::sqrt(1.5) + 4 / std::sqrt(9.5); };
  const PairReference r = reference_pairwise(inc, in, n, {0.5}, {0, 2});
  CHECK(r.value[0][0] == doctest::Approx(phi0(true)).epsilon(1e-15));
  CHECK(r.value[0][1] == doctest::Approx(1 / std::sqrt(9.5) + 2 / std::sqrt(4.5) + 4 / std::sqrt(0.5)).epsilon(1e-15));
  CHECK(r.terms == std::vector<long long>{3, 3});
  const Spec skip = load_spec_string(with(potential_json(), "\"self\": \"include\"", "\"self\": \"skip\""));
  const PairReference rs = reference_pairwise(skip, in, n, {0.5}, {0});
  CHECK(rs.value[0][0] == doctest::Approx(phi0(false)).epsilon(1e-15));
  CHECK(rs.terms[0] == 2);
  CHECK(pair_count(skip, n) == 6);
  const Spec mx = load_spec_string(with(with(potential_json(), "m_j / sqrt(dx*dx + eps2)\"}", "dx * m_j\", \"reduce\": \"max\"}"),
                                        "\"self\": \"include\"", "\"self\": \"skip\""));
  const PairReference rm = reference_pairwise(mx, in, n, {0.5}, {0, 1, 2});
  CHECK(rm.value[0] == std::vector<double>{-2.0, 1.0, 4.0});  // max over j != i of (x_i - x_j) m_j
  // Groups: target 0 alone with sources [2, 3); targets 1-2 with [0, 2) and [1, 3).
  const PairGroupLists groups{{0, 1, 3}, {0, 1, 3}, {2, 3, 0, 2, 1, 3}};
  check_group_lists(groups, 3, 3);
  const PairReference rg = reference_pairwise(skip, in, n, {0.5}, {0, 1, 2}, &groups);
  CHECK(rg.value[0][0] == doctest::Approx(4 / std::sqrt(9.5)).epsilon(1e-15));
  CHECK(rg.terms == std::vector<long long>{1, 2, 3});  // target 1: 0 | 2; target 2: 0, 1 | 1
  CHECK(pair_count(skip, n, &groups) == 6);
  // Grid: cell coordinates from the linear index, x fastest.
  const Spec g = load_spec(pair_path("radiation_grid"));
  PairSizes gs;
  gs.grid = {2, 2, 1};
  gs.targets = gs.sources = 4;
  const PairReference rr = reference_pairwise(g, {{1, 1, 1, 1}}, gs, {1.0}, {0});
  const double k = 0.0795774715459476678844;
  CHECK(rr.value[0][0] == doctest::Approx(k * (1 + 1 + 0.5)).epsilon(1e-15));  // r^2 = 1, 1, 2
}

TEST_CASE("group lists and sizes are checked before any launch") {
  CHECK_THROWS_WITH_AS(check_group_lists({{0, 2}, {0}, {}}, 2, 5), doctest::Contains("groups + 1 of each"), BindingError);
  CHECK_THROWS_WITH_AS(check_group_lists({{0, 3, 2}, {0, 0, 0}, {}}, 2, 5), doctest::Contains("target_groups[2] = 2 is below"), BindingError);
  CHECK_THROWS_WITH_AS(check_group_lists({{0, 2}, {0, 1}, {3, 2}}, 2, 5), doctest::Contains("range 0 is [3, 2)"), BindingError);
  CHECK_THROWS_WITH_AS(check_group_lists({{0, 2}, {0, 2}, {0, 1}}, 2, 5), doctest::Contains("expected 0 to half of them"), BindingError);
  const Spec mp = load_spec(pair_path("multipole_potential"));
  CHECK(parse_pair_size(mp, "1000x7").sources == 7);
  CHECK(parse_pair_size(mp, "1000").sources == 1000);
  const Spec g = load_spec(pair_path("radiation_grid"));
  const PairSizes s = parse_pair_size(g, "20");
  CHECK(s.targets == 8000);
  CHECK(s.grid == std::array<long long, 3>{20, 20, 20});
  CHECK_THROWS_WITH_AS(parse_pair_size(load_spec(pair_path("softened_potential")), "10x10"), doctest::Contains("the size is one number N"),
                       std::invalid_argument);
  CHECK(sample_targets(10, 100, 1).size() == 10);
  const auto smp = sample_targets(1000000, 50, 1);
  CHECK(smp.front() == 0);
  CHECK(smp.back() == 999999);
  CHECK(smp.size() == 50);
}

TEST_CASE("compare_pairwise passes rounding-sized errors and fails wrong values and the poison") {
  const Spec p = load_spec_string(potential_json());
  const std::vector<std::vector<double>> in = {{0, 1, 3}, {1, 2, 4}};
  PairSizes n;
  n.targets = n.sources = 3;
  const PairReference r = reference_pairwise(p, in, n, {0.5}, {0, 1, 2});
  std::vector<std::vector<double>> got = {r.value[0]};
  CHECK(compare_pairwise(p, got, r).pass);
  got[0][1] *= 1 + 1e-15;  // a few ulp of float64: within u (operations + 4 sqrt(3)) scale
  CHECK(compare_pairwise(p, got, r).pass);
  got[0][1] *= 1 + 1e-9;
  const Comparison wrong = compare_pairwise(p, got, r);
  CHECK_FALSE(wrong.pass);
  CHECK(wrong.worst[0] == 1);
  got = {r.value[0]};
  got[0][2] = std::nan("");
  const Comparison nan = compare_pairwise(p, got, r);
  CHECK_FALSE(nan.pass);
  CHECK(nan.non_finite == 1);
  // A NaN at a target outside the sample is still caught.
  const PairReference sampled = reference_pairwise(p, in, n, {0.5}, {0});
  got = {r.value[0]};
  got[0][2] = std::nan("");
  CHECK_FALSE(compare_pairwise(p, got, sampled).pass);
}

TEST_CASE("\"math\": \"fast\" prints float32 hardware approximations, and the check allows for them") {
  const std::string f32 = with(with(potential_json(), R"("dtype": "float64")", R"("dtype": "float32")"), "m_j / sqrt(dx*dx + eps2)", "m_j * exp(-dx*dx * eps2)");
  const std::string fast = with(f32, R"("dims": 1,)", R"("dims": 1, "math": "fast",)");
  const Spec accurate = load_spec_string(f32), approx = load_spec_string(fast);
  CHECK(approx.math == MathPolicy::Fast);
  CHECK(accurate.math == MathPolicy::Accurate);
  const std::string a = generate(accurate, accurate.choose()).source, b = generate(approx, approx.choose()).source;
  CHECK(a.find("fast_exp") == std::string::npos);
  CHECK(a.find("expf(") != std::string::npos);
  // exp(x eps2), eps2 a param: 2^(x (eps2 log2 e)), the product made outside the loop.
  CHECK(b.find("gpen::fast_exp2(t0 * l_dx * (p_eps2 * 1.44269504088896341f))") != std::string::npos);
  CHECK(b.find("math:      fast") != std::string::npos);
  // float64 keeps CUDA's exp.
  const Spec fast64 = load_spec_string(with(fast, R"("dtype": "float32")", R"("dtype": "float64")"));
  const std::string b64 = generate(fast64, fast64.choose()).source;
  CHECK(b64.find("fast_exp") == std::string::npos);
  CHECK(b64.find(" exp(") != std::string::npos);
  // Calls as written: float32's log, float64's sqrt (no division by it) take the fast functions.
  const std::string calls = with(fast, "m_j * exp(-dx*dx * eps2)", "m_j * log(dx*dx + eps2) + sqrt(dx*dx + eps2)");
  const Spec c32 = load_spec_string(calls), c64 = load_spec_string(with(calls, R"("dtype": "float32")", R"("dtype": "float64")"));
  const std::string s32 = generate(c32, c32.choose()).source, s64 = generate(c64, c64.choose()).source;
  CHECK(s32.find("gpen::fast_log(") != std::string::npos);
  CHECK(s32.find("gpen::fast_sqrt(") != std::string::npos);
  CHECK(s64.find("gpen::fast_sqrt(") != std::string::npos);
  CHECK(s64.find("log(") != std::string::npos);
  CHECK(s64.find("fast_log") == std::string::npos);
  const SpecError e = spec_error_of(with(fast, R"("math": "fast")", R"("math": "quick")"));
  CHECK(e.pointer() == "/math");
  CHECK(e.detail().expected == "one of: accurate, fast");

  // An error of 40 ulp of the term's magnitude: beyond the accurate bound, within the fast one.
  const std::vector<std::vector<double>> in = {{0, 0.5, 1.5}, {1, 2, 4}};
  PairSizes n;
  n.targets = n.sources = 3;
  const PairReference ra = reference_pairwise(accurate, in, n, {0.5}, {0, 1, 2}), rb = reference_pairwise(approx, in, n, {0.5}, {0, 1, 2});
  CHECK(ra.approximation_ulps == 0);
  CHECK(rb.approximation_ulps == 127);
  std::vector<std::vector<double>> got = {ra.value[0]};
  got[0][1] += 40 * 0x1p-24 * ra.scale[0][1];
  CHECK_FALSE(compare_pairwise(accurate, got, ra).pass);
  CHECK(compare_pairwise(approx, got, rb).pass);
}

TEST_CASE("\"math\": \"fast\" divides by sqrt(s) as a product with rsqrt(s), made once with sqrt(s)") {
  // The Yukawa potential: r = sqrt(s) in exp(-kappa r) and in q / r.
  const std::string y = gpen::test::read_file(pair_path("yukawa_potential"));
  const std::string fast = with(y, R"("dims": 1,)", R"("dims": 1, "math": "fast",)");
  for (const char* dt : {"float64", "float32"}) {
    auto as = [&](const std::string& text) { return load_spec_string(with(text, R"("dtype": "float64")", fmt::format(R"("dtype": "{}")", dt))); };
    const Spec accurate = as(y), approx = as(fast);
    const std::string a = generate(accurate, accurate.choose()).source, b = generate(approx, approx.choose()).source;
    CHECK(a.find("fast_") == std::string::npos);
    CHECK(a.find(" / l_r") != std::string::npos);
    CHECK(b.find("const real t1 = gpen::fast_rsqrt(t0);") != std::string::npos);
    CHECK(b.find("const real l_r = gpen::fast_sqrt(t0, t1);") != std::string::npos);
    CHECK(b.find("acc[0] += s.f_q * ") != std::string::npos);
    CHECK(b.find(") * t1;") != std::string::npos);  // q exp(-kappa r) / r
    std::size_t rsqrts = 0;
    for (std::size_t at = b.find("fast_rsqrt("); at != std::string::npos; at = b.find("fast_rsqrt(", at + 1)) ++rsqrts;
    CHECK(rsqrts == 1);
    gpen::test::check_compiles(generate(approx, approx.choose()), approx.name);
  }
  // Any other division: the reciprocal's approximation; by a constant, a product as before.
  const std::string d = with(with(potential_json(), "m_j / sqrt(dx*dx + eps2)", "m_j / (dx*dx + eps2) + dx / 4"), R"("dims": 1,)", R"("dims": 1, "math": "fast",)");
  const Spec q = load_spec_string(d);
  const std::string qs = generate(q, q.choose()).source;
  CHECK(qs.find("gpen::fast_div(s.f_m, ") != std::string::npos);
  CHECK(qs.find("gpen::fast_div(s.f_m, l_dx * l_dx + p_eps2) + t0;") != std::string::npos);
  CHECK(qs.find("kC0 * (t.f_x - s.f_x)") != std::string::npos);
  gpen::test::check_compiles(generate(q, q.choose()), q.name);
}

TEST_CASE("compare_pairwise_outputs: every target against another variant's output") {
  const std::vector<std::vector<double>> want = {{1.0, -2.0, 1e-6, 4.0, HUGE_VAL}, {0.5, 0.25, 0.0, -0.5, 1.0}};
  // A reordered sum: a relative change of 1e-4 in float32 (bound 1e-2 x (|v| + mean |v|)).
  std::vector<std::vector<double>> got = want;
  got[0][1] *= 1 + 1e-4;
  got[1][2] = 1e-4;  // near-zero values are judged against the mean
  const Comparison ok = compare_pairwise_outputs(Dtype::Float32, got, want);
  CHECK(ok.pass);
  CHECK(ok.bound_ratio < 1);
  CHECK(ok.summary().find("of the default variant's output") != std::string::npos);
  // The same change is far beyond float64's bound.
  CHECK_FALSE(compare_pairwise_outputs(Dtype::Float64, got, want).pass);
  // Two targets' values swapped.
  got = want;
  std::swap(got[1][0], got[1][1]);
  const Comparison swapped = compare_pairwise_outputs(Dtype::Float32, got, want);
  CHECK_FALSE(swapped.pass);
  // (target 1: |0.5 - 0.25| / (0.25 + mean 0.45) beats target 0)
  CHECK(swapped.worst[0] == 1);
  CHECK(swapped.worst[1] == 1);
  // A target left unwritten (the NaN poison), and an infinity that should be finite.
  got = want;
  got[0][3] = std::nan("");
  CHECK_FALSE(compare_pairwise_outputs(Dtype::Float32, got, want).pass);
  CHECK(compare_pairwise_outputs(Dtype::Float32, got, want).non_finite == 1);
  got = want;
  got[1][4] = HUGE_VAL;
  CHECK_FALSE(compare_pairwise_outputs(Dtype::Float32, got, want).pass);
}

TEST_CASE("the tuning key of a pairwise problem: N, N x M for separate sources, a grid's shape") {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  const Spec same = load_spec(gpen::test::source_dir() + "/specs/pairwise/softened_potential.json");
  CHECK(pair_tuning_key(same, parse_pair_size(same, "1000000"), d).size_class == "2^20");
  CHECK(pair_tuning_key(same, parse_pair_size(same, "1000000"), d).str() == pair_tuning_key(same, parse_pair_size(same, "1048576"), d).str());
  const Spec sep = load_spec(gpen::test::source_dir() + "/specs/pairwise/multipole_potential.json");
  CHECK(pair_tuning_key(sep, parse_pair_size(sep, "1048576x4096"), d).size_class == "2^20x2^12");
  CHECK(pair_tuning_key(sep, parse_pair_size(sep, "1048576x300"), d).size_class == "2^20x2^9");
  const Spec grid = load_spec(gpen::test::source_dir() + "/specs/pairwise/radiation_grid.json");
  CHECK(pair_tuning_key(grid, parse_pair_size(grid, "64"), d).size_class == "2^6x2^6x2^6");
  CHECK(pair_tuning_key(grid, parse_pair_size(grid, "64x32x20"), d).size_class == "2^6x2^5x2^5");
}

TEST_CASE("a strategy the spec's shape cannot take is refused where the spec lists it, with its line and column") {
  // Block on block is a schedule of grid cells: particles limited to it ended
  // in "map::at" (no cell_block to plan with), with no position.
  const std::string shipped = gpen::test::read_file(pair_path("softened_potential"));
  const std::string blocks_only = with(shipped, "\"outputs\": [", "\"tunables\": {\"strategy\": {\"values\": [\"blocks\"]}},\n  \"outputs\": [");
  const SpecError e = spec_error_of(blocks_only);
  CHECK(e.pointer() == "/tunables/strategy/values/0");
  CHECK(e.detail().message ==
        "\"blocks\" is not a strategy of this spec: block on block (blocks) needs \"domain\": \"grid\", and grouped needs \"pairs\": \"grouped\"");
  CHECK(e.detail().expected == "one of: tile");
  const std::size_t at = blocks_only.find("[\"blocks\"]") + 1;
  CHECK(e.line() == 1 + std::count(blocks_only.begin(), blocks_only.begin() + at, '\n'));
  CHECK(e.column() == static_cast<int>(at - blocks_only.rfind('\n', at)));
  // Grouped lists take the grouped kernel alone; a pencil follows one axis.
  const std::string grouped = gpen::test::read_file(pair_path("grouped_potential"));
  CHECK(spec_error_of(with(grouped, "\"outputs\": [", "\"tunables\": {\"strategy\": {\"values\": [\"tile\"]}},\n  \"outputs\": [")).pointer() ==
        "/tunables/strategy/values/0");
  const std::string lap = gpen::test::read_file(gpen::test::source_dir() + "/specs/sbp/laplacian2d_o4.json");
  CHECK(spec_error_of(with(lap, "\"sbp\":", "\"tunables\": {\"strategy\": {\"default\": \"pencil\"}},\n  \"sbp\":")).detail().message ==
        "\"pencil\" is not a strategy of this spec: a pencil follows one axis, and this operator is along several");
}

TEST_CASE("a grid limited to block on block checks, plans and generates") {
  const std::string shipped = gpen::test::read_file(pair_path("radiation_grid"));
  const Spec g = load_spec_string(with(shipped, "\"outputs\": [", "\"tunables\": {\"strategy\": {\"values\": [\"blocks\"]}},\n  \"outputs\": ["));
  REQUIRE(g.find_tunable("strategy")->values == std::vector<TunableValue>{std::string("blocks")});
  const TunableChoice c = g.choose();
  CHECK(tunable_string(c, "strategy") == "blocks");
  CHECK(tunable_int(c, "cell_block") == 8);
  CHECK(plan_pairwise(g, c).strategy == PairStrategy::Blocks);
  CHECK(generate(g, c).name == "radiation_grid.pairwise_blocks.cu");
}
