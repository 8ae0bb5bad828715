// The roofline of `gpen run` and `bench` (issue 25): memory time at the
// copy, FMA time from the spec's operation count at the GPU's rate.
#include "gpen/families/common/roofline.hpp"
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

  const Spec s = load_spec(gpen::test::source_dir() + "/specs/stencil/momentum_visc3d.json");
  const double points = 256.0 * 256 * 256, bytes = points * 7 * 8;
  const auto r = stencil_roofline(s, h100, points, bytes, 3000, 1.0);
  REQUIRE(r);
  CHECK(r->ops_per_point == ir_work(s.output_exprs()).distinct_ops);
  CHECK(r->memory_ms == doctest::Approx(bytes / 3000e9 * 1e3));
  CHECK(r->fma_ms == doctest::Approx(points * r->ops_per_point / (132 * 1.98e9 * 64) * 1e3));
  CHECK(r->pct == doctest::Approx(100 * std::max(r->memory_ms, r->fma_ms) / 1.0));
  CHECK_FALSE(stencil_roofline(s, unknown, points, bytes, 3000, 1.0));
  const Spec scan = load_spec(gpen::test::shipped_specs("scan").front());
  CHECK_FALSE(stencil_roofline(scan, h100, points, bytes, 3000, 1.0));
}
