#include "gpen/families/pairwise/pairwise_scope.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include <fmt/format.h>

namespace gpen {

const char* to_string(Reduce r) { return r == Reduce::Sum ? "sum" : r == Reduce::Min ? "min" : "max"; }

double reduce_identity(Reduce r) { return r == Reduce::Sum ? 0.0 : r == Reduce::Min ? HUGE_VAL : -HUGE_VAL; }

std::vector<int> PairwiseDecl::read_by(bool source, const std::vector<IrPtr>& exprs) const {
  std::vector<Access> acc;
  for (const auto& e : exprs) collect_accesses(*e, acc);
  std::set<int> used;
  for (const auto& a : acc)
    if (values[a.field].source == source) used.insert(a.field);
  return {used.begin(), used.end()};
}

Spec pairwise_scope(const Spec& spec) {
  Spec s;
  s.name = spec.name;
  s.kind = "pairwise";
  s.dtype = spec.dtype;
  s.dims = 1;
  const auto& values = spec.pairwise().values;
  for (std::size_t i = 0; i < values.size(); ++i)
    s.fields.push_back({values[i].name, FieldDecl::Role::Input, 0, static_cast<int>(i), spec.pairwise().pointer});
  s.params = spec.params;
  return s;
}

namespace {

void visit_names(const Ast& a, const std::function<void(const Ast&)>& fn) {
  if (a.kind == Ast::Kind::Name) fn(a);
  for (const auto& x : a.args) visit_names(*x, fn);
}

}  // namespace

void check_pair_names(const Spec& spec, const Ast& ast, const JsonSource& src, const std::string& pointer) {
  const PairwiseDecl& d = spec.pairwise();
  auto fail = [&](const Ast& at, const std::string& msg, const std::string& expected) {
    src.fail_at(pointer, src.locate_in_string(pointer, at.offset), msg, expected);
  };
  auto readable = [&](const std::string& base) {
    std::vector<std::string> v;
    for (const auto& pv : d.values)
      if (pv.name.compare(0, pv.name.size() - 2, base) == 0 && pv.name.size() == base.size() + 2) v.push_back(pv.name);
    return v;
  };
  visit_names(ast, [&](const Ast& n) {
    const std::string& t = n.text;
    if (std::any_of(d.values.begin(), d.values.end(), [&](const PairValue& v) { return v.name == t; })) return;
    const bool suffixed = t.size() > 2 && (t.compare(t.size() - 2, 2, "_i") == 0 || t.compare(t.size() - 2, 2, "_j") == 0);
    const std::string base = suffixed ? t.substr(0, t.size() - 2) : t;
    const FieldDecl* f = spec.find_field(base);
    const bool coordinate = base == "ix" || base == "iy" || base == "iz";
    if (!suffixed && f && f->role == FieldDecl::Role::Input) {
      const auto r = readable(base);
      fail(n, fmt::format("field '{}' is read without saying at which end of the pair", t),
           fmt::format("{}: _i at the target, _j at the source", fmt::join(r, " or ")));
    }
    if (!suffixed && coordinate) fail(n, fmt::format("cell coordinate '{}' needs a suffix", t), fmt::format("{}_i (the target's) or {}_j (the source's)", t, t));
    if (!suffixed) return;  // params, lets and unknown names: the lowering says
    if (f && f->role == FieldDecl::Role::Output)
      fail(n, fmt::format("output field '{}' cannot be read in an expression", base), "an input field with _i or _j, a param or a let");
    if (f && f->set == FieldDecl::Set::Targets)
      fail(n, fmt::format("'{}' is a target field, read at the source here", base), fmt::format("{}_i, or declare '{}' with role \"source\"", base, base));
    if (f && f->set == FieldDecl::Set::Sources)
      fail(n, fmt::format("'{}' is a source field, read at the target here", base), fmt::format("{}_j, or declare '{}' with role \"target\"", base, base));
    if (coordinate && !d.grid)
      fail(n, fmt::format("cell coordinate '{}' outside a grid", t), "domain \"grid\" in /pairwise, or a field of the particles");
    if (coordinate) fail(n, fmt::format("'{}' is beyond the {}-D grid of this spec", t, spec.dims), "a coordinate of the grid's axes");
    // Any other suffixed name (a let or param with _i, an unknown field): the lowering says.
  });
}

}  // namespace gpen
