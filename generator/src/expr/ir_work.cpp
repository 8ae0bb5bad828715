#include "gpen/generator/ir_work.hpp"

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

class Counter {
 public:
  // Work of e as written: shared nodes counted at every use (memoised by
  // node, so that chains of shared lets cost no more than their length).
  std::pair<double, double> written(const Ir& e) {
    if (const auto it = written_.find(&e); it != written_.end()) return it->second;
    std::pair<double, double> w{own_reads(e), own_ops(e)};
    for (const auto& a : e.args) {
      const auto c = written(*a);
      w.first += c.first;
      w.second += c.second;
    }
    return written_[&e] = w;
  }
  // The structural id of e; the first node of each id adds its own work.
  int id(const Ir& e) {
    if (const auto it = ids_.find(&e); it != ids_.end()) return it->second;
    std::string key = fmt::format("{}|{}|{}|{}|{}", static_cast<int>(e.kind), e.number.exact ? e.number.r.str() : fmt::format("{}", e.number.d),
                                  e.param, static_cast<int>(e.fn), access_key(e.access));
    for (const auto& t : e.terms) key += "|" + t.coeff.str() + "*" + access_key(t.access);
    for (const auto& a : e.args) key += fmt::format("|#{}", id(*a));
    const auto [it, fresh] = by_key_.emplace(key, static_cast<int>(by_key_.size()));
    if (fresh) {
      work_.distinct_ops += own_ops(e);
      if (e.kind == Ir::Kind::Field) reads_.insert(access_key(e.access));
      for (const auto& t : e.terms) reads_.insert(access_key(t.access));
    }
    return ids_[&e] = it->second;
  }
  IrWork result() {
    work_.distinct_reads = static_cast<double>(reads_.size());
    return work_;
  }
  IrWork work_;

 private:
  std::map<const Ir*, std::pair<double, double>> written_;
  std::map<const Ir*, int> ids_;
  std::map<std::string, int> by_key_;
  std::set<std::string> reads_;
};

}  // namespace

IrWork ir_work(const std::vector<IrPtr>& roots) {
  Counter c;
  for (const auto& r : roots) {
    const auto w = c.written(*r);
    c.work_.reads += w.first;
    c.work_.ops += w.second;
    c.id(*r);
  }
  return c.result();
}

}  // namespace gpen
