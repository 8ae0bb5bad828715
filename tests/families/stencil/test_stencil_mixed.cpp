// Mixed derivatives split into intermediates for the stage strategy
// (families/stencil/stencil_mixed.hpp): what is split, how far each
// intermediate is read, and that the split form computes the same values.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "gpen/families/stencil/stencil_mixed.hpp"
#include "gpen/families/stencil/stencil_plan.hpp"
#include "test_support.hpp"

using namespace gpen;

namespace {

// A spec of inputs u and v (ghost 3), D1 and D2, and w = expr.
std::string spec3d(const std::string& expr, int order = 6, int dims = 3) { return gpen::test::two_input_spec(dims, order, {{"w", expr}}); }

std::vector<double> params_of(const Spec& s) {
  std::vector<double> v;
  for (const auto& p : s.params) v.push_back(p.value);
  return v;
}

MixedSplit split_of(const Spec& s, bool xz_along_z = false) {
  return split_mixed_derivatives(s.output_exprs(), static_cast<int>(s.inputs().size()), stencil_kernel_axis(s.dims), xz_along_z);
}

// The distinct values the split expressions read: inputs and intermediates.
std::vector<Access> reads_of(const MixedSplit& m) {
  std::vector<Access> reads;
  for (const auto& r : m.roots) collect_accesses(*r, reads);
  return reads;
}

// Input f at point p: reproducible values in [-1, 1).
double value_at(int f, int x, int y, int z) {
  std::uint64_t h = 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(f + 1);
  for (int c : {x, y, z}) h = (h ^ static_cast<std::uint64_t>(c + 1000)) * 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 31;
  return static_cast<double>(h >> 11) / static_cast<double>(1ULL << 52) - 1.0;
}

// Output r of the split expressions at point (x, y, z), the intermediates
// computed from their terms where they are read.
double split_value(const Spec& s, const MixedSplit& m, std::size_t r, int x, int y, int z) {
  const int inputs = static_cast<int>(s.inputs().size());
  auto input = [&](const Access& a, const std::array<int, 3>& at) { return value_at(a.field, at[0] + a.off[0], at[1] + a.off[1], at[2] + a.off[2]); };
  auto read = [&](const Access& a) {
    const std::array<int, 3> p{x, y, z};
    if (a.field < inputs) return input(a, p);
    const MixedIntermediate& g = m.mids.at(static_cast<std::size_t>(a.field - inputs));
    const std::array<int, 3> at{x + a.off[0], y + a.off[1], z + a.off[2]};
    double sum = 0;
    for (const auto& t : g.terms) sum += t.coeff.to_double() * input(t.access, at);
    return sum;
  };
  return evaluate(*m.roots[r], read, params_of(s));
}

double plain_value(const Spec& s, std::size_t r, int x, int y, int z) {
  auto read = [&](const Access& a) { return value_at(a.field, x + a.off[0], y + a.off[1], z + a.off[2]); };
  return evaluate(*s.output_exprs()[r], read, params_of(s));
}

}  // namespace

TEST_CASE("a mixed derivative is split into an intermediate along the inner axis, read along the outer") {
  const Spec s = load_spec_string(spec3d("D2(u, x) + D1(D1(v, y), x)"));
  const MixedSplit m = split_of(s);
  REQUIRE(m.mids.size() == 1);
  CHECK(m.mids[0].field == 1);       // v
  CHECK(m.mids[0].inner_axis == 1);  // along y ...
  CHECK(m.mids[0].outer_axis == 0);  // ... read along x,
  CHECK(m.mids[0].reach == 3);       // 3 points either side
  // 6 J D1: integers without a common factor, the first positive.
  REQUIRE(m.mids[0].terms.size() == 6);
  CHECK(m.mids[0].terms[0].coeff == Rational(1));
  CHECK(m.mids[0].terms[0].access.off == std::array<int, 3>{0, -3, 0});
  CHECK(m.mids[0].terms[2].coeff == Rational(45));
  // u's 7 reads along x stay, v's 36 become 6 reads of the intermediate.
  const Ir& root = *m.roots[0];
  REQUIRE(root.kind == Ir::Kind::Linear);
  CHECK(root.terms.size() == 7 + 6);
  CHECK(std::count_if(root.terms.begin(), root.terms.end(), [](const Term& t) { return t.access.field == 2 && t.access.off[1] == 0; }) == 6);
  CHECK(split_value(s, m, 0, 5, 6, 7) == doctest::Approx(plain_value(s, 0, 5, 6, 7)).epsilon(1e-13));
}

TEST_CASE("mixed blocks: read along x where the pair has it, else z; any rank; split only where it reads less") {
  // x and z: along z, read along x; y and z: along y, read along z (a
  // register queue); D1(u, y) read along x is another intermediate. (Outer
  // weights unlike, D2 against D1, so that none of them merge.)
  const Spec xz = load_spec_string(spec3d("D2(D1(u, x), z) + D1(D1(u, z), y) + D2(D1(u, y), x)"));
  const MixedSplit mxz = split_of(xz);
  REQUIRE(mxz.mids.size() == 3);
  int seen = 0;
  for (const auto& g : mxz.mids) {
    CHECK(g.reach == 3);
    if (g.inner_axis == 2 && g.outer_axis == 0) seen |= 1;
    if (g.inner_axis == 1 && g.outer_axis == 2) seen |= 2;
    if (g.inner_axis == 1 && g.outer_axis == 0) seen |= 4;
  }
  CHECK(seen == 7);
  CHECK(split_value(xz, mxz, 0, 1, 2, 3) == doctest::Approx(plain_value(xz, 0, 1, 2, 3)).epsilon(1e-13));
  // xz_queue: x and z along x, read along z; the other pairs as before.
  const MixedSplit zxz = split_of(xz, true);
  REQUIRE(zxz.mids.size() == 3);
  seen = 0;
  for (const auto& g : zxz.mids) {
    if (g.inner_axis == 0 && g.outer_axis == 2) seen |= 1;
    if (g.inner_axis == 1 && g.outer_axis == 2) seen |= 2;
    if (g.inner_axis == 1 && g.outer_axis == 0) seen |= 4;
  }
  CHECK(seen == 7);
  CHECK(split_value(xz, zxz, 0, 1, 2, 3) == doctest::Approx(plain_value(xz, 0, 1, 2, 3)).epsilon(1e-13));

  // 2-D: y is the kernel's z; x is the outer axis.
  const Spec two = load_spec_string(spec3d("D1(D1(u, x), y)", 6, 2));
  const MixedSplit m2 = split_of(two);
  REQUIRE(m2.mids.size() == 1);
  CHECK(m2.mids[0].inner_axis == 1);
  CHECK(m2.mids[0].outer_axis == 0);

  // Rank 2: the sum of two products is two intermediates (12 + 12 reads
  // instead of 36); D2's centre lies on the axes and stays a plain read.
  const Spec r2 = load_spec_string(spec3d("D1(D1(u, y), x) + D2(D2(u, y), x)"));
  const MixedSplit m3 = split_of(r2);
  CHECK(m3.mids.size() == 2);
  CHECK(split_value(r2, m3, 0, 4, 4, 4) == doctest::Approx(plain_value(r2, 0, 4, 4, 4)).epsilon(1e-13));

  // 2nd order: 4 corner reads against 2 + 2: nothing gained, nothing split.
  const Spec o2 = load_spec_string(spec3d("D1(D1(u, y), x)", 2));
  const MixedSplit m4 = split_of(o2);
  CHECK(m4.mids.empty());
  CHECK(m4.roots[0] == o2.output_exprs()[0]);
}

TEST_CASE("a derivative an intermediate takes is read from the intermediate at the point, from a column's queue first") {
  // D1(v, y) alone is the intermediate of D1(D1(v, y), x) times -1/60: v's
  // 6 reads along y become one read of it at the point.
  const Spec s = load_spec_string(spec3d("D1(D1(v, y), x) + u * D1(v, y)"));
  const MixedSplit m = split_of(s);
  REQUIRE(m.mids.size() == 1);
  auto count = [](const std::vector<Access>& reads, auto pred) { return std::count_if(reads.begin(), reads.end(), pred); };
  const auto reads = reads_of(m);
  CHECK(count(reads, [](const Access& a) { return a.field == 1; }) == 0);                                                // no read of v
  CHECK(count(reads, [](const Access& a) { return a.field == 2 && a.off == std::array<int, 3>{0, 0, 0}; }) == 1);  // the intermediate at the point
  CHECK(split_value(s, m, 0, 5, 6, 7) == doctest::Approx(plain_value(s, 0, 5, 6, 7)).epsilon(1e-13));

  // Taken along x and along z: the column's queue (a register) serves.
  const Spec two = load_spec_string(spec3d("D1(D1(v, y), x) + D1(D1(v, y), z) + u * D1(v, y)"));
  const MixedSplit m2 = split_of(two);
  REQUIRE(m2.mids.size() == 2);
  const int queue = m2.mids[0].outer_axis == 2 ? 0 : 1;
  REQUIRE(m2.mids[static_cast<std::size_t>(queue)].outer_axis == 2);
  CHECK(count(reads_of(m2), [&](const Access& a) { return a.field == 2 + queue && a.off == std::array<int, 3>{0, 0, 0}; }) == 1);
  CHECK(count(reads_of(m2), [&](const Access& a) { return a.field == 3 - queue && a.off == std::array<int, 3>{0, 0, 0}; }) == 0);
  CHECK(split_value(two, m2, 0, 5, 6, 7) == doctest::Approx(plain_value(two, 0, 5, 6, 7)).epsilon(1e-13));

  // Along the kernel's z a warp's row would cost a load where a column
  // may hold the values: D1(v, z) stays as written. D2(v, y) is no
  // multiple of the intermediate: it stays too.
  const Spec along_z = load_spec_string(spec3d("D1(D1(v, z), x) + u * D1(v, z) + D2(v, y) * D1(D1(v, y), x)"));
  const MixedSplit mz = split_of(along_z);
  REQUIRE(mz.mids.size() == 2);
  CHECK(count(reads_of(mz), [](const Access& a) { return a.field == 1 && a.off[2] != 0; }) == 6);
  CHECK(count(reads_of(mz), [](const Access& a) { return a.field == 1 && a.off[1] != 0; }) == 6);
  CHECK(split_value(along_z, mz, 0, 5, 6, 7) == doctest::Approx(plain_value(along_z, 0, 5, 6, 7)).epsilon(1e-13));
}

TEST_CASE("weights past 64 bits in the reuse of an intermediate: the line read as written, no error") {
  // B's weights against the intermediate D1(v, y)'s need a factor past 64
  // bits: the spec loads, splits and generates as before the reuse.
  const std::string b = "{\"name\": \"B\", \"offsets\": [-3, -2, -1, 1, 2, 3], \"coeffs\": [\"4611686018427387903\", 1, 1, 1, 1, 1]}, ";
  const Spec s = load_spec_string(gpen::test::two_input_spec(3, 6, {{"w", "D1(D1(v, y), x) + u * B(v, y)"}}, b));
  const MixedSplit m = split_of(s);
  CHECK(m.mids.size() == 1);
  const auto reads = reads_of(m);
  CHECK(std::count_if(reads.begin(), reads.end(), [](const Access& a) { return a.field == 1 && a.off[1] != 0; }) == 6);
  CHECK_NOTHROW(generate(s, s.choose({"strategy=stage"})));
}

TEST_CASE("intermediates read along one axis, together and in proportion wherever they are read, are one") {
  // grad(div u)'s x part: D1 along x of D1(u, y) + D1(v, z), one row.
  const Spec s = load_spec_string(spec3d("D1(D1(u, y), x) + D1(D1(v, z), x) - 2 * D2(u, x)"));
  const MixedSplit m = split_of(s);
  REQUIRE(m.mids.size() == 1);
  CHECK(m.mids[0].field == 0);
  CHECK(m.mids[0].inner_axis == 1);
  CHECK(m.mids[0].also == std::vector<std::pair<int, int>>{{1, 2}});  // + v along z
  CHECK(m.mids[0].terms.size() == 12);
  CHECK(m.mids[0].reach == 3);
  CHECK(split_value(s, m, 0, 5, 6, 7) == doctest::Approx(plain_value(s, 0, 5, 6, 7)).epsilon(1e-13));

  // Not where one is read alone (another output), in another proportion
  // along the axis (D2 against D1), or along another axis.
  using Outputs = std::vector<std::pair<std::string, std::string>>;
  const Outputs alone = {{"w", "D1(D1(u, y), x) + D1(D1(v, z), x)"}, {"q", "D1(D1(u, y), x) * v"}};
  const Spec a = load_spec_string(gpen::test::two_input_spec(3, 6, alone));
  CHECK(split_of(a).mids.size() == 2);
  for (std::size_t r = 0; r < 2; ++r) CHECK(split_value(a, split_of(a), r, 4, 5, 6) == doctest::Approx(plain_value(a, r, 4, 5, 6)).epsilon(1e-13));
  CHECK(split_of(load_spec_string(spec3d("D1(D1(u, y), x) + D2(D1(v, z), x)"))).mids.size() == 2);
  CHECK(split_of(load_spec_string(spec3d("D1(D1(u, y), x) + D1(D1(v, x), z)")), true).mids.size() == 2);
  // Queues read along z stay apart (registers): D1 along z of D1(u, y)
  // and of D1(v, x), with xz_queue.
  CHECK(split_of(load_spec_string(spec3d("D1(D1(u, y), z) + D1(D1(v, x), z)")), true).mids.size() == 2);
}

TEST_CASE("every shipped stencil spec: the split expressions compute what the spec says, x and z pairs read along x or z") {
  std::size_t split_specs = 0, xz_specs = 0;
  for (const auto& path : gpen::test::shipped_specs("stencil")) {
    CAPTURE(path);
    const Spec s = load_spec(path);
    for (bool xz : {false, true}) {
      CAPTURE(xz);
      const MixedSplit m = split_of(s, xz);
      if (!xz) split_specs += !m.mids.empty();
      if (xz) xz_specs += std::any_of(m.mids.begin(), m.mids.end(), [](const MixedIntermediate& g) { return g.inner_axis == 0 && g.outer_axis == 2; });
      for (std::size_t r = 0; r < m.roots.size(); ++r)
        for (int p = 0; p < 4; ++p) {
          const double want = plain_value(s, r, 3 * p, 7 - p, 2 * p + 1);
          CHECK(split_value(s, m, r, 3 * p, 7 - p, 2 * p + 1) == doctest::Approx(want).epsilon(1e-12).scale(1.0));
        }
    }
  }
  // momentum_visc3d, induction3d, mhd_iso3d
  CHECK(split_specs == 3);
  CHECK(xz_specs == 3);
}
