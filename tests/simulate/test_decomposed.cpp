// A program run on subdomains (the CPU reference, every rank in this
// process, the exchange's host model between stages) against the same
// program undecomposed: the fields bit for bit after several steps, for
// 1-, 2- and 3-D splits of every shipped 3-D program (issue 30).
#include <algorithm>
#include <cmath>
#include <string>

#include <doctest/doctest.h>

#include "gpen/generator/error.hpp"
#include "gpen/simulate/decomposed_cpu_backend.hpp"
#include "gpen/simulate/npy.hpp"
#include "gpen/simulate/picture.hpp"
#include "gpen/simulate/rank_links.hpp"
#include "gpen/generator/associative_op.hpp"
#include "gpen/simulate/simulation.hpp"
#include "halo_support.hpp"
#include "program_support.hpp"

using namespace gpen;
using namespace gpen::sim;

namespace {

}  // namespace

TEST_CASE("a program on subdomains: bitwise the undecomposed run, every shipped 3-D program, 1-, 2- and 3-D splits") {
  int ran = 0;
  for (const char* name : {"sound_wave3d", "heat_walls3d", "orszag_tang3d", "alfven_wave3d"}) {
    const Program p = test::program_of(test::shipped_program(name), std::array<long long, 3>{17, 13, 11});
    const std::vector<std::vector<double>> init = initial_values(p);
    CpuBackend whole(p);
    whole.set_fields(init);
    const std::vector<std::vector<double>> filled = whole.fields();  // walls may set their boundary points
    const double dt = 1e-4;  // a few small steps: the comparison is of bits, not of physics
    for (int s = 0; s < 3; ++s) whole.step(dt);
    for (const RankGrid grid : {RankGrid{{2, 1, 1}}, RankGrid{{1, 3, 1}}, RankGrid{{1, 1, 2}}, RankGrid{{2, 2, 1}}, RankGrid{{3, 2, 2}}}) {
      CAPTURE(std::string(name));
      CAPTURE(grid.ranks[0]);
      CAPTURE(grid.ranks[1]);
      CAPTURE(grid.ranks[2]);
      DecomposedCpuBackend parts(p, grid);
      parts.set_fields(init);
      CHECK(test::field_differences(parts.fields(), filled) == 0);  // scattered, filled and gathered as the whole
      for (int s = 0; s < 3; ++s) parts.step(dt);
      CHECK(test::field_differences(parts.fields(), whole.fields()) == 0);
      // Reductions across ranks: a maximum bit for bit, sums to rounding.
      if (p.time_step.speed) CHECK(parts.max_speed() == whole.max_speed());
      const std::vector<double> want = whole.diagnostics(), got = parts.diagnostics();
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < got.size(); ++i) CHECK(std::abs(got[i] - want[i]) <= 1e-13 * std::max(1.0, std::abs(want[i])));
      ++ran;
    }
  }
  CHECK(ran == 20);
}

TEST_CASE("a program on subdomains: what cannot be split is refused, naming why") {
  const Program sbp = test::program_of(test::shipped_program("wave2d_sbp"));
  std::string why;
  try {
    DecomposedCpuBackend parts(sbp, RankGrid{{2, 1, 1}});
  } catch (const UsageError& e) {
    why = e.what();
  }
  CHECK(why.find("of kind \"sbp\"") != std::string::npos);
  CHECK(why.find("/rhs/1, line 20, column 5)") != std::string::npos);  // where the program names it
  const Program heat = test::program_of(test::shipped_program("heat_walls3d"), std::array<long long, 3>{17, 13, 11});
  why.clear();
  try {
    DecomposedCpuBackend parts(heat, RankGrid{{17, 1, 1}});
  } catch (const UsageError& e) {
    why = e.what();
  }
  CHECK(why.find("--ranks: ") == 0);
}

TEST_CASE("a decomposed snapshot: every rank's part written in place makes the whole grid's .npy byte for byte; a part's initial values are the whole's there") {
  test::TempDir dir;
  const std::array<long long, 3> size{17, 13, 11};
  std::vector<double> whole(static_cast<std::size_t>(size[0] * size[1] * size[2]));
  for (std::size_t i = 0; i < whole.size(); ++i) whole[i] = std::sin(0.37 * static_cast<double>(i)) * 1e3 + static_cast<double>(i);
  for (Dtype dt : {Dtype::Float64, Dtype::Float32}) {
    CAPTURE(to_string(dt));
    const std::vector<long long> shape{size[2], size[1], size[0]};
    write_npy(dir.path + "/whole.npy", dt, shape, whole);
    const Decomposition d(size, 3, RankGrid{{3, 2, 2}});
    create_npy(dir.path + "/parts.npy", dt, shape);
    for (int r = d.count() - 1; r >= 0; --r)  // in any order
      write_npy_part(dir.path + "/parts.npy", dt, size, d.subdomain(r), interior_part(whole, size, d.subdomain(r)));
    CHECK(test::read_file(dir.path + "/parts.npy") == test::read_file(dir.path + "/whole.npy"));
    // And each part read back alone, as a rank of a restart reads it.
    for (int r = 0; r < d.count(); ++r) {
      const std::vector<double> want = interior_part(read_npy(dir.path + "/whole.npy").values, size, d.subdomain(r));
      CHECK(test::differing_values(read_npy_part(dir.path + "/whole.npy", size, d.subdomain(r)), want) == 0);
    }
    // A part of the wrong length, or a file of another grid, is refused.
    CHECK_THROWS_AS(write_npy_part(dir.path + "/parts.npy", dt, size, d.subdomain(0), {1.0, 2.0}), std::invalid_argument);
    CHECK_THROWS_AS(write_npy_part(dir.path + "/parts.npy", dt, {17, 13, 12}, d.subdomain(0), interior_part(whole, size, d.subdomain(0))),
                    std::runtime_error);
  }
  const Program p = test::program_of(test::conserving_wave_text(), std::array<long long, 3>{17, 13, 11});  // seeded noise too
  const std::vector<std::vector<double>> all = initial_values(p);
  const Decomposition d = decompose(p, RankGrid{{2, 3, 1}});
  for (int r = 0; r < d.count(); ++r) {
    const std::vector<std::vector<double>> mine = initial_values(p, &d.subdomain(r));
    for (std::size_t f = 0; f < all.size(); ++f) CHECK(test::differing_values(mine[f], interior_part(all[f], p.size, d.subdomain(r))) == 0);
  }
}

namespace {
// Links whose gather hands back every rank's values, given up front: what
// rank_links.hpp's folds see from a run of several ranks.
struct GatheredLinks : RankLinks {
  Decomposition d;
  int me;
  std::vector<std::vector<double>> others;  // per rank; `me`'s is what gather() is given
  GatheredLinks(Decomposition dec, int rank, std::vector<std::vector<double>> values) : d(std::move(dec)), me(rank), others(std::move(values)) {}
  const Decomposition& decomposition() const override { return d; }
  int rank() const override { return me; }
  void attach(const std::vector<std::vector<const DeviceBuffer*>>&, CUstream) override {}
  void exchange_axis(int, int, CUstream) override {}
  void max_in_place(CUdeviceptr, std::size_t, Dtype, CUstream) override {}
  std::vector<double> gather(const std::vector<double>& mine) override {
    std::vector<double> all;
    for (int r = 0; r < d.count(); ++r) {
      const std::vector<double>& v = r == me ? mine : others[static_cast<std::size_t>(r)];
      all.insert(all.end(), v.begin(), v.end());
    }
    return all;
  }
};
}  // namespace

TEST_CASE("over ranks: a reduction's results fold by its own operation, maxima are told apart, the first non-finite value is the whole grid's first") {
  const AssociativeOp max = named_op("max", Dtype::Float64, "/x"), sum = named_op("sum", Dtype::Float64, "/y"), min = named_op("min", Dtype::Float64, "/z");
  CHECK(acts_as_max(max));
  CHECK(!acts_as_max(sum));
  CHECK(!acts_as_max(min));
  const std::vector<std::vector<double>> per_rank = per_rank_values({1, 10, -1, 3, 20, -5, 2, 30, 7}, 3);
  REQUIRE(per_rank.size() == 3);
  CHECK(per_rank[1] == std::vector<double>{3, 20, -5});
  CHECK(fold_over_ranks({&max, &sum, &min}, per_rank) == std::vector<double>{3, 60, -5});

  // Ranks 1 and 2 of a 3x1x1 split of 9x4x2 hold non-finite values; rank 2's is earlier in z, y, x order.
  const Decomposition d({9, 4, 2}, 3, RankGrid{{3, 1, 1}});
  const std::vector<double> none(6, 0);
  const std::vector<double> at_rank2{1, 0, 6 + 1, 2, 0, -1.0};  // field 0, global (7, 2, 0)
  GatheredLinks links(d, 1, {none, none, at_rank2});
  const NonFinite mine{0, {1, 3, 0}, std::nan("")};  // rank 1's local (1, 3, 0): global (4, 3, 0)
  const std::optional<NonFinite> first = first_over_ranks(mine, d.subdomain(1), links);
  REQUIRE(first.has_value());
  CHECK(first->at == std::array<long long, 3>{7, 2, 0});
  CHECK(first->value == -1.0);
  // A field earlier in the program's order comes first, wherever it is.
  const NonFinite earlier{0, {0, 0, 1}, 5.0};
  GatheredLinks other(d, 1, {none, none, {1, 1, 0, 0, 0, 2.0}});
  CHECK(first_over_ranks(earlier, d.subdomain(1), other)->at == std::array<long long, 3>{3, 0, 1});
  GatheredLinks nothing(d, 0, {none, none, none});
  CHECK(!first_over_ranks(std::nullopt, d.subdomain(0), nothing).has_value());
  // Faces: exchanged inside the grid and across a periodic edge, not at a wall.
  const ProgramField walls = test::halo_field(3, {{{BoundaryKind::Symmetric, BoundaryKind::Symmetric}, {BoundaryKind::Periodic, BoundaryKind::Periodic},
                                                   {BoundaryKind::Periodic, BoundaryKind::Periodic}}});
  const ProgramField periodic = test::periodic_but_z(3, BoundaryKind::Periodic);
  CHECK(!exchanged_face(walls, d, 0, 0, 0));
  CHECK(exchanged_face(walls, d, 0, 0, 1));
  CHECK(exchanged_face(periodic, d, 0, 0, 0));
  CHECK(!exchanged_face(periodic, d, 0, 1, 0));  // y is not split: its fill wraps it
}

TEST_CASE("a snapshot's picture from its slice read back from the field's file is the picture of the whole field, every cut, 1-, 2- and 3-D") {
  test::TempDir dir;
  for (const auto& [name, size] : {std::pair{"sound_wave3d", std::array<long long, 3>{17, 13, 11}}, std::pair{"wave2d_sbp", std::array<long long, 3>{19, 15, 1}}}) {
    const Program p = test::program_of(test::shipped_program(name), size);
    const std::vector<double> field = initial_values(p).at(0);
    const std::string file = dir.path + "/f.npy";
    write_npy(file, p.dtype, p.c_order_shape(), field);
    for (int axis = 0; axis < 3; ++axis)
      for (double at : {0.0, 0.37, 1.0}) {
        CAPTURE(std::string(name));
        CAPTURE(axis);
        CAPTURE(at);
        const Picture pic{0, axis, at, ""};
        const Image whole = render_slice(p, field, pic), from_file = render_plane(p, read_npy_part(file, p.size, slice_part(p, pic)), pic);
        CHECK(from_file.width == whole.width);
        CHECK(from_file.height == whole.height);
        CHECK(from_file.rgb == whole.rgb);
      }
  }
  const Program line = test::program_of(test::shipped_program("sound_wave3d"), std::array<long long, 3>{17, 13, 11});
  CHECK_THROWS_AS(render_plane(line, {1.0, 2.0}, Picture{0, 2, 0.5, ""}), std::invalid_argument);
}
