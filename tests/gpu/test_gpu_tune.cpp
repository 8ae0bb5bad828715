// GPU: tuning the 8th-order Laplacian at 256^3 (a budgeted local search over
// march variants) verifies every variant it times against the default's
// output, finds one at least as fast as the default, and stores it where
// `gpen run` looks.
#include "../test_support.hpp"
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
