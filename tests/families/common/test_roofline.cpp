// The roofline of `gpen run` and `bench` (issue 25): memory time at the
// copy, FMA time from the unit's operation count at the GPU's rate.
#include "gpen/families/common/roofline.hpp"
#include "gpen/families/stencil/stencil_plan.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/ir_common.hpp"
#include "test_support.hpp"

using namespace gpen;

TEST_CASE("roofline: the FMA rate by architecture and precision, and the larger ceiling over the measured time") {
  DeviceInfo h100;
  h100.cc_major = 9;
  h100.sm_count = 132;
  h100.clock_khz = 1980000;
  CHECK(fma_per_s(h100, Dtype::Float64) == doctest::Approx(132 * 1.98e9 * 64));
  CHECK(fma_per_s(h100, Dtype::Float32) == doctest::Approx(132 * 1.98e9 * 128));
  DeviceInfo ada = h100;
  ada.cc_major = 8;
  ada.cc_minor = 9;
  CHECK(fma_per_s(ada, Dtype::Float64) == doctest::Approx(132 * 1.98e9 * 2));  // consumer parts: 1/64 rate
  DeviceInfo unknown = h100;
  unknown.cc_major = 5;
  CHECK(fma_per_s(unknown, Dtype::Float64) == 0);

  const double points = 256.0 * 256 * 256, bytes = points * 7 * 8;
  const auto r = roofline(450, Dtype::Float64, h100, points, bytes, 3000, 1.0);
  REQUIRE(r);
  CHECK(r->ops_per_point == 450);
  CHECK(r->memory_ms == doctest::Approx(bytes / 3000e9 * 1e3));
  CHECK(r->fma_ms == doctest::Approx(points * 450 / (132 * 1.98e9 * 64) * 1e3));
  CHECK(r->pct == doctest::Approx(100 * std::max(r->memory_ms, r->fma_ms) / 1.0));
  CHECK_FALSE(roofline(450, Dtype::Float64, unknown, points, bytes, 3000, 1.0));
}

TEST_CASE("roofline: the operations a point are the unit's, its intermediates once; families without a count have none") {
  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/momentum_visc3d.json");
  const Family& f = family_of(s);
  REQUIRE((f.ops_per_point != nullptr));
  // Every product of a mixed derivative read from the planes: the spec's
  // operations with common work once.
  const double one_pass = f.ops_per_point(s, plan_stencil_unit(s, s.choose({"mixed_passes=1"})));
  CHECK(one_pass == ir_work(s.output_exprs()).distinct_ops);
  CHECK(f.ops_per_point(s, plan_stencil_unit(s, s.choose({"strategy=direct"}))) == one_pass);
  // Two passes: each of the six intermediates (a 6-point D1) once, and 6
  // reads of it where its 36 products stood: 453 - 6 x 30 + 6 x 6; and
  // D1(u, y) of ux, uy, uz, each a multiple of an intermediate, one read
  // of it rather than 6: 5 fewer each; and two intermediates read
  // together, one: 6 reads fewer.
  const double two_pass = f.ops_per_point(s, plan_stencil_unit(s, s.choose({"xz_queue=0"})));
  CHECK(one_pass == 453);
  CHECK(two_pass == 453 - 6 * 30 + 6 * 6 - 3 * 5 - 6);
  const Spec scan = load_spec(gpen::test::shipped_specs("scan").front());
  CHECK((family_of(scan).ops_per_point == nullptr));
}
