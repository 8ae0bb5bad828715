// GPU: every shipped pairwise spec against the CPU reference in double
// precision, outputs poisoned with NaN first: particles at N = 1, 31, 1000,
// 4099 and 2^16 (sizes that are not multiples of a block's targets or a
// source tile), grids of 7^3 and 20^3 with the plain tile and block on
// block, fp32 and fp64, several targets a thread and unrolling; the binding
// errors of group lists.
#include <fstream>
#include <iterator>
#include <fmt/format.h>

#include "test_support.hpp"
#include "gpen/families/pairwise/pairwise_run.hpp"
#include "gpen/generator/json_source.hpp"

using namespace gpen;

namespace {

Context& pair_ctx() {
  static Context c(0);
  return c;
}

std::string spec_path(const char* name) { return std::string(GPEN_SOURCE_DIR) + "/specs/pairwise/" + name + ".json"; }

void check_pairwise(const Spec& s, const std::string& size, const std::vector<std::string>& set = {}) {
  PairWorkload w(pair_ctx(), s, parse_pair_size(s, size));
  const PairRunReport r = measure_pairwise(pair_ctx(), w, plan_unit(s, s.choose(set)), 0, 1, true);
  INFO(s.name << " " << to_string(s.dtype) << " " << r.variant << " size " << size);
  REQUIRE(r.check.has_value());
  INFO(r.check->summary());
  CHECK(r.check->pass);
  CHECK(r.check->non_finite == 0);
}

}  // namespace

TEST_CASE("pairwise particle specs match the CPU reference at odd N, fp32 and fp64") {
  for (const char* name : {"softened_potential", "softened_acceleration", "coulomb_potential", "grouped_potential"})
    for (Dtype dt : {Dtype::Float32, Dtype::Float64}) {
      const Spec s = load_spec(spec_path(name), dt);
      for (const char* n : {"1", "31", "1000", "4099", "65536"}) check_pairwise(s, n);
      // Tunables that change the schedule: one target a thread without
      // unrolling, and eight with the tile unrolled 32 times.
      check_pairwise(s, "4099", {"targets_per_thread=1", "unroll=1", "block_x=64"});
      check_pairwise(s, "4099", {"targets_per_thread=8", "unroll=32", "block_x=256"});
      // Two tiles used in turn: ragged last tiles, self tiles, several ranges a group.
      for (const char* n : {"1", "31", "4099"}) check_pairwise(s, n, {"buffers=2", "block_x=64", "targets_per_thread=1"});
      check_pairwise(s, "4099", {"buffers=2", "targets_per_thread=4", "unroll=16"});
    }
}

TEST_CASE("multipole evaluation: N targets from M expansions, both odd") {
  for (Dtype dt : {Dtype::Float32, Dtype::Float64}) {
    const Spec s = load_spec(spec_path("multipole_potential"), dt);
    for (const char* n : {"1x1", "31x7", "1000x129", "4099x1000", "65536x300"}) check_pairwise(s, n);
  }
}

// The shipped spec's text with `from` replaced by `to`, re-read.
static Spec edited_spec(const std::string& name, const std::string& from, const std::string& to, Dtype dt) {
  std::ifstream in(spec_path(name.c_str()));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), to);
  return parse_spec(std::make_shared<JsonSource>(JsonSource::from_string(text, name)), dt);
}

// The shipped spec with "math" set.
static Spec with_math(const std::string& name, const char* math, Dtype dt) {
  return edited_spec(name, "\"dims\"", std::string("\"math\": \"") + math + "\", \"dims\"", dt);
}

// Float64 accurate formulas evaluate a source's pairs without the
// branches of IEEE sqrt, division and exp, and again with them where an
// argument left the common case. With kappa = 2000 exp(-kappa r)
// underflows past r = 0.354 (a third of the pairs) and the quotient
// q exp(-kappa r) / r is subnormal or 0 further in: most sources take the
// slow path for some of a thread's targets and not for others.
//
// Sources tested together (flag_chunk 2 and 4) roll a chunk back and take
// all its pairs again where one of them left the common case: the same
// values, added in the same order, as a source at a time.
TEST_CASE("float64 Yukawa with exp underflowing for many pairs: the pairs taken again on the branching path match the CPU reference") {
  const Spec s = edited_spec("yukawa_potential", "\"value\": 2.0", "\"value\": 2000.0", Dtype::Float64);
  for (const char* n : {"1000", "4099"}) {
    check_pairwise(s, n);
    check_pairwise(s, n, {"targets_per_thread=4", "block_x=64", "unroll=4"});
    check_pairwise(s, n, {"targets_per_thread=1", "buffers=2"});
    for (const char* chunk : {"flag_chunk=1", "flag_chunk=2", "flag_chunk=4"}) check_pairwise(s, n, {chunk, "targets_per_thread=2", "unroll=8"});
  }
  const Spec shipped = load_spec(spec_path("yukawa_potential"), Dtype::Float64);
  for (const Spec* y : {&s, &shipped}) {
    PairWorkload w(pair_ctx(), *y, parse_pair_size(*y, "4099"));
    std::vector<std::vector<double>> one;
    for (const char* chunk : {"flag_chunk=1", "flag_chunk=2", "flag_chunk=4"}) {
      INFO(y->params[0].value << " " << chunk);
      const PairwiseKernel k(*y, y->choose({chunk, "source_slices=1"}), pair_ctx());
      w.poison_outputs();
      k.launch(w.bindings(), w.params());
      if (one.empty()) one = w.download_outputs();
      else CHECK(w.download_outputs() == one);
    }
  }
}

TEST_CASE("the Gaussian kernel sum and the Yukawa potential, accurate and fast math, match the CPU reference") {
  for (const char* name : {"gaussian_sum", "yukawa_potential"})
    for (Dtype dt : {Dtype::Float32, Dtype::Float64})
      for (const char* math : {"accurate", "fast"}) {
        const Spec s = with_math(name, math, dt);
        const std::vector<std::string> sizes = s.pairwise().same_set ? std::vector<std::string>{"1", "31", "1000", "4099"}
                                                                     : std::vector<std::string>{"1x1", "31x517", "1000x517", "4099x1000"};
        for (const auto& n : sizes) check_pairwise(s, n);
        check_pairwise(s, sizes.back(), {"targets_per_thread=8", "unroll=32", "block_x=256"});
      }
}

// The seeded float64 rsqrt, sqrt and division and the float32 hardware
// functions within their bounds (specs/README.md) in every shipped formula.
TEST_CASE("every shipped pairwise spec with fast math matches the CPU reference within its bounds, fp32 and fp64") {
  for (const std::string& path : gpen::test::shipped_specs("pairwise")) {
    const std::string name = path.substr(path.rfind('/') + 1, path.size() - path.rfind('/') - 6);
    for (Dtype dt : {Dtype::Float32, Dtype::Float64}) {
      const Spec s = with_math(name, "fast", dt);
      const PairwiseDecl& d = s.pairwise();
      const std::string size = d.grid ? "9x5x3" : d.same_set ? "4099" : "4099x1000";
      check_pairwise(s, size);
      if (!d.grouped) check_pairwise(s, size, {"targets_per_thread=1", "unroll=1", "block_x=64"});
      check_pairwise(s, size, {"buffers=2", "block_x=64"});
    }
  }
}

TEST_CASE("radiation between grid cells: plain tile and block on block agree with the reference") {
  for (Dtype dt : {Dtype::Float32, Dtype::Float64}) {
    const Spec s = load_spec(spec_path("radiation_grid"), dt);
    for (const char* n : {"7", "20", "9x5x3"}) {
      check_pairwise(s, n);
      check_pairwise(s, n, {"strategy=blocks"});
      check_pairwise(s, n, {"strategy=blocks", "cell_block=4", "streams=2", "targets_per_thread=1"});
      check_pairwise(s, n, {"strategy=blocks", "cell_block=16", "streams=1"});
      check_pairwise(s, n, {"strategy=blocks", "cell_block=4", "buffers=2", "block_x=64"});
      check_pairwise(s, n, {"buffers=2"});
    }
  }
}

TEST_CASE("block on block gives the same sums when launched twice on one kernel (buffers reused)") {
  const Spec s = load_spec(spec_path("radiation_grid"));
  PairWorkload w(pair_ctx(), s, parse_pair_size(s, "20"));
  const PairwiseKernel k(s, s.choose({"strategy=blocks"}), pair_ctx());
  for (int round = 0; round < 2; ++round) {
    w.poison_outputs();
    k.launch(w.bindings(), w.params());
    const Comparison c = w.verify();
    INFO("round " << round << ": " << c.summary());
    CHECK(c.pass);
  }
}

TEST_CASE("sources split over blocks: every slice count agrees with the reference, repeats bit for bit, and allocates nothing after prepare") {
  for (const char* name : {"softened_acceleration", "coulomb_potential", "gaussian_sum"})
    for (Dtype dt : {Dtype::Float32, Dtype::Float64}) {
      const Spec s = load_spec(spec_path(name), dt);
      const std::string n = s.pairwise().same_set ? "4099" : "4099x1031";
      for (const char* slices : {"source_slices=1", "source_slices=2", "source_slices=8", "source_slices=0"}) {
        check_pairwise(s, n, {slices});
        check_pairwise(s, n, {slices, "block_x=64", "targets_per_thread=1", "unroll=4"});
      }
    }
  // Groups of 1-160 targets against 0-4 ranges each (some empty, some
  // holding the group's own targets): slices of a group's ranges laid end
  // to end, chunks of its targets on blocks of their own.
  for (Dtype dt : {Dtype::Float32, Dtype::Float64}) {
    const Spec g = load_spec(spec_path("grouped_potential"), dt);
    for (const char* slices : {"source_slices=1", "source_slices=2", "source_slices=8", "source_slices=0"})
      for (const char* n : {"1000", "4099"}) {
        check_pairwise(g, n, {slices});
        check_pairwise(g, n, {slices, "block_x=64", "targets_per_thread=2", "unroll=4"});
        check_pairwise(g, n, {slices, "block_x=256", "targets_per_thread=2", "unroll=8"});
        check_pairwise(g, n, {slices, "block_x=128", "buffers=2"});
        // Lanes: up to 16 threads a target of a small group, and none.
        check_pairwise(g, n, {slices, "block_x=128", "targets_per_thread=4", "target_lanes=16"});
        check_pairwise(g, n, {slices, "block_x=64", "targets_per_thread=4", "target_lanes=1"});
      }
  }
  // The grid's tile (default one slice) split too.
  check_pairwise(load_spec(spec_path("radiation_grid")), "9x5x3", {"strategy=tile", "source_slices=4", "block_x=64"});
  // Auto at N = 4099: a few blocks of targets, the sources in many slices
  // (the host's model with the driver's occupancy), folded in a fixed order.
  const Spec s = load_spec(spec_path("softened_potential"));
  PairWorkload w(pair_ctx(), s, parse_pair_size(s, "4099"));
  const PairwiseKernel k(s, s.choose(), pair_ctx());
  const long long per_block = k.plan().targets_per_block(), tiles = 4099 / k.plan().block;
  CHECK(k.resident_blocks() >= pair_ctx().info().sm_count);
  CHECK(k.resident_blocks() <= pair_ctx().info().sm_count * (2048LL / k.plan().block));
  CHECK(k.source_slices(4099, 4099) == host_slices({(4099 + per_block - 1) / per_block, static_cast<double>(tiles), k.resident_blocks()}));
  CHECK(k.source_slices(4099, 4099) > 4);
  CHECK(k.source_slices(1 << 24, 1 << 24) == 1);  // eight waves of blocks of targets alone
  k.prepare({4099, 1, 1});
  const std::size_t before = DeviceMemory::allocations();
  std::vector<std::vector<double>> first;
  for (int round = 0; round < 2; ++round) {
    w.poison_outputs();
    k.launch(w.bindings(), w.params());
    CHECK(w.verify().pass);
    if (round == 0) first = w.download_outputs();
    else CHECK(w.download_outputs() == first);
  }
  CHECK(DeviceMemory::allocations() == before);
  // Launches on two streams share the slices' partials: each waits for the other's fold.
  PairWorkload w2(pair_ctx(), s, parse_pair_size(s, "4099"), {}, 777);
  Stream one, two;
  w.poison_outputs();
  w2.poison_outputs();
  pair_ctx().synchronize();
  for (int round = 0; round < 20; ++round) {
    k.launch(w.bindings(), w.params(), one.get());
    k.launch(w2.bindings(), w2.params(), two.get());
  }
  one.synchronize();
  two.synchronize();
  CHECK(w.verify().pass);
  CHECK(w2.verify().pass);
}

TEST_CASE("block on block after prepare: launches in the caller's stream allocate nothing, and stay right") {
  const Spec s = load_spec(spec_path("radiation_grid"));
  PairWorkload w(pair_ctx(), s, parse_pair_size(s, "24"));
  const PairwiseKernel k(s, s.choose({"strategy=blocks", "cell_block=4", "streams=2"}), pair_ctx());
  k.prepare({24, 24, 24});
  Stream stream;
  const std::size_t before = DeviceMemory::allocations();
  for (int round = 0; round < 2; ++round) k.launch(w.bindings(), w.params(), stream.get());
  stream.synchronize();
  CHECK(DeviceMemory::allocations() == before);
  w.poison_outputs();
  k.launch(w.bindings(), w.params());  // the stream the poison went to
  CHECK(w.verify().pass);
}

TEST_CASE("a grouped launch refuses missing or malformed group lists") {
  const Spec s = load_spec(spec_path("grouped_potential"));
  PairWorkload w(pair_ctx(), s, parse_pair_size(s, "100"));
  const PairwiseKernel k(s, s.choose(), pair_ctx());
  CHECK_THROWS_WITH_AS(k.launch(w.bindings(), w.params()), doctest::Contains("needs group lists"), BindingError);
  CHECK_THROWS_WITH_AS(PairGroups(PairGroupLists{{0, 50, 99}, {0, 1, 1}, {0, 100}}, 100, 100), doctest::Contains("expected 0 to the 100 targets"),
                       BindingError);
  CHECK_THROWS_WITH_AS(PairGroups(PairGroupLists{{0, 50, 100}, {0, 1, 1}, {0, 101}}, 100, 100), doctest::Contains("range 0 is [0, 101)"),
                       BindingError);
  const Spec all = load_spec(spec_path("softened_potential"));
  PairWorkload wa(pair_ctx(), all, parse_pair_size(all, "100"));
  const PairwiseKernel ka(all, all.choose(), pair_ctx());
  CHECK_THROWS_WITH_AS(ka.launch(wa.bindings(), w.groups(), wa.params()), doctest::Contains("its pairs are \"all\""), BindingError);
}

TEST_CASE("min and max reductions: nearest and farthest neighbour, particles and grid, tile and block on block") {
  // Not a shipped spec: the shipped ones all sum.
  const std::string particles = R"J({
  "name": "neighbours", "kind": "pairwise", "dtype": "float32", "dims": 1,
  "fields": [{"name": "x", "role": "input"}, {"name": "y", "role": "input"},
             {"name": "nearest", "role": "output"}, {"name": "farthest", "role": "output"}],
  "pairwise": {"sources": "targets", "self": "skip"},
  "lets": [{"name": "r2", "expr": "(x_i - x_j) * (x_i - x_j) + (y_i - y_j) * (y_i - y_j)"}],
  "outputs": [{"field": "nearest", "expr": "r2", "reduce": "min"}, {"field": "farthest", "expr": "r2", "reduce": "max"}]
})J";
  for (Dtype dt : {Dtype::Float32, Dtype::Float64}) {
    const Spec s = load_spec_string(particles);
    const Spec sd = dt == Dtype::Float32 ? s : parse_spec(s.source, dt);
    for (const char* n : {"1", "31", "4099"}) check_pairwise(sd, n);
  }
  const std::string grid = R"J({
  "name": "weighted_extremes", "kind": "pairwise", "dtype": "float64", "dims": 3,
  "fields": [{"name": "e", "role": "input"}, {"name": "lo", "role": "output"}, {"name": "hi", "role": "output"}],
  "pairwise": {"domain": "grid", "sources": "targets", "self": "skip"},
  "lets": [{"name": "w", "expr": "e_j * rsqrt((ix_i - ix_j) * (ix_i - ix_j) + (iy_i - iy_j) * (iy_i - iy_j) + (iz_i - iz_j) * (iz_i - iz_j))"}],
  "outputs": [{"field": "lo", "expr": "w", "reduce": "min"}, {"field": "hi", "expr": "w", "reduce": "max"}]
})J";
  const Spec g = load_spec_string(grid);
  for (const char* n : {"7", "20"}) {
    check_pairwise(g, n);
    check_pairwise(g, n, {"strategy=blocks"});
    check_pairwise(g, n, {"strategy=blocks", "cell_block=4", "streams=2"});
  }
}
