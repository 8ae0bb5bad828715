// Subdomains and their ghost zones (issue 30), on the host: the split of
// the global grid, the ranks' neighbours, the refusals, and the exchange
// model giving every subdomain bitwise the ghost zones of the undecomposed
// array, for 1-, 2- and 3-D splits of 2 to 8 ranks at odd sizes, under
// every kind of boundary condition.
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include <doctest/doctest.h>

#include "gpen/generator/error.hpp"
#include "gpen/simulate/boundaries.hpp"
#include "gpen/simulate/decomposition.hpp"
#include "gpen/simulate/halo.hpp"
#include "halo_support.hpp"

using namespace gpen;
using namespace gpen::sim;

namespace {

std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// False where decompose() refuses the split for f (too thin at a mirrored face).
bool check_exchange(const ProgramField& f, int dims, std::array<long long, 3> size, RankGrid grid, bool poison) {
  CAPTURE(dims);
  CAPTURE(size[0]);
  CAPTURE(size[1]);
  CAPTURE(size[2]);
  CAPTURE(grid.ranks[0]);
  CAPTURE(grid.ranks[1]);
  CAPTURE(grid.ranks[2]);
  Program p;
  p.dims = dims;
  p.size = size;
  p.fields = {f};
  std::optional<Decomposition> split;
  try {
    split.emplace(decompose(p, grid));
  } catch (const UsageError&) {
    return false;
  }
  const Decomposition& d = *split;
  HostArray global(dims, size, f.ghost);
  fill_random(global, 1234 + static_cast<std::uint64_t>(size[0] * 7 + grid.count()), Dtype::Float64);
  std::vector<HostArray> parts;
  for (int r = 0; r < d.count(); ++r) {
    parts.push_back(subdomain_window(global, d.subdomain(r)));  // the same stale ghosts as the global array's
    if (poison) fill_ghosts_nan(parts.back());
  }
  apply_boundaries(f, global);
  exchange_halos(f, d, parts);
  for (int r = 0; r < d.count(); ++r) {
    CAPTURE(r);
    CHECK(test::differing_values(parts[static_cast<std::size_t>(r)].data, subdomain_window(global, d.subdomain(r)).data) == 0);
  }
  return true;
}

constexpr auto P = BoundaryKind::Periodic, S = BoundaryKind::Symmetric, A = BoundaryKind::Antisymmetric, V = BoundaryKind::Value,
               N = BoundaryKind::None;

}  // namespace

TEST_CASE("--ranks: one to three positive counts, as many as the program's axes") {
  CHECK(parse_ranks("2x2x1", 3).ranks == std::array<int, 3>{2, 2, 1});
  CHECK(parse_ranks("2x3", 3).ranks == std::array<int, 3>{2, 3, 1});
  CHECK(parse_ranks("8", 1).ranks == std::array<int, 3>{8, 1, 1});
  for (const char* bad : {"", "x2", "2x", "2xx2", "0x2", "2y2", "-2", "2x2x2x2", "1234567"})
    CHECK(usage_error([&] { parse_ranks(bad, 3); }).find("expected PX[xPY[xPZ]]") != std::string::npos);
  CHECK(usage_error([] { parse_ranks("2x2x2", 2); }).find("more axes than the program's 2") != std::string::npos);
  CHECK(parse_ranks("2x2x1", 2).ranks == std::array<int, 3>{2, 2, 1});  // axes the program lacks may say 1
  CHECK(usage_error([] { parse_ranks("512x512", 2); }).find("at most 65536") != std::string::npos);
}

TEST_CASE("subdomains: uneven splits, the first ones a point larger; neighbours, wrapped where periodic") {
  const Decomposition d({10, 7, 1}, 2, RankGrid{{3, 2, 1}});
  CHECK(d.count() == 6);
  CHECK(d.subdomain(0).extent == std::array<long long, 3>{4, 4, 1});
  CHECK(d.subdomain(1).offset == std::array<long long, 3>{4, 0, 0});
  CHECK(d.subdomain(2).offset == std::array<long long, 3>{7, 0, 0});
  CHECK(d.subdomain(2).extent == std::array<long long, 3>{3, 4, 1});
  CHECK(d.subdomain(5).offset == std::array<long long, 3>{7, 4, 0});
  CHECK(d.subdomain(5).extent == std::array<long long, 3>{3, 3, 1});
  CHECK(d.rank_at({1, 1, 0}) == 4);
  CHECK(d.neighbour(4, 0, 0, false) == 3);
  CHECK(d.neighbour(4, 0, 1, false) == 5);
  CHECK(d.neighbour(5, 0, 1, false) == -1);
  CHECK(d.neighbour(5, 0, 1, true) == 3);
  CHECK(d.neighbour(1, 1, 0, true) == 4);
  const Decomposition one({10, 7, 1}, 2, RankGrid{{1, 1, 1}});
  CHECK(one.neighbour(0, 0, 0, true) == 0);
  CHECK(one.neighbour(0, 0, 0, false) == -1);
}

TEST_CASE("subdomains thinner than a field needs are refused before any GPU work") {
  CHECK(usage_error([] { Decomposition({8, 8, 8}, 3, RankGrid{{3, 1, 1}}, 3); }).find("subdomains of 2 points; at least 3") != std::string::npos);
  CHECK(usage_error([] { Decomposition({8, 8, 1}, 2, RankGrid{{1, 1, 2}}); }).find("an axis the 2-D program does not have") != std::string::npos);
  Program p;
  p.dims = 3;
  p.size = {12, 12, 12};
  p.fields.push_back(test::halo_field(3, {{{P, P}, {S, S}, {P, P}}}));
  p.fields.back().name = "rho";
  CHECK(usage_error([&] { decompose(p, RankGrid{{5, 1, 1}}); }).find("field 'rho' needs at least its ghost width, 3") != std::string::npos);
  CHECK(decompose(p, RankGrid{{4, 1, 1}}).count() == 4);  // periodic: 3 points suffice
  // y mirrors: the subdomains at its faces need 4 (3 ghosts and the boundary point).
  CHECK(usage_error([&] { decompose(p, RankGrid{{1, 4, 1}}); }).find("field 'rho''s symmetric condition there reads 4 points") != std::string::npos);
  CHECK(decompose(p, RankGrid{{1, 3, 1}}).count() == 3);
  // A periodic axis exchanges with itself even unsplit: it needs the ghost width too.
  p.size = {12, 12, 2};
  CHECK(usage_error([&] { decompose(p, RankGrid{{2, 1, 1}}); }).find("2 points along z (periodic) leave a subdomain of 2 points; field 'rho' needs at least its ghost width, 3") !=
        std::string::npos);
  p.size = {12, 12, 3};
  CHECK(decompose(p, RankGrid{{2, 1, 1}}).count() == 2);
  // Periodic at one face only.
  p.fields.back().boundary[0][1] = Boundary{BoundaryKind::Value, 1.0, ""};
  CHECK(usage_error([&] { decompose(p, RankGrid{{2, 1, 1}}); }).find("periodic at one x face only") != std::string::npos);
}

TEST_CASE("the exchange gives every subdomain bitwise the ghost zones of the undecomposed array") {
  const std::vector<std::array<std::array<BoundaryKind, 2>, 3>> conditions = {
      {{{P, P}, {P, P}, {P, P}}}, {{{S, A}, {V, S}, {A, V}}}, {{{P, P}, {A, A}, {N, N}}}, {{{V, V}, {P, P}, {S, S}}}};
  int ran = 0;
  for (const auto& kinds : conditions)
    for (int ghost : {0, 1, 3}) {
      const ProgramField f = test::halo_field(ghost, kinds);
      const bool writes_all = kinds[0][0] != N && kinds[2][0] != N;
      for (bool poison : {false, true}) {
        if (poison && !writes_all) continue;  // "none" leaves the global ghosts as they were
        ran += check_exchange(f, 1, {23, 1, 1}, RankGrid{{2, 1, 1}}, poison);
        ran += check_exchange(f, 1, {23, 1, 1}, RankGrid{{5, 1, 1}}, poison);
        ran += check_exchange(f, 2, {17, 9, 1}, RankGrid{{3, 2, 1}}, poison);
        ran += check_exchange(f, 2, {17, 9, 1}, RankGrid{{1, 2, 1}}, poison);
        for (const RankGrid g : {RankGrid{{2, 1, 1}}, RankGrid{{3, 1, 1}}, RankGrid{{2, 2, 1}}, RankGrid{{1, 1, 3}}, RankGrid{{2, 2, 2}},
                                 RankGrid{{4, 2, 1}}, RankGrid{{8, 1, 1}}, RankGrid{{1, 1, 1}}}) {
          ran += check_exchange(f, 3, {13, 11, 9}, g, poison);
        }
      }
    }
  // Most splits run; those refused are thin at a mirrored face (ghost 3).
  CHECK(ran >= 130);
  MESSAGE(ran << " exchanges checked");
}
