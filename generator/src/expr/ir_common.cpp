#include "gpen/generator/ir_common.hpp"

#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

namespace gpen {
namespace {

// A node's own work, its arguments' left out.
double own_reads(const Ir& e) { return e.kind == Ir::Kind::Field ? 1 : e.kind == Ir::Kind::Linear ? static_cast<double>(e.terms.size()) : 0; }
double own_ops(const Ir& e) {
  switch (e.kind) {
    case Ir::Kind::Const:
    case Ir::Kind::Param:
    case Ir::Kind::Field: return 0;
    case Ir::Kind::Linear: return static_cast<double>(e.terms.size());
    default: return 1;
  }
}

std::string access_key(const Access& a) { return fmt::format("{}@{},{},{}", a.field, a.off[0], a.off[1], a.off[2]); }

// One node for each structure: canonical(e) is the first node met that is
// structurally equal to e, with canonical arguments.
class Sharing {
 public:
  IrPtr canonical(const IrPtr& e) {
    if (const auto it = done_.find(e.get()); it != done_.end()) return it->second;
    std::vector<IrPtr> args;
    bool same = true;
    for (const auto& a : e->args) {
      args.push_back(canonical(a));
      same &= args.back() == a;
    }
    IrPtr node = e;
    if (!same) {
      auto copy = std::make_shared<Ir>(*e);
      copy->args = args;
      node = copy;
    }
    std::string key = fmt::format("{}|{}|{}|{}|{}", static_cast<int>(e->kind), e->number.exact ? e->number.r.str() : fmt::format("{}", e->number.d),
                                  e->param, static_cast<int>(e->fn), access_key(e->access));
    for (const auto& t : e->terms) key += "|" + t.coeff.str() + "*" + access_key(t.access);
    for (const auto& a : args) key += fmt::format("|#{}", static_cast<const void*>(a.get()));
    const auto [it, fresh] = by_key_.emplace(key, node);
    return done_[e.get()] = it->second;
  }

 private:
  std::map<const Ir*, IrPtr> done_;
  std::map<std::string, IrPtr> by_key_;
};

// Work as written: shared nodes counted at every use (memoised by node, so
// that chains of shared lets cost no more than their length).
std::pair<double, double> written(const Ir& e, std::map<const Ir*, std::pair<double, double>>& memo) {
  if (const auto it = memo.find(&e); it != memo.end()) return it->second;
  std::pair<double, double> w{own_reads(e), own_ops(e)};
  for (const auto& a : e.args) {
    const auto c = written(*a, memo);
    w.first += c.first;
    w.second += c.second;
  }
  return memo[&e] = w;
}

// The operations of each node once.
void distinct_ops(const Ir& e, std::set<const Ir*>& seen, double& ops) {
  if (!seen.insert(&e).second) return;
  ops += own_ops(e);
  for (const auto& a : e.args) distinct_ops(*a, seen, ops);
}

// A product, or a negated product: what a fused multiply-add can take.
bool product(const Ir& e) { return e.kind == Ir::Kind::Mul || (e.kind == Ir::Kind::Neg && e.args[0]->kind == Ir::Kind::Mul); }

// Every node of the shared DAG under `roots`, and whether each of its uses
// can fuse it: a sum or difference fuses the first product among its two
// arguments (an FMA has one product), a negation passes its own use on to
// its argument; a root's value is no one's. A node met again is not walked
// again, since what it uses does not depend on who uses it.
void uses(const Ir& e, bool fusible, std::map<const Ir*, bool>& fused) {
  const auto [it, fresh] = fused.emplace(&e, fusible);
  if (!fresh) {
    it->second = it->second && fusible;
    return;
  }
  const bool sum = e.kind == Ir::Kind::Add || e.kind == Ir::Kind::Sub;
  bool taken = false;  // a sum's one product taken
  for (const auto& a : e.args) {
    bool f = false;
    if (sum && !taken && product(*a)) f = taken = true;
    if (e.kind == Ir::Kind::Neg) f = fusible;
    uses(*a, f, fused);
  }
}

}  // namespace

std::vector<IrPtr> share_common_subexpressions(const std::vector<IrPtr>& roots) {
  Sharing s;
  std::vector<IrPtr> out;
  for (const auto& r : roots) out.push_back(s.canonical(r));
  return out;
}

IrWork ir_work(const std::vector<IrPtr>& roots) {
  IrWork w;
  std::map<const Ir*, std::pair<double, double>> memo;
  for (const auto& r : roots) {
    const auto c = written(*r, memo);
    w.reads += c.first;
    w.ops += c.second;
  }
  // Alive while its nodes are counted: the sets below hold their addresses.
  const std::vector<IrPtr> shared = share_common_subexpressions(roots);
  std::set<const Ir*> seen;
  std::vector<Access> reads;
  for (const auto& r : shared) {
    distinct_ops(*r, seen, w.distinct_ops);
    collect_accesses(*r, reads);
  }
  w.distinct_reads = static_cast<double>(reads.size());
  // Whether a product fuses into its uses is known once every use is: the
  // uses first, then the count.
  std::map<const Ir*, bool> fused;
  for (const auto& r : shared) uses(*r, false, fused);
  for (const auto& [node, in_fma] : fused) {
    switch (node->kind) {
      case Ir::Kind::Linear: {
        // A lone term of coefficient 1 or -1 is a copy or a negation.
        const bool unit = node->terms.size() == 1 && abs(node->terms[0].coeff) == 1;
        w.fma_pipe += unit ? 0 : static_cast<double>(node->terms.size());
        break;
      }
      case Ir::Kind::Add:
      case Ir::Kind::Sub: w.fma_pipe += 1; break;
      case Ir::Kind::Mul: w.fma_pipe += in_fma ? 0 : 1; break;
      case Ir::Kind::Div: w.divisions_and_calls += 1; break;
      case Ir::Kind::Call:
        // fma is one; abs an operand's modifier; the rest take other units
        // or several instructions.
        if (node->fn == MathFn::Fma) w.fma_pipe += 1;
        else if (node->fn != MathFn::Abs) w.divisions_and_calls += 1;
        break;
      default: break;  // constants, params, reads, negations (an operand's modifier)
    }
  }
  return w;
}

}  // namespace gpen
