// GPU: tuning the 8th-order Laplacian at 256^3 (a budgeted local search over
// march variants) verifies every variant it times against the default's
// output, finds one at least as fast as the default, and stores it where
// `gpen run` looks.
#include <algorithm>

#include "../test_support.hpp"
#include "gpen/runtime/pairwise_run.hpp"
#include "gpen/runtime/tune.hpp"

using namespace gpen;

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
  const TuneResult r = tune(ctx, s, {256, 256, 256}, o);
  REQUIRE(r.reference.check);
  CHECK(r.reference.check->pass);  // the default against the CPU reference
  CHECK(r.evaluated.size() == 16);
  int timed = 0;
  for (const auto& v : r.evaluated) {
    INFO(v.variant << ": " << v.reason);
    if (v.ms) {
      ++timed;
      REQUIRE(v.check);
      CHECK(v.check->pass);  // no time counts without a matching output
      CHECK(v.check->non_finite == 0);
    }
  }
  CHECK(timed >= 12);
  REQUIRE(r.best);
  // The default is one of the evaluated points; two timings of one kernel
  // differ by a few per cent, hence the margin.
  CHECK(*r.evaluated[*r.best].ms <= 1.03 * *r.reference.ms);
  REQUIRE(r.saved);
  const auto rec = TuningDb(o.db_path).find(tuning_key(s, {256, 256, 256}, ctx.info()), s);
  REQUIRE(rec);
  CHECK(rec->choice == r.evaluated[*r.best].choice);
}

namespace {

// Every timed variant passed both checks; the best is at least as fast as
// the default and is what the database now holds for this problem.
void check_pair_tuning(const Context& ctx, const Spec& s, const PairSizes& sizes, const TuneResult& r, const std::string& db) {
  REQUIRE(r.reference.check);
  CHECK(r.reference.check->pass);  // the default against the CPU reference
  int timed = 0;
  for (const auto& v : r.evaluated) {
    INFO(v.variant << ": " << v.reason);
    if (!v.ms) continue;
    ++timed;
    REQUIRE(v.check);
    CHECK(v.check->pass);
    CHECK(v.check->non_finite == 0);
    CHECK(v.pairs_per_s > 0);
  }
  CHECK(timed >= 4);
  REQUIRE(r.best);
  // The default is one of the points searched, so the best is at least as
  // fast as the default timed in the same search (no margin for noise needed).
  const auto dflt = std::find_if(r.evaluated.begin(), r.evaluated.end(), [&](const TunedVariant& v) { return v.choice == r.reference.choice; });
  REQUIRE(dflt != r.evaluated.end());
  REQUIRE(dflt->ms);
  CHECK(*r.evaluated[*r.best].ms <= *dflt->ms);
  REQUIRE(r.saved);
  const auto rec = TuningDb(db).find(pair_tuning_key(s, sizes, ctx.info()), s);
  REQUIRE(rec);
  CHECK(rec->choice == r.evaluated[*r.best].choice);
  CHECK(rec->pairs_per_s == doctest::Approx(r.evaluated[*r.best].pairs_per_s));
}

}  // namespace

TEST_CASE("tuning pairwise specs: particles with a ragged last tile, and a grid's tile against block on block") {
  Context ctx(0);
  gpen::test::TempDir dir;
  TuneOptions o;
  o.db_path = dir.path + "/tuning.json";
  o.repeat = 3;
  {
    const Spec s = load_spec(gpen::test::source_dir() + "/specs/pairwise/softened_potential.json");
    o.fixed = {"unroll=8"};
    const PairSizes n = parse_pair_size(s, "4099");
    const TuneResult r = tune_pairwise(ctx, s, n, o);
    CHECK(r.evaluated.size() == 16);  // block_x 64-512 x targets_per_thread 1-8
    check_pair_tuning(ctx, s, n, r, o.db_path);
  }
  {
    // Block on block sums each target's terms in another order than the
    // tile: its variants must still match the default (tile) output.
    const Spec s = load_spec(gpen::test::source_dir() + "/specs/pairwise/radiation_grid.json");
    // (Fixing cell_block or streams would make the default, a tile, a
    // variant the plan refuses: those belong to block on block.)
    o.fixed = {"unroll=8", "targets_per_thread=2", "block_x=128"};
    const PairSizes g = parse_pair_size(s, "20x9x7");
    const TuneResult r = tune_pairwise(ctx, s, g, o);
    int blocks = 0;
    for (const auto& v : r.evaluated) blocks += v.ms && v.variant.find("strategy=blocks") != std::string::npos;
    CHECK(blocks >= 2);
    check_pair_tuning(ctx, s, g, r, o.db_path);
  }
  CHECK_THROWS_AS(tune(ctx, load_spec(gpen::test::source_dir() + "/specs/pairwise/softened_potential.json"), {64, 1, 1}, o),
                  std::invalid_argument);
}
