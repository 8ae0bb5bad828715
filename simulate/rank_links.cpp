#include "rank_links.hpp"

#include <cmath>
#include <tuple>

#include "gpen/generator/associative_op.hpp"

namespace gpen::sim {

bool exchanged_face(const ProgramField& f, const Decomposition& d, int rank, int axis, int side) {
  if (axis >= d.dims() || d.grid().ranks[static_cast<std::size_t>(axis)] < 2) return false;
  return d.neighbour(rank, axis, side, f.boundary[static_cast<std::size_t>(axis)][static_cast<std::size_t>(side)].kind == BoundaryKind::Periodic) >= 0;
}

std::vector<double> fold_over_ranks(const std::vector<const AssociativeOp*>& ops, const std::vector<std::vector<double>>& per_rank) {
  std::vector<double> v;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    double x = ops[i]->identity;
    for (const auto& rank : per_rank) x = apply_op(*ops[i], x, rank.at(i));
    v.push_back(x);
  }
  return v;
}

std::vector<const AssociativeOp*> output_ops(const std::vector<ReduceUse>& rs) {
  std::vector<const AssociativeOp*> ops;
  for (const ReduceUse& r : rs)
    for (const auto& o : r.use.spec.outputs) ops.push_back(o.op.get());
  return ops;
}

std::vector<std::vector<double>> per_rank_values(const std::vector<double>& gathered, int ranks) {
  const std::size_t each = gathered.size() / static_cast<std::size_t>(ranks);
  std::vector<std::vector<double>> out;
  for (int r = 0; r < ranks; ++r) {
    const auto first = gathered.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r) * each);
    out.emplace_back(first, first + static_cast<std::ptrdiff_t>(each));
  }
  return out;
}

bool acts_as_max(const AssociativeOp& op) {
  const double samples[][2] = {{1, 2}, {2, 1}, {-3, 5}, {5, -3}, {-7, -2}, {0.5, 0.5}, {-1e300, 1e-300}};
  for (const auto& s : samples)
    if (apply_op(op, s[0], s[1]) != std::fmax(s[0], s[1])) return false;
  return true;
}

std::optional<NonFinite> first_over_ranks(const std::optional<NonFinite>& mine, const Subdomain& s, RankLinks& links) {
  // Each rank's: found, field, global x, y, z, value (coordinates exact in a double).
  std::vector<double> v(6, 0);
  if (mine) {
    v = {1, static_cast<double>(mine->field), static_cast<double>(s.offset[0] + mine->at[0]), static_cast<double>(s.offset[1] + mine->at[1]),
         static_cast<double>(s.offset[2] + mine->at[2]), mine->value};
  }
  std::optional<NonFinite> first;
  auto key = [](const NonFinite& n) { return std::make_tuple(n.field, n.at[2], n.at[1], n.at[0]); };
  for (const std::vector<double>& r : per_rank_values(links.gather(v), links.decomposition().count())) {
    if (r[0] == 0) continue;
    const NonFinite n{static_cast<int>(r[1]), {static_cast<long long>(r[2]), static_cast<long long>(r[3]), static_cast<long long>(r[4])}, r[5]};
    if (!first || key(n) < key(*first)) first = n;
  }
  return first;
}

}  // namespace gpen::sim
