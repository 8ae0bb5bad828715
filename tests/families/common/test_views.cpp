// Arrays the caller owns, bound as views (DeviceBuffer::view): checked as
// gpen's own buffers are, before any launch, with no GPU: dtype, shape,
// ghost width, alignment, pitch; and a reduction's results against the
// inputs' shape reduced along its axes.
#include <deque>

#include <fmt/format.h>

#include "test_support.hpp"
#include "gpen/families/common/kernel.hpp"
#include "gpen/families/stencil/stencil_kernel.hpp"

using namespace gpen;

namespace {

std::string spec_path(const std::string& name) { return gpen::test::source_dir() + "/specs/" + name + ".json"; }

// Distinct, aligned, never dereferenced: check_bindings reads no memory.
CUdeviceptr fake(int i) { return 0x100000ULL * static_cast<CUdeviceptr>(i + 1); }

}  // namespace

TEST_CASE("views of the caller's arrays are checked as gpen's buffers are") {
  const Spec s = load_spec(spec_path("stencil/laplacian3d_o8"));  // u (ghost 4) -> lap, float64, 3-D
  const std::array<long long, 3> n{40, 30, 20};
  const DeviceBuffer u = DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 4);
  const DeviceBuffer lap = DeviceBuffer::view(fake(1), Dtype::Float64, 3, n, 0);
  CHECK(!u.owned());
  CHECK(u.get() == fake(0));
  CHECK(u.pitch().row == 48);
  CHECK(u.pitch().plane == 48 * 38);
  CHECK(check_bindings(s, {{"u", &u}, {"lap", &lap}}, {}) == n);

  const DeviceBuffer f32 = DeviceBuffer::view(fake(0), Dtype::Float32, 3, n, 4);
  CHECK_THROWS_WITH(check_bindings(s, {{"u", &f32}, {"lap", &lap}}, {}), doctest::Contains("field 'u' is float32, the spec says float64"));
  const DeviceBuffer thin = DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 2);
  CHECK_THROWS_WITH(check_bindings(s, {{"u", &thin}, {"lap", &lap}}, {}), doctest::Contains("field 'u' has ghost width 2, the spec says 4"));
  const DeviceBuffer other = DeviceBuffer::view(fake(1), Dtype::Float64, 3, {40, 30, 21}, 0);
  CHECK_THROWS_WITH(check_bindings(s, {{"u", &u}, {"lap", &other}}, {}), doctest::Contains("is 40x30x21, but 'u' is 40x30x20"));
  const DeviceBuffer null = DeviceBuffer::view(0, Dtype::Float64, 3, n, 4);
  CHECK_THROWS_WITH(check_bindings(s, {{"u", &null}, {"lap", &lap}}, {}), doctest::Contains("field 'u' is bound to a null device pointer"));
  const DeviceBuffer odd = DeviceBuffer::view(fake(0) + 4, Dtype::Float64, 3, n, 4);
  CHECK_THROWS_WITH(check_bindings(s, {{"u", &odd}, {"lap", &lap}}, {}), doctest::Contains("not a multiple of its 8-byte elements"));
  // A float32 array may start at any multiple of 4 bytes.
  const Spec s32 = load_spec(spec_path("stencil/laplacian3d_o8"), Dtype::Float32);
  const DeviceBuffer u4 = DeviceBuffer::view(fake(0) + 4, Dtype::Float32, 3, n, 4);
  const DeviceBuffer lap4 = DeviceBuffer::view(fake(1) + 12, Dtype::Float32, 3, n, 0);
  CHECK(check_bindings(s32, {{"u", &u4}, {"lap", &lap4}}, {}) == n);
  // Rows and planes padded by the caller: a stencil takes them.
  const DeviceBuffer pitched = DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 4, Pitch{64, 64 * 40});
  CHECK(!pitched.packed());
  CHECK(check_bindings(s, {{"u", &pitched}, {"lap", &lap}}, {}, Pitches::Any) == n);
  // Nor is a pitched view copied whole, to or from the host.
  DeviceBuffer pitched_copy = DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 4, Pitch{64, 64 * 38});
  CHECK_THROWS_WITH(pitched_copy.upload(std::vector<double>(pitched_copy.elements())), doctest::Contains("only packed arrays"));
  CHECK_THROWS_WITH(pitched_copy.download(), doctest::Contains("only packed arrays"));
  // The packed pitch given explicitly is the packed array.
  const DeviceBuffer explicit_packed = DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 4, Pitch{48, 48 * 38});
  CHECK(explicit_packed.packed());
  CHECK(check_bindings(s, {{"u", &explicit_packed}, {"lap", &lap}}, {}) == n);
  // A row pitch alone: planes follow the padded rows.
  CHECK(DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 4, Pitch{50, 0}).pitch().plane == 50 * 38);
}

TEST_CASE("a view's shape and pitch are refused where rows or planes would overlap, and where the array has none") {
  const std::array<long long, 3> n{40, 30, 20};
  using doctest::Contains;
  CHECK_THROWS_WITH(DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 4, Pitch{47, 0}),
                    Contains("row pitch 47 and plane pitch 0: its rows would overlap: the row pitch must be at least the padded row, 48 elements"));
  CHECK_THROWS_WITH(DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 4, Pitch{64, 64 * 38 - 1}),
                    Contains("its planes would overlap: the plane pitch must be at least the row pitch times the padded column, 2432 elements"));
  CHECK_THROWS_WITH(DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 4, Pitch{-1, 0}), Contains("pitches are counts of elements, 0 or more"));
  CHECK_THROWS_WITH(DeviceBuffer::view(fake(0), Dtype::Float64, 1, {40, 1, 1}, 2, Pitch{64, 0}),
                    Contains("a 1-D array has no rows or planes to pitch; give 0 (packed)"));
  CHECK(DeviceBuffer::view(fake(0), Dtype::Float64, 1, {40, 1, 1}, 2, Pitch{44, 44}).packed());
  CHECK_THROWS_WITH(DeviceBuffer::view(fake(0), Dtype::Float32, 2, {40, 30, 1}, 0, Pitch{48, 100}),
                    Contains("a 2-D array has one plane: give plane pitch 0, or at least 1440"));
  // A 2-D array has one plane; no axis is empty.
  CHECK_THROWS_WITH(DeviceBuffer::view(fake(0), Dtype::Float32, 2, {40, 30, 33}, 0),
                    Contains("an array of 2 dimensions, 40x30x33 points, ghost width 0: expected 1-3 dimensions, at least one point along each "
                             "axis, one along the axes the array lacks"));
  CHECK_THROWS_WITH(DeviceBuffer::view(fake(0), Dtype::Float32, 3, {40, 0, 33}, 0), Contains("at least one point along each axis"));
  const DeviceBuffer rows = DeviceBuffer::view(fake(0), Dtype::Float32, 2, {40, 30, 1}, 0, Pitch{48, 0});
  CHECK(!rows.packed());
  CHECK(rows.pitch().plane == 48 * 30);
}

TEST_CASE("kinds that take packed arrays only refuse pitched views, naming the kind") {
  const Spec s = load_spec(spec_path("scan/cumsum_x"));
  const std::array<long long, 3> n{40, 30, 20};
  const DeviceBuffer in = DeviceBuffer::view(fake(0), s.dtype, s.dims, n, 0, Pitch{64, 0});
  const DeviceBuffer out = DeviceBuffer::view(fake(1), s.dtype, s.dims, n, 0);
  FieldBindings f;
  f[s.inputs()[0]->name] = &in;
  f[s.output_fields()[0]->name] = &out;
  CHECK_THROWS_WITH(check_bindings(s, f, {}), doctest::Contains("field 'u' has a row pitch of 64 and a plane pitch of 1920 elements; kind \"scan\" "
                                                                 "takes arrays packed with their ghost zones (row pitch 40, plane pitch 1200 here)"));
}

TEST_CASE("a reduction's results: the inputs' shape reduced along its axes, in the accumulator's dtype") {
  const Spec s = load_spec(spec_path("reduce/column_sum"));  // rho float32 -> sigma float64, along z
  const std::array<long long, 3> n{40, 30, 20};
  const DeviceBuffer rho = DeviceBuffer::view(fake(0), Dtype::Float32, 3, n, 0);
  const DeviceBuffer sigma = DeviceBuffer::view(fake(1), Dtype::Float64, 3, {40, 30, 1}, 0);
  CHECK(check_bindings(s, {{"rho", &rho}, {"sigma", &sigma}}, {}) == n);
  const DeviceBuffer full = DeviceBuffer::view(fake(1), Dtype::Float64, 3, n, 0);
  CHECK_THROWS_WITH(check_bindings(s, {{"rho", &rho}, {"sigma", &full}}, {}),
                    doctest::Contains("result 'sigma' is 40x30x20, but reduced along its axes the inputs' 40x30x20 is 40x30x1"));
  const DeviceBuffer f32 = DeviceBuffer::view(fake(1), Dtype::Float32, 3, {40, 30, 1}, 0);
  CHECK_THROWS_WITH(check_bindings(s, {{"rho", &rho}, {"sigma", &f32}}, {}), doctest::Contains("field 'sigma' is float32, the spec says float64"));
}

TEST_CASE("a march kernel takes its vector entry on pitched views only where every run stays aligned") {
  const Spec s = load_spec(spec_path("stencil/laplacian3d_o8"));  // u (ghost 4) -> lap
  const StencilPlan plan = plan_stencil(s, s.choose({"strategy=march", "vector_x=2", "rows_y=4"}));
  REQUIRE(plan.vector_x == 2);
  const auto fits = [&](std::array<long long, 3> n, Pitch pu, Pitch pl) {
    const DeviceBuffer u = DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 4, pu);
    const DeviceBuffer lap = DeviceBuffer::view(fake(1), Dtype::Float64, 3, n, 0, pl);
    return fits_vector_runs(plan, plan.kernel_extent(n), {{"u", &u}, {"lap", &lap}});
  };
  CHECK(fits({64, 45, 33}, {}, {}));
  CHECK(fits({64, 45, 33}, Pitch{80, 80 * 60}, Pitch{72, 0}));
  CHECK(!fits({64, 45, 33}, Pitch{81, 0}, {}));           // odd rows
  CHECK(!fits({64, 45, 33}, Pitch{80, 80 * 60 + 1}, {}));  // odd planes
  CHECK(!fits({64, 45, 33}, {}, Pitch{65, 0}));
  CHECK(!fits({67, 45, 33}, Pitch{80, 0}, Pitch{72, 0}));  // even pitches, but the padded row (75) is odd
}

TEST_CASE("a stage kernel's fields share one pitch only where their views are padded alike, each kind and ghost width apart") {
  CHECK(pitch_sources({{3, 3, 3}, {1, 1, 1}, {3, 3, 3}, {1, 1, 0}, {1, 1, 1}}, false) == std::vector<int>{0, 1, 0, 3, 1});
  CHECK(pitch_sources({{3, 3, 3}, {1, 1, 1}, {3, 3, 3}}, true) == std::vector<int>{0, 1, 2});
  const Spec s = load_spec(spec_path("stencil/momentum_visc3d"));  // lnrho, ux, uy, uz (ghost 3) -> dux_dt, duy_dt, duz_dt
  const std::array<long long, 3> n{37, 21, 19};
  const char* names[] = {"lnrho", "ux", "uy", "uz", "dux_dt", "duy_dt", "duz_dt"};
  // Views with these pitches (an empty one: packed), the inputs' then the outputs'.
  const auto shares = [&](const std::vector<std::string>& set, const std::array<Pitch, 7>& pitches) {
    const StencilPlan plan = plan_stencil(s, s.choose(set));
    std::vector<DeviceBuffer> views;
    views.reserve(7);
    FieldBindings fields;
    for (int f = 0; f < 7; ++f) {
      views.push_back(DeviceBuffer::view(fake(f), Dtype::Float64, 3, n, f < 4 ? 3 : 0, pitches[static_cast<std::size_t>(f)]));
      fields[names[f]] = &views.back();
    }
    return shares_pitches(s, plan, fields);
  };
  const Pitch in{50, 50 * 30}, out{40, 40 * 22};
  CHECK(shares({}, {}));
  CHECK(shares({}, {in, in, in, in, out, out, out}));
  CHECK(shares({}, {in, in, in, in, {}, {}, {}}));   // inputs alike, outputs packed alike
  CHECK(!shares({}, {in, in, {}, in, out, out, out}));  // one input packed among padded ones
  CHECK(!shares({}, {in, in, in, in, out, {}, out}));
  CHECK(!shares({}, {in, in, in, in, out, Pitch{40, 40 * 23}, out}));  // planes apart
  // Every field's own pitch: any padding fits.
  CHECK(shares({"shared_pitches=0"}, {in, in, {}, in, out, {}, out}));
  CHECK(shares({"strategy=direct"}, {in, in, {}, in, out, {}, out}));
  CHECK_THROWS_WITH_AS(shares_pitches(s, plan_stencil(s, s.choose({})), {}), doctest::Contains("field 'lnrho' is not bound"), BindingError);
}

TEST_CASE("an output bound to memory another bound array uses is refused, naming both") {
  const Spec s = load_spec(spec_path("stencil/laplacian3d_o2"));  // u (ghost 1) -> lap
  const std::array<long long, 3> n{8, 8, 8};
  const DeviceBuffer u = DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 1);
  const auto bind = [&](const DeviceBuffer& lap) { return check_bindings(s, {{"u", &u}, {"lap", &lap}}, {}, Pitches::Any); };
  // lap = u[1:-1, 1:-1, 1:-1] in NumPy: u's interior, pitched as u.
  const DeviceBuffer inside = DeviceBuffer::view(fake(0) + 8 * (1 + 10 + 100), Dtype::Float64, 3, n, 0, Pitch{10, 100});
  CHECK_THROWS_WITH_AS(bind(inside), doctest::Contains("spec 'laplacian3d_o2': output 'lap' and input 'u' are bound to memory they share"), BindingError);
  const DeviceBuffer last_byte = DeviceBuffer::view(u.byte_range().second - 8, Dtype::Float64, 3, n, 0);
  CHECK_THROWS_AS(bind(last_byte), BindingError);
  const DeviceBuffer right_after = DeviceBuffer::view(u.byte_range().second, Dtype::Float64, 3, n, 0);
  CHECK(bind(right_after) == n);

  // In place of u on u's very view: allowed where the spec says so (a time loop's fused register), and only there.
  Spec in_place = s;
  in_place.fields[1].ghost = 1;
  const DeviceBuffer same = DeviceBuffer::view(fake(0), Dtype::Float64, 3, n, 1);
  const auto bind_same = [&](const Spec& spec) { return check_bindings(spec, {{"u", &u}, {"lap", &same}}, {}, Pitches::Any); };
  CHECK_THROWS_AS(bind_same(in_place), BindingError);
  in_place.fields[1].in_place_of = "u";
  CHECK(bind_same(in_place) == n);
  const DeviceBuffer shifted = DeviceBuffer::view(fake(0) + 8, Dtype::Float64, 3, n, 1);
  CHECK_THROWS_AS(check_bindings(in_place, {{"u", &u}, {"lap", &shifted}}, {}, Pitches::Any), BindingError);
}

TEST_CASE("two outputs bound to one array are refused, naming both") {
  const Spec s = load_spec(spec_path("reduce/mass_energy"));  // lnrho, ux, uy, uz (float32) -> mass, ekin (float64, one value)
  const std::array<long long, 3> n{16, 8, 4};
  std::deque<DeviceBuffer> views;
  FieldBindings f;
  int i = 0;
  for (const char* name : {"lnrho", "ux", "uy", "uz"}) f[name] = &views.emplace_back(DeviceBuffer::view(fake(i++), Dtype::Float32, 3, n, 0));
  const DeviceBuffer result = DeviceBuffer::view(fake(i), Dtype::Float64, 3, {1, 1, 1}, 0);
  f["mass"] = f["ekin"] = &result;
  CHECK_THROWS_WITH_AS(check_bindings(s, f, {}, Pitches::Any),
                       doctest::Contains("spec 'mass_energy': output 'mass' and output 'ekin' are bound to memory they share"), BindingError);
}
