// GPU: tuning verifies every variant it times (against the default's output,
// itself checked on the CPU), finds one at least as fast as the default, and
// stores it where `gpen run` looks: the 8th-order Laplacian at 256^3,
// pairwise specs (particles and a grid), a long scan row and an SBP operator.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>

#include "test_support.hpp"
#include "gpen/families/pairwise/pairwise_run.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/measure/tune/tune.hpp"

using namespace gpen;

namespace {

// Every timed variant passed its checks; the best is at least as fast as
// the default timed in the same search (the default is one of its points,
// so no margin for noise is needed) and is what the database now holds.
void check_tuning(const TuneResult& r, const std::optional<TuningRecord>& rec) {
  REQUIRE(r.reference.check);
  CHECK(r.reference.check->pass);  // the default against the CPU reference
  int timed = 0;
  for (const auto& v : r.evaluated) {
    INFO(v.variant << ": " << v.reason);
    if (!v.ms) continue;
    ++timed;
    REQUIRE(v.check);
    CHECK(v.check->pass);  // no time counts without a matching output
    CHECK(v.check->non_finite == 0);
  }
  CHECK(timed >= 4);
  REQUIRE(r.best);
  const auto dflt = std::find_if(r.evaluated.begin(), r.evaluated.end(), [&](const TunedVariant& v) { return v.choice == r.reference.choice; });
  REQUIRE(dflt != r.evaluated.end());
  REQUIRE(dflt->ms);
  CHECK(*r.evaluated[*r.best].ms <= *dflt->ms);
  REQUIRE(r.saved);
  REQUIRE(rec);
  CHECK(rec->choice == r.evaluated[*r.best].choice);
}

// Three timed launches a variant, the database in `dir`.
TuneOptions quick_options(const gpen::test::TempDir& dir) {
  TuneOptions o;
  o.db_path = dir.path + "/tuning.json";
  o.repeat = 3;
  return o;
}

}  // namespace

TEST_CASE("tuning the 8th-order Laplacian at 256^3: verified variants, at least as fast as the default, remembered") {
  Context ctx(0);
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  gpen::test::TempDir dir;
  TuneOptions o;
  o.strategy = SearchStrategy::Local;
  o.budget = 16;
  o.fixed = {"strategy=march", "points_per_thread=8", "unroll_z=0"};
  o.db_path = dir.path + "/tuning.json";
  o.repeat = 5;
  const TuneResult r = tune(ctx, s, "256x256x256", o);
  CHECK(r.evaluated.size() == 16);
  check_tuning(r, TuningDb(o.db_path).find(tuning_key(s, {256, 256, 256}, ctx.info()), s));
}

TEST_CASE("tuning pairwise specs: particles with a ragged last tile, and a grid's tile against block on block") {
  Context ctx(0);
  gpen::test::TempDir dir;
  TuneOptions o = quick_options(dir);
  {
    const Spec s = load_spec(gpen::test::source_dir() + "/specs/pairwise/softened_potential.json");
    o.fixed = {"unroll=8", "buffers=1", "source_slices=0"};
    const PairSizes n = parse_pair_size(s, "4099");
    const TuneResult r = tune(ctx, s, "4099", o);
    CHECK(r.evaluated.size() == 16);  // block_x 64-512 x targets_per_thread 1-8
    for (const auto& v : r.evaluated) CHECK((!v.ms || v.pairs_per_s > 0));
    check_tuning(r, TuningDb(o.db_path).find(pair_tuning_key(s, n, ctx.info()), s));
  }
  {
    // Block on block sums each target's terms in another order than the
    // tile: its variants must still match the default (tile) output.
    const Spec s = load_spec(gpen::test::source_dir() + "/specs/pairwise/radiation_grid.json");
    // (Fixing cell_block or streams would make the default, a tile, a
    // variant the plan refuses: those belong to block on block.)
    o.fixed = {"unroll=8", "targets_per_thread=2", "block_x=128", "buffers=1"};
    const PairSizes g = parse_pair_size(s, "20x9x7");
    const TuneResult r = tune(ctx, s, "20x9x7", o);
    int blocks = 0;
    for (const auto& v : r.evaluated) blocks += v.ms && v.variant.find("strategy=blocks") != std::string::npos;
    CHECK(blocks >= 2);
    check_tuning(r, TuningDb(o.db_path).find(pair_tuning_key(s, g, ctx.info()), s));
  }
  CHECK_THROWS_AS(tune(ctx, load_spec(gpen::test::source_dir() + "/specs/pairwise/softened_potential.json"), "64x1x1", o), UsageError);
}

TEST_CASE("tuning a long scan row and an SBP operator: verified variants, the best no slower than the default") {
  Context ctx(0);
  gpen::test::TempDir dir;
  TuneOptions o = quick_options(dir);
  o.strategy = SearchStrategy::Local;
  o.budget = 8;
  struct Case {
    std::string spec;
    std::array<long long, 3> size;
    std::vector<std::string> fixed;
  };
  // 1000003 values: hundreds of tiles chained by the look-back, a ragged last one.
  for (const Case& c : {Case{"/specs/scan/cumsum_1d.json", {1000003, 1, 1}, {"vector_x=4"}},
                        Case{"/bench/specs/sbp_d2_o4_2d_y.json", {1000, 700, 1}, {"block_x=32"}}}) {
    INFO(c.spec);
    const Spec s = load_spec(gpen::test::source_dir() + c.spec);
    o.fixed = c.fixed;
    const TuneResult r = tune(ctx, s, size_text(c.size, s.dims), o);
    CHECK(r.evaluated.size() == 8);
    check_tuning(r, TuningDb(o.db_path).find(tuning_key(s, c.size, ctx.info()), s));
  }
}

TEST_CASE("tuning keeps its time limit, setup included, samples every strategy, and says why it stopped") {
  Context ctx(0);
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  gpen::test::TempDir dir;
  TuneOptions o = quick_options(dir);
  o.strategy = SearchStrategy::Exhaustive;  // 100k+ variants: far more than 30 s can time
  o.time_limit_s = 30;  // a cold cache: o8 variants take seconds each to compile
  o.started = std::chrono::steady_clock::now();
  const TuneResult r = tune(ctx, s, "256x256x256", o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - o.started).count();
  CHECK(r.stop == SearchStop::Time);
  // Compiles in flight at the deadline are waited for here (abandon_compiles
  // is off; the CLI abandons them): an 8th-order variant of 256 points a
  // thread takes seconds to compile on a cold cache.
  CHECK(wall < 30 + 10);
  CHECK(r.setup_s > 0);
  CHECK(r.total_s <= wall);
  REQUIRE(r.evaluated.size() >= 4);
  std::set<std::string> strategies;
  for (const auto& v : r.evaluated) strategies.insert(tunable_string(v.choice, "strategy"));
  CHECK(strategies.size() >= 3);  // the spread order, not the first strategy's variants only
  CHECK(r.saved);
}

TEST_CASE("an interrupted search stops at the next measurement and keeps the best so far") {
  Context ctx(0);
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json");
  gpen::test::TempDir dir;
  TuneOptions o = quick_options(dir);
  std::atomic<bool> interrupt{false};
  o.interrupt = &interrupt;
  o.on_variant = [&](const TunedVariant&, const TuneProgress& p) {
    if (p.done == 6) interrupt = true;  // Ctrl-C
  };
  const TuneResult r = tune(ctx, s, "128x128x128", o);
  CHECK(r.stop == SearchStop::Interrupted);
  CHECK(r.evaluated.size() == 6);
  REQUIRE(r.best);
  CHECK(r.saved);
}

TEST_CASE("the default's CPU check ends at the time limit and at Ctrl-C: a budget it cannot keep is an error, an interrupt a stop") {
  // A heavy spec's reference at 512^3 takes seconds on every core; here
  // the budget is spent (or Ctrl-C pressed) before the check begins. (A
  // budget that ends during the check: bench/gpu_session.sh tunetime.)
  Context ctx(0);
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/momentum_visc3d.json");
  gpen::test::TempDir dir;
  TuneOptions o = quick_options(dir);
  o.time_limit_s = 5;
  o.started = std::chrono::steady_clock::now() - std::chrono::seconds(60);
  CHECK_THROWS_WITH_AS(tune(ctx, s, "40x24x20", o), doctest::Contains("preparing the inputs at 40x24x20 took all of --time 5 s"),
                       std::runtime_error);
  o.time_limit_s = 0;
  o.started = std::chrono::steady_clock::now();
  std::atomic<bool> interrupt{true};
  o.interrupt = &interrupt;
  const auto t0 = std::chrono::steady_clock::now();
  const TuneResult r = tune(ctx, s, "40x24x20", o);
  CHECK(r.stop == SearchStop::Interrupted);
  CHECK(r.evaluated.empty());
  CHECK(!r.reference.ms);
  CHECK(!r.saved);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60));
}

TEST_CASE("variants that spill registers are refused once compiled, with ptxas' numbers, and timed on request") {
  Context ctx(0);
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json");
  gpen::test::TempDir dir;
  TuneOptions o = quick_options(dir);
  // The march of 2x2 points a thread in blocks of 256 threads: its z queues
  // carry 36 values (72 registers); min_blocks 3 leaves 80 registers a
  // thread, which spills; 4 leaves 64 (refused by the plan, not compiled);
  // 0 and 1 leave 255.
  o.fixed = {"strategy=march", "block_x=32", "block_y=8", "vector_x=2", "rows_y=2", "points_per_thread=8",
             "unroll_z=0", "stream_stores=1", "ring_ahead=0"};
  o.save = false;
  auto min_blocks = [](const TunedVariant& v) { return std::get<long long>(v.choice.at("min_blocks")); };
  const TuneResult r = tune(ctx, s, "67x37x29", o);
  CHECK(r.evaluated.size() == 4);  // min_blocks 0 .. 3
  for (const auto& v : r.evaluated) {
    INFO(v.variant << ": " << v.reason);
    if (min_blocks(v) == 3) {
      CHECK(v.refused);
      CHECK(!v.ms);
      CHECK(v.spill_bytes > 0);
      CHECK(v.registers > 0);
      CHECK(v.registers <= 80);
      CHECK(v.reason.find("refused: spills " + std::to_string(v.spill_bytes) + " B to local memory at " + std::to_string(v.registers) +
                          " registers a thread") != std::string::npos);
    }
    if (min_blocks(v) <= 1) {
      CHECK(!v.refused);
      CHECK(v.ms);
      CHECK(v.spill_bytes == 0);
    }
  }
  // On request it is timed, and still verified.
  o.allow_spills = true;
  const TuneResult all = tune(ctx, s, "67x37x29", o);
  CHECK(all.evaluated.size() == 4);
  for (const auto& v : all.evaluated) {
    INFO(v.variant << ": " << v.reason);
    CHECK(!v.refused);
    REQUIRE(v.ms);
    REQUIRE(v.check);
    CHECK(v.check->pass);
    if (min_blocks(v) == 3) CHECK(v.spill_bytes > 0);
  }
  // Resumed from both searches' lines (the refused one, then the timed
  // one) without allow_spills: the last line counts, and a variant timed
  // because it was allowed to spill is refused again, never the best.
  o.allow_spills = false;
  o.resume = r.evaluated;
  o.resume.insert(o.resume.end(), all.evaluated.begin(), all.evaluated.end());
  const TuneResult again = tune(ctx, s, "67x37x29", o);
  CHECK(again.evaluated.size() == 4);
  CHECK(again.resumed == 4);
  for (const auto& v : again.evaluated) {
    INFO(v.variant << ": " << v.reason);
    if (min_blocks(v) == 3) {
      CHECK(v.refused);
      CHECK(!v.ms);
      CHECK(v.reason.find("refused: spills") != std::string::npos);
    }
  }
  REQUIRE(again.best);
  CHECK(min_blocks(again.evaluated[*again.best]) != 3);
  // The default is timed even where it spills: the user has it already.
  o.resume.clear();
  o.fixed.push_back("min_blocks=3");
  const TuneResult own = tune(ctx, s, "67x37x29", o);
  REQUIRE(own.evaluated.size() == 1);
  CHECK(!own.evaluated[0].refused);
  CHECK(own.evaluated[0].ms);
  CHECK(own.evaluated[0].spill_bytes > 0);
  CHECK(own.best);
}
