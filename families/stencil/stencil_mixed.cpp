#include "gpen/families/stencil/stencil_mixed.hpp"

#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include <fmt/format.h>

namespace gpen {
namespace {

using Row = std::vector<Rational>;

// M = P Q exactly: Q's rows a basis of M's rows (reduced row echelon form,
// each scaled to integers without a common factor, the first positive),
// P[i][r] the weight of Q's row r in M's row i.
struct Factors {
  std::vector<Row> q;
  std::vector<Row> p;
};

// The integer row `row` is a multiple of: row / s, and s.
Rational primitive_scale(const Row& row) {
  Rational lcm_den(1);
  for (const auto& v : row)
    if (!v.is_zero()) lcm_den = lcm_den * Rational(v.den(), std::gcd(lcm_den.num(), v.den()));
  std::int64_t g = 0;
  for (const auto& v : row) g = std::gcd(g, (v * lcm_den).num());
  Rational s = lcm_den / Rational(g);
  for (const auto& v : row)
    if (!v.is_zero()) return v.num() < 0 ? -s : s;
  return s;
}

// Throws std::overflow_error where exact arithmetic leaves 64 bits.
Factors factor(const std::vector<Row>& m) {
  std::vector<Row> r = m;
  std::vector<std::size_t> pivots;
  const std::size_t cols = m.empty() ? 0 : m[0].size();
  for (std::size_t c = 0; c < cols && pivots.size() < r.size(); ++c) {
    const std::size_t top = pivots.size();
    std::size_t at = top;
    while (at < r.size() && r[at][c].is_zero()) ++at;
    if (at == r.size()) continue;
    std::swap(r[top], r[at]);
    const Rational lead = r[top][c];
    for (auto& v : r[top]) v /= lead;
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (i == top || r[i][c].is_zero()) continue;
      const Rational f = r[i][c];
      for (std::size_t k = 0; k < cols; ++k) r[i][k] -= f * r[top][k];
    }
    pivots.push_back(c);
  }
  Factors f;
  f.p.assign(m.size(), Row(pivots.size()));
  for (std::size_t b = 0; b < pivots.size(); ++b) {
    const Rational s = primitive_scale(r[b]);
    Row q = r[b];
    for (auto& v : q) v *= s;
    f.q.push_back(q);
    // Row i of the echelon form's basis weighs M[i][pivot]; Q's row is s times it.
    for (std::size_t i = 0; i < m.size(); ++i) f.p[i][b] = m[i][pivots[b]] / s;
  }
  return f;
}

std::size_t nonzeros(const std::vector<Row>& rows) {
  std::size_t n = 0;
  for (const auto& row : rows)
    for (const auto& v : row) n += !v.is_zero();
  return n;
}

// e with every linear combination in it replaced by on_linear's (null:
// kept), each node rewritten once (`memo`, by node: shared subexpressions
// stay shared).
template <class F>
IrPtr map_linear(const IrPtr& e, std::map<const Ir*, IrPtr>& memo, F&& on_linear) {
  if (const auto it = memo.find(e.get()); it != memo.end()) return it->second;
  IrPtr out = e;
  if (e->kind == Ir::Kind::Linear) {
    if (IrPtr l = on_linear(*e)) out = std::move(l);
  } else {
    std::vector<IrPtr> args;
    bool same = true;
    for (const auto& a : e->args) {
      args.push_back(map_linear(a, memo, on_linear));
      same &= args.back() == a;
    }
    if (!same) {
      auto copy = std::make_shared<Ir>(*e);
      copy->args = std::move(args);
      out = copy;
    }
  }
  return memo[e.get()] = out;
}

// r such that b = r a, the same keys in both; none where there is no such r.
template <class Key>
std::optional<Rational> ratio(const std::map<Key, Rational>& a, const std::map<Key, Rational>& b) {
  if (a.size() != b.size() || a.empty()) return std::nullopt;
  std::optional<Rational> r;
  for (const auto& [key, w] : a) {
    const auto it = b.find(key);
    if (it == b.end()) return std::nullopt;
    if (!r) r = it->second / w;
    if (it->second != *r * w) return std::nullopt;
  }
  return r;
}

class Splitter {
 public:
  Splitter(int inputs, std::array<int, 3> kernel_axis, bool xz_along_z) : inputs_(inputs), kernel_axis_(kernel_axis), xz_along_z_(xz_along_z) {}

  IrPtr rewrite(const IrPtr& e) {
    return map_linear(e, done_, [&](const Ir& l) { return split(l); });
  }

  std::vector<MixedIntermediate> mids() const { return mids_; }

  // After every root is split: the terms of a linear combination that are
  // an intermediate times a factor (D1(uy, y), where D1(D1(uy, y), x) made
  // an intermediate of it) read the intermediate at the point instead, one
  // value (a register of a column's queue, or a load from the warp's row)
  // in place of the inner stencil's loads. Exact but for the order of the
  // sums: c times the intermediate's terms subtracted (the line's cancel),
  // c g(p) added.
  IrPtr reuse(const IrPtr& e) {
    return map_linear(e, reused_, [&](const Ir& l) { return reuse_in(l); });
  }

 private:
  // reuse() of one linear combination; null where nothing changes.
  IrPtr reuse_in(const Ir& e) {
    std::vector<Term> terms = e.terms;
    bool changed = false;
    // (input, axis) -> its terms off the point along that axis alone
    std::map<std::pair<int, int>, std::map<int, Rational>> lines;
    for (const auto& t : e.terms) {
      if (t.access.field >= inputs_) continue;
      int axes = 0, axis = 0;
      for (int ax = 0; ax < 3; ++ax)
        if (t.access.off[ax] != 0) ++axes, axis = ax;
      if (axes == 1) lines[{t.access.field, axis}][t.access.off[axis]] = t.coeff;
    }
    for (const auto& [key, line] : lines) {
      std::vector<Term> swap;  // the line's terms out, the intermediate's read in
      try {
        const auto [g, c] = intermediate_of(key.first, key.second, line);
        if (g < 0) continue;
        for (const auto& t : mids_[static_cast<std::size_t>(g)].terms) swap.push_back({-c * t.coeff, t.access});
        swap.push_back({c, Access{inputs_ + g, {0, 0, 0}}});
      } catch (const std::overflow_error&) {
        continue;  // weights past 64 bits: read as written
      }
      terms.insert(terms.end(), swap.begin(), swap.end());
      changed = true;
    }
    return changed ? ir_linear(std::move(terms)) : nullptr;
  }

  // The linear combination with its blocks split, or null when none is.
  IrPtr split(const Ir& e) {
    // (input, outer axis, inner axis) -> its terms
    std::map<std::tuple<int, int, int>, std::vector<Term>> blocks;
    std::vector<Term> rest;
    for (const auto& t : e.terms) {
      std::vector<int> axes;
      for (int ax = 0; ax < 3; ++ax)
        if (t.access.off[ax] != 0) axes.push_back(ax);
      if (axes.size() != 2) {
        rest.push_back(t);
        continue;
      }
      // Outer: the kernel's x if the pair has it, else its z; z for x and z
      // where the caller asks.
      const int k0 = kernel_axis_[axes[0]], k1 = kernel_axis_[axes[1]];
      const bool first_outer = (k0 == 2 && (k1 != 0 || xz_along_z_)) || (k0 == 0 && !(k1 == 2 && xz_along_z_));
      blocks[{t.access.field, first_outer ? axes[0] : axes[1], first_outer ? axes[1] : axes[0]}].push_back(t);
    }
    bool changed = false;
    for (const auto& [key, terms] : blocks) {
      if (split_block(std::get<0>(key), std::get<1>(key), std::get<2>(key), terms, rest)) changed = true;
      else rest.insert(rest.end(), terms.begin(), terms.end());
    }
    return changed ? ir_linear(std::move(rest)) : nullptr;
  }

  // Appends the reads of intermediates that stand for `terms` to `out`;
  // false (nothing appended) when the split would not read fewer values.
  bool split_block(int field, int outer, int inner, const std::vector<Term>& terms, std::vector<Term>& out) {
    std::map<int, std::size_t> row_of, col_of;
    for (const auto& t : terms) {
      row_of.emplace(t.access.off[outer], 0);
      col_of.emplace(t.access.off[inner], 0);
    }
    std::vector<int> row_off, col_off;
    for (auto& [o, i] : row_of) i = (row_off.push_back(o), row_off.size() - 1);
    for (auto& [o, i] : col_of) i = (col_off.push_back(o), col_off.size() - 1);
    std::vector<Row> m(row_off.size(), Row(col_off.size()));
    for (const auto& t : terms) m[row_of[t.access.off[outer]]][col_of[t.access.off[inner]]] = t.coeff;
    Factors f;
    try {
      f = factor(m);
    } catch (const std::overflow_error&) {
      return false;  // read as written
    }
    if (nonzeros(f.p) + nonzeros(f.q) >= terms.size()) return false;
    for (std::size_t b = 0; b < f.q.size(); ++b) {
      MixedIntermediate g;
      g.field = field;
      g.inner_axis = inner;
      g.outer_axis = kernel_axis_[outer];
      for (std::size_t c = 0; c < col_off.size(); ++c) {
        if (f.q[b][c].is_zero()) continue;
        Access a{field, {0, 0, 0}};
        a.off[inner] = col_off[c];
        g.terms.push_back({f.q[b][c], a});
      }
      const int index = intern(std::move(g));
      for (std::size_t i = 0; i < row_off.size(); ++i) {
        if (f.p[i][b].is_zero()) continue;
        Access a{inputs_ + index, {0, 0, 0}};
        a.off[outer] = row_off[i];
        out.push_back({f.p[i][b], a});
        mids_[index].reach = std::max(mids_[index].reach, std::abs(row_off[i]));
      }
    }
    return true;
  }

  // The intermediate whose terms off the point are `line` (input `field`,
  // user axis `axis`, offset -> coefficient) divided by c, and c; -1 where
  // none is or it would not read fewer shared values: a column's queue
  // (read along z) is preferred, and a warp's row is not read for terms
  // along the kernel's z, which a column's queue may hold.
  std::pair<int, Rational> intermediate_of(int field, int axis, const std::map<int, Rational>& line) const {
    if (line.size() < 2) return {-1, Rational(0)};
    std::pair<int, Rational> best{-1, Rational(0)};
    for (std::size_t g = 0; g < mids_.size(); ++g) {
      const MixedIntermediate& m = mids_[g];
      if (m.field != field || m.inner_axis != axis) continue;
      if (m.outer_axis == 0 && kernel_axis_[axis] == 2) continue;
      std::map<int, Rational> own;  // its terms lie off the point: two axes each before the split
      for (const auto& t : m.terms) own[t.access.off[axis]] = t.coeff;
      const std::optional<Rational> c = ratio(own, line);
      if (!c) continue;
      if (best.first < 0 || (m.outer_axis == 2 && mids_[static_cast<std::size_t>(best.first)].outer_axis != 2)) best = {static_cast<int>(g), *c};
    }
    return best;
  }

  // The index of the intermediate equal to g (the same input, axis and
  // coefficients), added if new.
  int intern(MixedIntermediate g) {
    std::string key = fmt::format("{}/{}/{}", g.field, g.inner_axis, g.outer_axis);
    for (const auto& t : g.terms) key += fmt::format("/{}@{}", t.coeff.str(), t.access.off[g.inner_axis]);
    const auto [it, fresh] = index_.emplace(key, static_cast<int>(mids_.size()));
    if (fresh) mids_.push_back(std::move(g));
    return it->second;
  }

  int inputs_;
  std::array<int, 3> kernel_axis_;
  bool xz_along_z_;
  std::map<const Ir*, IrPtr> done_;
  std::map<const Ir*, IrPtr> reused_;
  std::map<std::string, int> index_;
  std::vector<MixedIntermediate> mids_;
};

// Merges intermediates of `split` read along x (and as far) that every
// linear combination reads together or not at all, with weights in one
// proportion r: sum_i a_i g(i) + sum_i r a_i h(i) = sum_i a_i (g + r h)(i).
// A warp's row and 6 shared loads a point fewer; queues read along z stay
// apart (merged, induction3d float32 took 190 registers against 146 and
// ran 0.83x; bench/RESULTS.md, "thirty-ninth session").
// Decided on each combination's own terms, so an expression and its common
// subexpressions shared merge alike (the plan splits the one, the unit the
// other).
class Merger {
 public:
  Merger(MixedSplit& split, int inputs) : s_(split), inputs_(inputs) {}

  void run() {
    const std::size_t n = s_.mids.size();
    if (n < 2) return;
    for (const auto& r : s_.roots) gather(*r);
    std::vector<std::size_t> rep(n);
    std::vector<Rational> weight(n, Rational(1));  // of h's terms in its representative
    for (std::size_t g = 0; g < n; ++g) rep[g] = g;
    for (std::size_t g = 0; g < n; ++g) {
      if (rep[g] != g) continue;
      for (std::size_t h = g + 1; h < n; ++h)
        if (rep[h] == h && s_.mids[g].outer_axis == 0 && s_.mids[h].outer_axis == 0 && s_.mids[h].reach == s_.mids[g].reach)
          if (const auto r = proportion(g, h)) rep[h] = g, weight[h] = *r;
    }
    // The merged intermediates, each scaled back to integers without a
    // common factor (its reads divided by that scale).
    std::vector<MixedIntermediate> mids;
    for (std::size_t g = 0; g < n; ++g) {
      if (rep[g] != g) continue;
      index_[g] = static_cast<int>(mids.size());
      MixedIntermediate m = s_.mids[g];
      std::map<Access, Rational> sum;
      for (std::size_t h = g; h < n; ++h) {
        if (rep[h] != g) continue;
        if (h != g) m.also.emplace_back(s_.mids[h].field, s_.mids[h].inner_axis);
        for (const auto& t : s_.mids[h].terms) sum[t.access] += weight[h] * t.coeff;
      }
      Row row;
      for (const auto& [a, c] : sum) row.push_back(c);
      const Rational scale = primitive_scale(row);
      m.terms.clear();
      for (const auto& [a, c] : sum)
        if (!c.is_zero()) m.terms.push_back({c * scale, a});
      read_scale_[g] = Rational(1) / scale;
      mids.push_back(std::move(m));
    }
    if (mids.size() == n) return;
    rep_ = rep;
    std::vector<IrPtr> roots;
    for (const auto& r : s_.roots) roots.push_back(rebuild(r));
    s_.roots = std::move(roots);
    s_.mids = std::move(mids);
  }

 private:
  using Weights = std::map<std::array<int, 3>, Rational>;  // offset -> weight

  void gather(const Ir& e) {
    if (!seen_.insert(&e).second) return;
    if (e.kind == Ir::Kind::Linear) {
      std::map<int, Weights> reads;
      for (const auto& t : e.terms)
        if (t.access.field >= inputs_) reads[t.access.field - inputs_][t.access.off] = t.coeff;
      if (!reads.empty()) combos_.push_back(std::move(reads));
    }
    for (const auto& a : e.args) gather(*a);
  }

  // r such that every combination reads h with r times g's weights (and
  // neither where it reads one), if there is one.
  std::optional<Rational> proportion(std::size_t g, std::size_t h) const {
    std::optional<Rational> r;
    for (const auto& reads : combos_) {
      const auto a = reads.find(static_cast<int>(g)), b = reads.find(static_cast<int>(h));
      if ((a == reads.end()) != (b == reads.end())) return std::nullopt;
      if (a == reads.end()) continue;
      const std::optional<Rational> here = ratio(a->second, b->second);
      if (!here || (r && *here != *r)) return std::nullopt;
      r = here;
    }
    return r;
  }

  IrPtr rebuild(const IrPtr& e) {
    return map_linear(e, done_, [&](const Ir& l) {
      std::vector<Term> terms;
      for (auto t : l.terms) {
        if (t.access.field >= inputs_) {
          const auto g = static_cast<std::size_t>(t.access.field - inputs_);
          if (rep_[g] != g) continue;  // summed into its representative
          t.access.field = inputs_ + index_.at(g);
          t.coeff = t.coeff * read_scale_.at(g);
        }
        terms.push_back(t);
      }
      return ir_linear(std::move(terms));
    });
  }

  MixedSplit& s_;
  int inputs_;
  std::set<const Ir*> seen_;
  std::vector<std::map<int, Weights>> combos_;  // each linear combination's reads of intermediates
  std::vector<std::size_t> rep_;
  std::map<std::size_t, int> index_;
  std::map<std::size_t, Rational> read_scale_;
  std::map<const Ir*, IrPtr> done_;
};

}  // namespace

MixedSplit split_mixed_derivatives(const std::vector<IrPtr>& roots, int inputs, std::array<int, 3> kernel_axis, bool xz_along_z) {
  Splitter s(inputs, kernel_axis, xz_along_z);
  MixedSplit out;
  for (const auto& r : roots) out.roots.push_back(s.rewrite(r));
  for (auto& r : out.roots) r = s.reuse(r);
  out.mids = s.mids();
  try {
    Merger(out, inputs).run();  // changes `out` only when done
  } catch (const std::overflow_error&) {
    // weights past 64 bits: the intermediates stay apart
  }
  return out;
}

}  // namespace gpen
