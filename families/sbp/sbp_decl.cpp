// The "sbp" object of an SBP spec: the operator's coefficients, its axes
// and spacing, checked by check_sbp (sbp_check.cpp).
#include "gpen/families/sbp/sbp_decl.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpen/families/sbp/sbp_check.hpp"
#include "gpen/generator/limits.hpp"

namespace gpen {
namespace {

std::vector<Rational> rationals(const JsonReader& reader, const std::string& ptr, std::size_t most) {
  std::vector<Rational> v;
  const std::size_t n = reader.array(ptr, true, most);
  for (std::size_t i = 0; i < n; ++i) v.push_back(reader.rational(json_pointer_join(ptr, i)));
  return v;
}

std::vector<std::vector<Rational>> rows(const JsonReader& reader, const std::string& ptr) {
  std::vector<std::vector<Rational>> v;
  const std::size_t n = reader.array(ptr, true, kMaxSbpRows);
  for (std::size_t i = 0; i < n; ++i) v.push_back(rationals(reader, json_pointer_join(ptr, i), kMaxSbpWidth));
  return v;
}

// /sbp/spacing: one param for every axis, or one per axis.
void spacing(SpecReading& in, const std::string& ptr) {
  SbpDecl& d = in.spec.sbp();
  auto param = [&](const std::string& p) {
    const std::string name = in.reader.string(p);
    std::vector<std::string> names;
    for (std::size_t k = 0; k < in.spec.params.size(); ++k) {
      if (in.spec.params[k].name == name) return static_cast<int>(k);
      names.push_back(in.spec.params[k].name);
    }
    if (!in.names_sound || in.broken.count(name)) throw UnitFailed{};  // declared, but its declaration failed
    in.src->fail(p, fmt::format("no param named '{}'{}", name, did_you_mean(name, names)), "the name of a param declared in /params (the grid spacing)");
    return -1;
  };
  if (in.reader.at(ptr).is_array()) {
    const std::size_t ns = in.reader.array(ptr, false, 3);
    if (ns != d.axes.size())
      in.src->fail(ptr, fmt::format("{} spacings for {} axes", ns, d.axes.size()), "one param name per entry of /sbp/axes, or one name for all");
    for (std::size_t i = 0; i < ns; ++i) d.spacing[i] = param(json_pointer_join(ptr, i));
  } else {
    d.spacing.assign(d.axes.size(), param(ptr));
  }
}

}  // namespace

// The SAT term of u_n = 0 at both ends, -H^-1 (B S u), folded into the
// first closure row of each side: at the left B[0][0] = -1 and S's first
// row is boundary_derivative, so row 0 gains boundary_derivative / norm[0];
// at the right S's last row is the mirror with the sign flipped and
// B = +1: the same gain on right[0] (read from u[n-1] down).
void fold_neumann_sat(SbpDecl& d) {
  for (auto* row : {&d.left[0], &d.right[0]}) {
    if (row->size() < d.boundary_derivative.size()) row->resize(d.boundary_derivative.size());
    for (std::size_t j = 0; j < d.boundary_derivative.size(); ++j) (*row)[j] += d.boundary_derivative[j] / d.norm[0];
  }
}

// An SBP operator: one input, one output, no ghost zones (closures
// replace them); the math is checked by check_sbp (sbp_check.cpp).
void read_sbp(SpecReading& in) {
  if (in.fields_whole) in.diag.unit([&] { in.one_input_one_output(in.spec.kind, "an SBP operator closes at the boundary with its own rows"); });
  if (in.reader.has("/params")) in.params();
  SbpDecl& d = in.spec.sbp();
  d.pointer = "/sbp";
  in.tunables_known = false;
  if (!in.reader.has("/sbp")) return;
  JsonReader::Keys keys;
  if (!in.diag.unit([&] {
        keys = in.reader.object("/sbp", {"derivative", "order", "boundary_order", "axes", "interior", "left", "norm"},
                         {"source", "description", "spacing", "right", "boundary_derivative", "sat"});
      }))
    return;  // no object
  // A misspelt optional key (say "rigth") leaves a default that check_sbp
  // would blame: with unknown keys the operator is not checked.
  bool whole = keys.complete && keys.meant.empty();
  // One key of /sbp as a unit; false when absent or wrong.
  const auto part = [&](const char* key, auto&& fn) {
    const std::string p = std::string("/sbp/") + key;
    const bool ok = in.reader.has(p) && in.diag.unit([&] { fn(p); });
    whole &= ok || !in.reader.has(p);
    return ok;
  };
  part("source", [&](const std::string& p) { d.source_text = in.reader.string(p); });
  const bool derivative_ok = part("derivative", [&](const std::string& p) { d.derivative = static_cast<int>(in.reader.integer(p, 1, 2)); });
  // Without a valid order, boundary_order is checked against the largest.
  if (!part("order", [&](const std::string& p) { d.order = static_cast<int>(in.reader.integer(p, 1, 16)); })) d.order = 16;
  part("boundary_order", [&](const std::string& p) { d.boundary_order = static_cast<int>(in.reader.integer(p, 1, d.order)); });
  const bool axes_ok = part("axes", [&](const std::string& p) {
    static const char* axes[] = {"x", "y", "z"};
    const std::size_t na = in.reader.array(p, true, 3);
    for (std::size_t i = 0; i < na; ++i) {
      const std::string pi = json_pointer_join(p, i);
      const std::string ax = in.reader.choice(pi, std::vector<std::string>(axes, axes + in.spec.dims));
      const int a = static_cast<int>(std::find(axes, axes + 3, ax) - axes);
      if (std::count(d.axes.begin(), d.axes.end(), a)) in.src->fail(pi, fmt::format("axis {} appears twice", ax), "distinct axes");
      d.axes.push_back(a);
    }
  });
  d.spacing.assign(d.axes.size(), -1);
  if (axes_ok) part("spacing", [&](const std::string& p) { spacing(in, p); });
  else whole = false;
  part("interior", [&](const std::string& p) { d.interior = rationals(in.reader, p, kMaxSbpWidth); });
  part("left", [&](const std::string& p) { d.left = rows(in.reader, p); });
  d.right_given = part("right", [&](const std::string& p) { d.right = rows(in.reader, p); });
  part("norm", [&](const std::string& p) { d.norm = rationals(in.reader, p, kMaxSbpRows); });
  part("boundary_derivative", [&](const std::string& p) {
    // S's first row belongs to a second derivative's SBP property (H D2 = -M + B S); a first derivative has no S.
    if (derivative_ok && d.derivative == 1)
      in.src->fail(p, "a boundary derivative for a first derivative", "no \"boundary_derivative\": only \"derivative\": 2 has one (the first row of S)");
    d.boundary_derivative = rationals(in.reader, p, kMaxSbpWidth);
  });
  part("sat", [&](const std::string& p) {
    in.reader.choice(p, {"neumann"});
    d.neumann_sat = true;
  });
  in.tunables_known = axes_ok;
  if (!whole) return;  // the math of a part-read operator would blame what is right
  if (!d.right_given) {
    const Rational sign = d.derivative % 2 ? Rational(-1) : Rational(1);
    for (const auto& row : d.left) {
      d.right.emplace_back();
      for (const auto& c : row) d.right.back().push_back(sign * c);
    }
  }
  if (!in.diag.unit([&] { check_sbp(d, *in.src); })) return;
  if (d.neumann_sat)
    in.diag.unit([&] {
      if (d.derivative != 2 || d.boundary_derivative.empty())
        in.src->fail("/sbp/sat", "a Neumann SAT term folds B S into a second derivative's closures",
                     "\"derivative\": 2 with its \"boundary_derivative\" (the first row of S)");
      fold_neumann_sat(d);
    });
}

}  // namespace gpen
