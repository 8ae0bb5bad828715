// JSON -> Spec: shape checks with exact JSON pointers, then name resolution
// and lowering of every expression, then the checks that need the lowered
// form (ghost widths against the footprint).
#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "gpen/families/pairwise/device/pairwise_args.h"
#include "gpen/families/pairwise/pairwise_scope.hpp"
#include "gpen/families/sbp/sbp_check.hpp"
#include "gpen/families/scan/scan_op.hpp"
#include "gpen/generator/constraints.hpp"
#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/fornberg.hpp"
#include "gpen/generator/limits.hpp"
#include "gpen/generator/lower.hpp"
#include "gpen/generator/sha256.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen {

const char* to_string(Dtype d) { return d == Dtype::Float32 ? "float32" : "float64"; }
std::optional<Dtype> parse_dtype(const std::string& s) {
  if (s == "float32") return Dtype::Float32;
  if (s == "float64") return Dtype::Float64;
  return std::nullopt;
}
const char* axis_name(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }

std::string to_string(const TunableValue& v) {
  if (const auto* i = std::get_if<long long>(&v)) return std::to_string(*i);
  return std::get<std::string>(v);
}

namespace {

using nlohmann::json;

const char* type_name(const json& j) {
  switch (j.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::null: return "null";
    case json::value_t::number_float: return "a number";
    default: return "an integer";
  }
}

// Typed access to the document with errors that name the pointer.
class Reader {
 public:
  Reader(const JsonSource& src, Diagnostics& diag) : src_(src), diag_(diag) {}

  const json& at(const std::string& ptr) const { return src_.root().at(json::json_pointer(ptr)); }
  bool has(const std::string& ptr) const { return src_.root().contains(json::json_pointer(ptr)); }

  struct Keys {
    bool complete = true;         // every required key is there
    std::set<std::string> meant;  // known keys that an unknown one looks like (it was misspelt)
  };
  // The keys of the object at ptr. Each unknown key is recorded and each
  // missing required key too, unless an unknown key is its misspelling (one
  // mistake, one error); neither stops the caller, who decides what a missing
  // key costs. Throws when the value is no object.
  Keys object(const std::string& ptr, const std::vector<std::string>& required, const std::vector<std::string>& optional) const {
    const json& j = at(ptr);
    if (!j.is_object()) src_.fail(ptr, fmt::format("found {}", type_name(j)), "an object");
    std::vector<std::string> all = required;
    all.insert(all.end(), optional.begin(), optional.end());
    Keys k;
    k.meant = record_unknown_keys(j, ptr, all, src_, diag_);
    for (const auto& key : required) {
      if (j.contains(key)) continue;
      k.complete = false;
      if (!k.meant.count(key))
        diag_.unit([&] { src_.fail(ptr, fmt::format("missing key '{}'", key), fmt::format("an object with '{}'", key)); });
    }
    return k;
  }
  // object() for an entry that cannot go on without its required keys.
  Keys entry(const std::string& ptr, const std::vector<std::string>& required, const std::vector<std::string>& optional) const {
    Keys k = object(ptr, required, optional);
    if (!k.complete) throw UnitFailed{};
    return k;
  }

  // The length of the array at ptr, refused past `most` entries (limits.hpp).
  std::size_t array(const std::string& ptr, bool non_empty, std::size_t most) const {
    const json& j = at(ptr);
    if (!j.is_array()) src_.fail(ptr, fmt::format("found {}", type_name(j)), "an array");
    if (non_empty && j.empty()) src_.fail(ptr, "the array is empty", "at least one entry");
    src_.check_count(ptr, j.size(), most);
    return j.size();
  }

  std::string string(const std::string& ptr) const {
    const json& j = at(ptr);
    if (!j.is_string()) src_.fail(ptr, fmt::format("found {}", type_name(j)), "a string");
    return j.get<std::string>();
  }

  long long integer(const std::string& ptr, long long lo, long long hi) const {
    const json& j = at(ptr);
    if (!j.is_number_integer()) {
      // An integer past 64 bits is read as a double: say that it does not fit.
      const std::string raw = src_.raw_scalar(ptr);
      const bool too_big = j.is_number_float() && raw.find_first_of(".eE") == std::string::npos;
      src_.fail(ptr, too_big ? fmt::format("{} is out of range", quoted_text(raw, 40)) : fmt::format("found {}", type_name(j)),
                fmt::format("an integer in [{}, {}]", lo, hi));
    }
    const long long v = j.get<long long>();
    if (v < lo || v > hi) src_.fail(ptr, fmt::format("{} is out of range", v), fmt::format("an integer in [{}, {}]", lo, hi));
    return v;
  }

  bool boolean(const std::string& ptr) const {
    const json& j = at(ptr);
    if (!j.is_boolean()) src_.fail(ptr, fmt::format("found {}", type_name(j)), "true or false");
    return j.get<bool>();
  }

  double number(const std::string& ptr) const {
    const json& j = at(ptr);
    if (!j.is_number()) src_.fail(ptr, fmt::format("found {}", type_name(j)), "a number");
    return j.get<double>();
  }

  // A coefficient: an integer, a decimal written in the file, or "p/q".
  Rational rational(const std::string& ptr) const {
    const json& j = at(ptr);
    std::string text;
    if (j.is_number()) text = src_.raw_scalar(ptr);
    else if (j.is_string()) text = j.get<std::string>();
    else src_.fail(ptr, fmt::format("found {}", type_name(j)), "a number or a fraction string such as \"-1/12\"");
    auto r = Rational::parse(text);
    if (!r) src_.fail(ptr, fmt::format("'{}' is not an exact rational that fits in 64 bits", quoted_text(text)), "a number or a fraction string such as \"-1/12\"");
    return *r;
  }

  std::string choice(const std::string& ptr, const std::vector<std::string>& allowed) const {
    const std::string s = string(ptr);
    if (!std::count(allowed.begin(), allowed.end(), s)) {
      src_.fail(ptr, fmt::format("'{}' is not allowed here{}", quoted_text(s), did_you_mean(s, allowed)),
                fmt::format("one of: {}", fmt::join(allowed, ", ")));
    }
    return s;
  }

  std::string identifier(const std::string& ptr) const {
    const std::string s = string(ptr);
    const bool ok = !s.empty() && std::isalpha(static_cast<unsigned char>(s[0])) &&
                    std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }) &&
                    s.size() <= 64;
    if (!ok) src_.fail(ptr, fmt::format("'{}' is not a valid name", quoted_text(s, 80)), "a letter followed by letters, digits or '_' (at most 64)");
    return s;
  }

  const JsonSource& src() const { return src_; }

 private:
  const JsonSource& src_;
  Diagnostics& diag_;
};

// Every independent part of the spec is parsed as a unit of diag_ (see
// diagnostics.hpp): its error is recorded and the next part parsed. A part
// that needs one that failed is skipped, so that each mistake is reported
// once: a name whose declaration failed lands in broken_, and no expression
// that mentions it is lowered.
class SpecParser {
 public:
  SpecParser(std::shared_ptr<const JsonSource> src, std::optional<Dtype> dtype)
      : src_(std::move(src)), r_(*src_, diag_), dtype_override_(dtype) {}

  Spec parse() {
    diag_.unit([&] { parts(); });
    diag_.throw_if_any();
    if (!s_.is_scan() && !s_.is_sbp()) unused();
    return std::move(s_);
  }

 private:
  void parts() {
    s_.source = src_;
    nlohmann::json effective = src_->root();
    if (dtype_override_ && effective.is_object()) effective["dtype"] = to_string(*dtype_override_);
    s_.hash = sha256_hex(effective.dump());
    // The kind decides which other keys belong; without one, the stencil
    // keys are checked (and 'kind' reported missing).
    const json& root = r_.at("");
    s_.kind = "stencil";
    const bool has_kind = root.is_object() && root.contains("kind");
    if (has_kind ? !diag_.unit([&] { s_.kind = r_.choice("/kind", family_kinds()); }) : misspelt_kind(root)) {
      // The rest depends on the kind: only the keys any kind has, and what
      // every kind has, are checked.
      r_.object("", {}, {"$schema", "name", "kind", "description", "dtype", "dims", "fields", "params", "operators", "lets", "outputs",
                         "scan", "sbp", "pairwise", "tunables", "constraints"});
      common();
      return;
    }
    s_.decl = family_of(s_).declaration();
    Reader::Keys keys;
    if (s_.is_scan()) {
      keys = r_.object("", {"name", "kind", "dtype", "dims", "fields", "scan"}, {"$schema", "description", "tunables", "constraints"});
    } else if (s_.is_sbp()) {
      keys = r_.object("", {"name", "kind", "dtype", "dims", "fields", "sbp"}, {"$schema", "description", "params", "tunables", "constraints"});
    } else if (s_.is_pairwise()) {
      keys = r_.object("", {"name", "kind", "dtype", "dims", "fields", "pairwise", "outputs"},
                       {"$schema", "description", "params", "lets", "tunables", "constraints"});
    } else {
      keys = r_.object("", {"name", "kind", "dtype", "dims", "fields", "outputs"},
                       {"$schema", "description", "params", "operators", "lets", "tunables", "constraints"});
    }
    // A misspelt "params" (or operators, lets) hides names that expressions use.
    for (const char* k : {"params", "operators", "lets"})
      if (keys.meant.count(k)) names_sound_ = false;
    common();
    fields();
    if (s_.is_scan()) scan();
    else if (s_.is_sbp()) sbp();
    else {
      if (r_.has("/params")) params();
      if (s_.is_pairwise()) pairwise();
      if (r_.has("/operators")) operators();
      if (r_.has("/lets")) lets();
      if (r_.has("/outputs")) outputs();
    }
    // The built-in tunables depend on the scan's axis, the SBP's axes and the
    // pairwise domain: without those, tunables and constraints are not checked.
    if (tunables_known_) {
      s_.tunables = parse_tunables(s_, r_.has("/tunables") ? &r_.at("/tunables") : nullptr, *src_, diag_);
      s_.constraints = parse_constraints(s_, r_.has("/constraints") ? &r_.at("/constraints") : nullptr, *src_, diag_);
    }
    if (!s_.is_scan() && !s_.is_sbp() && !s_.is_pairwise() && dims_ok_) ghost_widths();
  }

  // Whether a key of the root looks like "kind" (then which keys belong is unknown).
  static bool misspelt_kind(const json& root) {
    if (!root.is_object()) return false;
    const std::vector<std::string> kind = {"kind"};
    for (auto it = root.begin(); it != root.end(); ++it)
      if (closest_name(it.key(), kind)) return true;
    return false;
  }

  // The keys every kind has. A wrong dtype or dims is taken as float64 and
  // 3-D, which allow the most, so that it causes no second error.
  void common() {
    if (r_.has("/name")) diag_.unit([&] { s_.name = r_.identifier("/name"); });
    if (r_.has("/description")) diag_.unit([&] { s_.description = r_.string("/description"); });
    if (r_.has("/dtype")) diag_.unit([&] { s_.dtype = *parse_dtype(r_.choice("/dtype", {"float32", "float64"})); });
    if (dtype_override_) s_.dtype = *dtype_override_;
    dims_ok_ = r_.has("/dims") && diag_.unit([&] { s_.dims = static_cast<int>(r_.integer("/dims", 1, 3)); });
  }

  // Runs the unit that declares the entry's name at `name_ptr`. When it
  // fails, the name is broken (expressions that mention it are not lowered);
  // when not even the name can be told, no expression is.
  template <class Fn>
  bool declaring(const std::string& name_ptr, Fn&& fn) {
    if (diag_.unit(std::forward<Fn>(fn))) return true;
    if (r_.has(name_ptr) && r_.at(name_ptr).is_string()) broken_.insert(r_.at(name_ptr).get<std::string>());
    else names_sound_ = false;
    return false;
  }

  // Whether `a` mentions a name whose declaration failed (for pair
  // expressions, m_j mentions the field m).
  bool mentions_broken(const Ast& a) const {
    if (a.kind == Ast::Kind::Name || a.kind == Ast::Kind::Call) {
      if (broken_.count(a.text)) return true;
      const std::string& t = a.text;
      if (s_.is_pairwise() && t.size() > 2 && (t.compare(t.size() - 2, 2, "_i") == 0 || t.compare(t.size() - 2, 2, "_j") == 0) &&
          broken_.count(t.substr(0, t.size() - 2)))
        return true;
    }
    return std::any_of(a.args.begin(), a.args.end(), [&](const AstPtr& x) { return mentions_broken(*x); });
  }

  // Lowering needs every name it could meet: a parsed expression that could
  // meet a name whose declaration failed is left (its errors would be that one's).
  void require_lowerable(const Ast& a) const {
    if (!names_sound_ || mentions_broken(a) || (s_.is_pairwise() && !pair_scope_)) throw UnitFailed{};
  }

  void declare(const std::string& name, const std::string& ptr) {
    if (s_.is_pairwise()) {
      // Pair expressions have no axes, but read every field with a suffix.
      if (find_math_function(name) || name == "ix" || name == "iy" || name == "iz")
        src_->fail(ptr, fmt::format("'{}' is reserved (a math function or a cell coordinate)", name), "another name");
      if (name.size() > 2 && (name.compare(name.size() - 2, 2, "_i") == 0 || name.compare(name.size() - 2, 2, "_j") == 0))
        src_->fail(ptr, fmt::format("'{}' ends in a pair suffix", name), "a name not ending in _i or _j: expressions add them (x_i, x_j)");
    } else if (name == "x" || name == "y" || name == "z" || find_math_function(name)) {
      src_->fail(ptr, fmt::format("'{}' is reserved (an axis or a math function)", name), "another name");
    }
    if (!names_.insert(name).second) src_->fail(ptr, fmt::format("'{}' is declared twice", name), "names unique across fields, params, operators and lets");
  }

  // The array at ptr as a unit of its own; false (and the names it would
  // declare unknown) when it is no array or too long.
  bool listed(const std::string& ptr, bool non_empty, std::size_t most) {
    if (diag_.unit([&] { r_.array(ptr, non_empty, most); })) return true;
    names_sound_ = false;
    return false;
  }

  void fields() {
    if (!r_.has("/fields") || !listed("/fields", true, kMaxFields)) {
      fields_whole_ = false;
      return;
    }
    const std::size_t n = r_.at("/fields").size();
    int in = 0, out = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/fields", i);
      fields_whole_ &= declaring(p + "/name", [&] {
        const Reader::Keys keys = r_.entry(p, {"name", "role"}, {"ghost", "description"});
        FieldDecl f;
        f.pointer = p;
        f.name = r_.identifier(p + "/name");
        declare(f.name, p + "/name");
        const std::string role = s_.is_pairwise() ? r_.choice(p + "/role", {"input", "target", "source", "output"})
                                                  : r_.choice(p + "/role", {"input", "output"});
        f.role = role == "output" ? FieldDecl::Role::Output : FieldDecl::Role::Input;
        f.set = role == "target" ? FieldDecl::Set::Targets : role == "source" ? FieldDecl::Set::Sources : FieldDecl::Set::Both;
        f.ghost = r_.has(p + "/ghost") ? static_cast<int>(r_.integer(p + "/ghost", 0, 64)) : 0;
        f.slot = f.role == FieldDecl::Role::Input ? in++ : out++;
        if (keys.meant.count("ghost")) ghost_misspelt_.insert(p);  // its ghost width is not the one meant
        s_.fields.push_back(f);
      });
    }
    if (fields_whole_ && out == 0) diag_.unit([&] { src_->fail("/fields", "no field has role \"output\"", "at least one output field"); });
  }

  // An SBP operator: one input, one output, no ghost zones (closures
  // replace them); the math is checked by check_sbp (sbp_check.cpp).
  void sbp() {
    if (fields_whole_) diag_.unit([&] { one_input_one_output("sbp", "an SBP operator closes at the boundary with its own rows"); });
    if (r_.has("/params")) params();
    SbpDecl& d = s_.sbp();
    d.pointer = "/sbp";
    tunables_known_ = false;
    if (!r_.has("/sbp")) return;
    Reader::Keys keys;
    if (!diag_.unit([&] {
          keys = r_.object("/sbp", {"derivative", "order", "boundary_order", "axes", "interior", "left", "norm"},
                           {"source", "description", "spacing", "right", "boundary_derivative"});
        }))
      return;  // no object
    // A misspelt optional key (say "rigth") leaves a default that check_sbp
    // would blame: with unknown keys the operator is not checked.
    bool whole = keys.complete && keys.meant.empty();
    // One key of /sbp as a unit; false when absent or wrong.
    const auto part = [&](const char* key, auto&& fn) {
      const std::string p = std::string("/sbp/") + key;
      const bool ok = r_.has(p) && diag_.unit([&] { fn(p); });
      whole &= ok || !r_.has(p);
      return ok;
    };
    part("source", [&](const std::string& p) { d.source_text = r_.string(p); });
    part("derivative", [&](const std::string& p) { d.derivative = static_cast<int>(r_.integer(p, 1, 2)); });
    // Without a valid order, boundary_order is checked against the largest.
    if (!part("order", [&](const std::string& p) { d.order = static_cast<int>(r_.integer(p, 1, 16)); })) d.order = 16;
    part("boundary_order", [&](const std::string& p) { d.boundary_order = static_cast<int>(r_.integer(p, 1, d.order)); });
    const bool axes_ok = part("axes", [&](const std::string& p) {
      static const char* axes[] = {"x", "y", "z"};
      const std::size_t na = r_.array(p, true, 3);
      for (std::size_t i = 0; i < na; ++i) {
        const std::string pi = json_pointer_join(p, i);
        const std::string ax = r_.choice(pi, std::vector<std::string>(axes, axes + s_.dims));
        const int a = static_cast<int>(std::find(axes, axes + 3, ax) - axes);
        if (std::count(d.axes.begin(), d.axes.end(), a)) src_->fail(pi, fmt::format("axis {} appears twice", ax), "distinct axes");
        d.axes.push_back(a);
      }
    });
    d.spacing.assign(d.axes.size(), -1);
    if (axes_ok) part("spacing", [&](const std::string& p) { spacing(p); });
    else whole = false;
    part("interior", [&](const std::string& p) { d.interior = rationals(p, kMaxSbpWidth); });
    part("left", [&](const std::string& p) { d.left = rows(p); });
    d.right_given = part("right", [&](const std::string& p) { d.right = rows(p); });
    part("norm", [&](const std::string& p) { d.norm = rationals(p, kMaxSbpRows); });
    part("boundary_derivative", [&](const std::string& p) { d.boundary_derivative = rationals(p, kMaxSbpWidth); });
    tunables_known_ = axes_ok;
    if (!whole) return;  // the math of a part-read operator would blame what is right
    if (!d.right_given) {
      const Rational sign = d.derivative % 2 ? Rational(-1) : Rational(1);
      for (const auto& row : d.left) {
        d.right.emplace_back();
        for (const auto& c : row) d.right.back().push_back(sign * c);
      }
    }
    diag_.unit([&] { check_sbp(d, *src_); });
  }

  // /sbp/spacing: one param for every axis, or one per axis.
  void spacing(const std::string& ptr) {
    SbpDecl& d = s_.sbp();
    auto param = [&](const std::string& p) {
      const std::string name = r_.string(p);
      std::vector<std::string> names;
      for (std::size_t k = 0; k < s_.params.size(); ++k) {
        if (s_.params[k].name == name) return static_cast<int>(k);
        names.push_back(s_.params[k].name);
      }
      if (!names_sound_ || broken_.count(name)) throw UnitFailed{};  // declared, but its declaration failed
      src_->fail(p, fmt::format("no param named '{}'{}", name, did_you_mean(name, names)), "the name of a param declared in /params (the grid spacing)");
      return -1;
    };
    if (r_.at(ptr).is_array()) {
      const std::size_t ns = r_.array(ptr, false, 3);
      if (ns != d.axes.size())
        src_->fail(ptr, fmt::format("{} spacings for {} axes", ns, d.axes.size()), "one param name per entry of /sbp/axes, or one name for all");
      for (std::size_t i = 0; i < ns; ++i) d.spacing[i] = param(json_pointer_join(ptr, i));
    } else {
      d.spacing.assign(d.axes.size(), param(ptr));
    }
  }

  std::vector<Rational> rationals(const std::string& ptr, std::size_t most) {
    std::vector<Rational> v;
    const std::size_t n = r_.array(ptr, true, most);
    for (std::size_t i = 0; i < n; ++i) v.push_back(r_.rational(json_pointer_join(ptr, i)));
    return v;
  }

  std::vector<std::vector<Rational>> rows(const std::string& ptr) {
    std::vector<std::vector<Rational>> v;
    const std::size_t n = r_.array(ptr, true, kMaxSbpRows);
    for (std::size_t i = 0; i < n; ++i) v.push_back(rationals(json_pointer_join(ptr, i), kMaxSbpWidth));
    return v;
  }

  void one_input_one_output(const char* kind, const char* why_no_ghosts) {
    if (s_.inputs().size() != 1 || s_.output_fields().size() != 1)
      src_->fail("/fields", fmt::format("{} input and {} output fields", s_.inputs().size(), s_.output_fields().size()),
                 fmt::format("exactly one input and one output field for kind \"{}\"", kind));
    for (const auto& f : s_.fields)
      if (f.ghost != 0) src_->fail(f.pointer + "/ghost", fmt::format("ghost width {} on '{}'", f.ghost, f.name), fmt::format("no ghost zones (0): {}", why_no_ghosts));
  }

  // One input, one output, no ghost zones: a scan reads no neighbours.
  void scan() {
    if (fields_whole_) diag_.unit([&] { one_input_one_output("scan", "a scan reads no neighbours"); });
    ScanDecl& d = s_.scan();
    d.pointer = "/scan";
    tunables_known_ = false;
    if (!r_.has("/scan") || !diag_.unit([&] { r_.object("/scan", {"axis", "op", "identity"}, {"exclusive", "reverse", "description"}); })) return;
    tunables_known_ = r_.has("/scan/axis") && diag_.unit([&] {
      const std::string axes[] = {"x", "y", "z"};
      const std::string ax = r_.choice("/scan/axis", std::vector<std::string>(axes, axes + s_.dims));
      d.axis = static_cast<int>(std::find(axes, axes + 3, ax) - axes);
    });
    const bool op_ok = r_.has("/scan/op") && diag_.unit([&] {
      d.op_text = r_.string("/scan/op");
      d.op_ast = parse_expression_at(d.op_text, *src_, "/scan/op");
      const Spec scope = scan_op_scope(s_.dtype);
      d.op_ir = lower_expression(scope, *d.op_ast, *src_, "/scan/op", 0, "one of the two values a (the running value) and b (the next input)");
    });
    const bool identity_ok = r_.has("/scan/identity") && diag_.unit([&] {
      const json& id = r_.at("/scan/identity");
      if (id.is_number()) {
        d.identity = id.get<double>();
        d.identity_text = src_->raw_scalar("/scan/identity");
        if (s_.dtype == Dtype::Float32 && std::fabs(d.identity) > FLT_MAX)
          src_->fail("/scan/identity", fmt::format("{} is beyond the range of float32", d.identity_text), "a finite float32 (at most about 3.4e38 in magnitude), or \"inf\" / \"-inf\"");
      } else if (id.is_string() && (id == "inf" || id == "+inf" || id == "-inf")) {
        d.identity = id == "-inf" ? -HUGE_VAL : HUGE_VAL;
        d.identity_text = id.get<std::string>();
      } else {
        src_->fail("/scan/identity", fmt::format("found {}", type_name(id)), "a number, or \"inf\" / \"-inf\"");
      }
    });
    if (r_.has("/scan/exclusive")) diag_.unit([&] { d.exclusive = r_.boolean("/scan/exclusive"); });
    if (r_.has("/scan/reverse")) diag_.unit([&] { d.reverse = r_.boolean("/scan/reverse"); });
    if (op_ok && identity_ok) diag_.unit([&] { check_scan_op(d, *src_); });
  }

  void params() {
    if (!listed("/params", false, kMaxParams)) return;
    const std::size_t n = r_.at("/params").size();
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/params", i);
      declaring(p + "/name", [&] {
        r_.entry(p, {"name"}, {"value", "description"});
        ParamDecl d;
        d.pointer = p;
        d.name = r_.identifier(p + "/name");
        declare(d.name, p + "/name");
        if (r_.has(p + "/value")) d.value = r_.number(p + "/value");
        s_.params.push_back(d);
      });
    }
  }

  void operators() {
    if (!listed("/operators", false, kMaxOperators)) return;
    const std::size_t n = r_.at("/operators").size();
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/operators", i);
      declaring(p + "/name", [&] {
        OperatorDecl op;
        op.pointer = p;
        const json& j = r_.at(p);
        if (j.is_object() && j.contains("derivative")) {
          r_.entry(p, {"name", "derivative", "order"}, {"description"});
          op.derivative = static_cast<int>(r_.integer(p + "/derivative", 1, 6));
          op.order = static_cast<int>(r_.integer(p + "/order", 2, 16));
          if (op.order % 2) src_->fail(p + "/order", fmt::format("order {} is odd; central stencils have even order", op.order), "an even order in [2, 16]");
          op.coeffs = central_weights(op.derivative, op.order);
          const int rad = central_radius(op.derivative, op.order);
          for (int k = -rad; k <= rad; ++k) op.offsets.push_back(k);
        } else {
          r_.entry(p, {"name", "offsets", "coeffs"}, {"description"});
          const std::size_t no = r_.array(p + "/offsets", true, 65);
          const std::size_t nc = r_.array(p + "/coeffs", true, 65);
          if (no != nc) src_->fail(p + "/coeffs", fmt::format("{} coefficients for {} offsets", nc, no), fmt::format("{} coefficients, one per offset", no));
          for (std::size_t k = 0; k < no; ++k) {
            const std::string po = json_pointer_join(p + "/offsets", k);
            const int o = static_cast<int>(r_.integer(po, -32, 32));
            if (std::count(op.offsets.begin(), op.offsets.end(), o)) src_->fail(po, fmt::format("offset {} appears twice", o), "distinct offsets");
            op.offsets.push_back(o);
            op.coeffs.push_back(r_.rational(json_pointer_join(p + "/coeffs", k)));
          }
        }
        op.name = r_.identifier(p + "/name");
        declare(op.name, p + "/name");
        s_.operators.push_back(op);
      });
    }
  }

  void lets() {
    if (!listed("/lets", false, kMaxLets)) return;
    const std::size_t n = r_.at("/lets").size();
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/lets", i);
      declaring(p + "/name", [&] {
        r_.entry(p, {"name", "expr"}, {"description"});
        LetDecl d;
        d.pointer = p + "/expr";
        d.name = r_.identifier(p + "/name");
        declare(d.name, p + "/name");
        d.text = r_.string(p + "/expr");
        s_.lets.push_back(d);
      });
    }
    // Lower after all names exist so that a forward reference gets its own message.
    Spec& scope = pair_scope_ ? *pair_scope_ : s_;
    if (pair_scope_) pair_scope_->lets = s_.lets;
    for (std::size_t i = 0; i < s_.lets.size(); ++i) {
      auto& d = s_.lets[i];
      const bool ok = diag_.unit([&] {
        d.ast = parse_expression_at(d.text, *src_, d.pointer);
        require_lowerable(*d.ast);
        if (pair_scope_) check_pair_names(s_, *d.ast, *src_, d.pointer);
        d.ir = lower_expression(scope, *d.ast, *src_, d.pointer, i, scope_noun());
        scope.lets[i].ir = d.ir;
      });
      if (!ok) broken_.insert(d.name);
    }
  }

  void outputs() {
    if (!diag_.unit([&] { r_.array("/outputs", true, kMaxFields); })) {
      outputs_whole_ = false;
      return;
    }
    const std::size_t n = r_.at("/outputs").size();
    std::set<int> seen;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/outputs", i);
      bool identified = false;  // which output field this entry computes is known
      diag_.unit([&] {
        const Reader::Keys keys = s_.is_pairwise() ? r_.object(p, {"field", "expr"}, {"description", "reduce"}) : r_.object(p, {"field", "expr"}, {"description"});
        if (!r_.has(p + "/field")) throw UnitFailed{};
        OutputDecl o;
        o.pointer = p + "/expr";
        o.field = output_field(p + "/field", seen, identified);
        if (!keys.complete) throw UnitFailed{};
        o.text = r_.string(p + "/expr");
        o.ast = parse_expression_at(o.text, *src_, o.pointer);
        require_lowerable(*o.ast);
        if (pair_scope_) check_pair_names(s_, *o.ast, *src_, o.pointer);
        o.ir = lower_expression(pair_scope_ ? *pair_scope_ : s_, *o.ast, *src_, o.pointer, s_.lets.size(), scope_noun());
        if (s_.is_pairwise()) {
          const std::string red = r_.has(p + "/reduce") ? r_.choice(p + "/reduce", {"sum", "min", "max"}) : "sum";
          reduce_.push_back(red == "sum" ? Reduce::Sum : red == "min" ? Reduce::Min : Reduce::Max);
        }
        s_.outputs.push_back(o);
      });
      outputs_whole_ &= identified;
    }
    // An entry whose field could not be told may be the missing one.
    if (fields_whole_ && outputs_whole_)
      for (const auto* f : s_.output_fields())
        if (!seen.count(static_cast<int>(f - s_.fields.data())))
          diag_.unit([&] { src_->fail(f->pointer, fmt::format("output field '{}' has no expression in /outputs", f->name), "an entry in /outputs for every output field"); });
    // Outputs are written in the order of their fields, so the kernel's slots
    // match; a pairwise output's reduction moves with it.
    std::vector<std::size_t> order(s_.outputs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s_.outputs[a].field < s_.outputs[b].field; });
    std::vector<OutputDecl> sorted;
    for (std::size_t i : order) {
      sorted.push_back(s_.outputs[i]);
      if (s_.is_pairwise()) s_.pairwise().reduce.push_back(reduce_[i]);
    }
    s_.outputs = std::move(sorted);
  }

  // The output field named at `ptr`, marked in `seen`; `identified` once it
  // is known which field the entry meant (a misspelt name: the one it looks like).
  int output_field(const std::string& ptr, std::set<int>& seen, bool& identified) {
    const std::string name = r_.string(ptr);
    const FieldDecl* f = s_.find_field(name);
    if (!f || f->role != FieldDecl::Role::Output) {
      if (!f && (broken_.count(name) || !fields_whole_)) {  // a field whose declaration failed
        identified = broken_.count(name) > 0;
        throw UnitFailed{};
      }
      std::vector<std::string> outs;
      for (const auto* x : s_.output_fields()) outs.push_back(x->name);
      if (const auto meant = closest_name(name, outs)) {
        seen.insert(static_cast<int>(s_.find_field(*meant) - s_.fields.data()));
        identified = true;
      }
      src_->fail(ptr, fmt::format("'{}' is not an output field{}", name, did_you_mean(name, outs)), fmt::format("one of: {}", fmt::join(outs, ", ")));
    }
    const int field = static_cast<int>(f - s_.fields.data());
    identified = true;
    if (!seen.insert(field).second) src_->fail(ptr, fmt::format("output '{}' is computed twice", name), "one expression per output field");
    return field;
  }

  std::string scope_noun() const {
    return pair_scope_ ? "a value of the pair (a field with _i for the target or _j for the source), a param or a let"
                       : "a declared input field, param or let";
  }

  // The "pairwise" object and the pair values it makes readable.
  void pairwise() {
    PairwiseDecl& d = s_.pairwise();
    d.pointer = "/pairwise";
    // Its shape decides what pair expressions can read: without it (or with
    // a key of it misspelt), they are not lowered.
    Reader::Keys keys;
    if (!r_.has("/pairwise") || !diag_.unit([&] {
          keys = r_.object("/pairwise", {}, {"domain", "sources", "self", "pairs", "description"});
          if (keys.meant.count("domain") || keys.meant.count("sources") || keys.meant.count("pairs")) throw UnitFailed{};
          d.grid = r_.has("/pairwise/domain") && r_.choice("/pairwise/domain", {"particles", "grid"}) == "grid";
          d.same_set = !r_.has("/pairwise/sources") || r_.choice("/pairwise/sources", {"targets", "separate"}) == "targets";
          d.grouped = r_.has("/pairwise/pairs") && r_.choice("/pairwise/pairs", {"all", "grouped"}) == "grouped";
        })) {
      tunables_known_ = false;
      return;
    }
    if (!d.grid && s_.dims != 1 && dims_ok_)
      diag_.unit([&] { src_->fail("/dims", fmt::format("dims {} for particles", s_.dims), "dims 1: particles are 1-D arrays (domain \"grid\" takes 1-3-D grids)"); });
    if (d.grid && !d.same_set)
      diag_.unit([&] { src_->fail("/pairwise/sources", "separate sources on a grid", "\"targets\": on a grid, targets and sources are the same cells"); });
    if (!keys.meant.count("self")) diag_.unit([&] {
      if (d.same_set) {
        if (!r_.has("/pairwise/self"))
          src_->fail("/pairwise", "missing key 'self'", "\"self\": \"skip\" or \"include\": whether the pair of a target with itself counts");
        d.skip_self = r_.choice("/pairwise/self", {"include", "skip"}) == "skip";
      } else if (r_.has("/pairwise/self")) {
        src_->fail("/pairwise/self", "'self' with separate sources", "no 'self': a target is never one of separate sources");
      }
    });
    for (const auto& f : s_.fields) {
      if (f.role != FieldDecl::Role::Input) continue;
      // A field read wrongly is broken for the expressions that read it.
      if (!diag_.unit([&] { check_pair_field(f); })) broken_.insert(f.name);
      for (bool source : {false, true}) {
        if ((f.set == FieldDecl::Set::Targets && source) || (f.set == FieldDecl::Set::Sources && !source)) continue;
        d.values.push_back({f.name + (source ? "_j" : "_i"), source, static_cast<int>(&f - s_.fields.data()), -1, "f_" + f.name});
      }
    }
    if (d.grid)
      for (int ax = 0; ax < s_.dims; ++ax)
        for (bool source : {false, true}) {
          const std::string c = std::string("i") + axis_name(ax);
          d.values.push_back({c + (source ? "_j" : "_i"), source, -1, ax, c});
        }
    if (s_.inputs().size() > std::size_t{kPairMaxInputs} || s_.output_fields().size() > std::size_t{kPairMaxOutputs} ||
        s_.params.size() > std::size_t{kPairMaxParams})
      diag_.unit([&] {
        src_->fail("/fields", fmt::format("{} inputs, {} outputs and {} params", s_.inputs().size(), s_.output_fields().size(), s_.params.size()),
                   fmt::format("at most {} inputs, {} outputs and {} params (the kernel's argument block)", kPairMaxInputs, kPairMaxOutputs,
                               kPairMaxParams));
      });
    pair_scope_ = pairwise_scope(s_);
  }

  // An input field's role and ghost width against the pairwise domain.
  void check_pair_field(const FieldDecl& f) const {
    const PairwiseDecl& d = s_.pairwise();
    if (d.same_set && f.set != FieldDecl::Set::Both)
      src_->fail(f.pointer + "/role", fmt::format("role '{}' while the sources are the targets", f.set == FieldDecl::Set::Targets ? "target" : "source"),
                 "role \"input\" (read as name_i and name_j), or \"sources\": \"separate\" in /pairwise");
    if (!d.same_set && f.set == FieldDecl::Set::Both)
      src_->fail(f.pointer + "/role", "role 'input' with separate sources", "role \"target\" or \"source\": which set the field belongs to");
    if (f.ghost != 0) src_->fail(f.pointer + "/ghost", fmt::format("ghost width {} on '{}'", f.ghost, f.name), "no ghost zones (0): pairs read no neighbours");
  }

  // Each input field's ghost width against what the lowered outputs reach;
  // one whose "ghost" key is misspelt is left (its width is not the one meant).
  void ghost_widths() {
    const Footprint fp = s_.footprint();
    for (const auto* f : s_.inputs()) {
      if (ghost_misspelt_.count(f->pointer)) continue;
      diag_.unit([&] {
        for (int ax = 0; ax < s_.dims; ++ax) {
          const int need = fp[f->slot][ax];
          if (f->ghost < need) {
            src_->fail(f->pointer + (r_.has(f->pointer + "/ghost") ? "/ghost" : ""),
                       fmt::format("ghost width {} of '{}' is smaller than the {} points the outputs reach along {}", f->ghost, f->name, need, axis_name(ax)),
                       fmt::format("ghost >= {}", need));
          }
        }
      });
    }
  }

  void unused() {
    std::vector<Access> acc;
    for (const auto& o : s_.outputs) collect_accesses(*o.ir, acc);
    for (const auto* f : s_.inputs()) {
      const bool used = std::any_of(acc.begin(), acc.end(), [&](const Access& a) {
        // Pair expressions read values of the pair (PairValue), each of one field.
        return s_.is_pairwise() ? s_.pairwise().values[a.field].field == f - s_.fields.data() : a.field == f->slot;
      });
      if (!used) s_.warnings.push_back(fmt::format("{}: input field '{}' is never read by the outputs", f->pointer, f->name));
    }
  }

  Diagnostics diag_;  // before r_, which records into it
  std::shared_ptr<const JsonSource> src_;
  Reader r_;
  Spec s_;
  std::set<std::string> names_;
  std::optional<Dtype> dtype_override_;
  std::optional<Spec> pair_scope_;  // pairwise: the names pair expressions see
  std::vector<Reduce> reduce_;      // pairwise: per /outputs entry, in file order

  // What failed, so that what depends on it is skipped rather than blamed.
  std::set<std::string> broken_;           // names whose declaration failed
  bool names_sound_ = true;                // false: a declaration failed before its name was known
  bool fields_whole_ = true;               // every field entry was read
  bool outputs_whole_ = true;              // every /outputs entry's field is known
  bool dims_ok_ = true;                    // false: dims taken as 3
  bool tunables_known_ = true;             // the kind's built-in tunables can be told
  std::set<std::string> ghost_misspelt_;   // pointers of fields with a key that looks like "ghost"
};

}  // namespace

std::vector<const FieldDecl*> Spec::inputs() const {
  std::vector<const FieldDecl*> v;
  for (const auto& f : fields)
    if (f.role == FieldDecl::Role::Input) v.push_back(&f);
  return v;
}
std::vector<const FieldDecl*> Spec::output_fields() const {
  std::vector<const FieldDecl*> v;
  for (const auto& f : fields)
    if (f.role == FieldDecl::Role::Output) v.push_back(&f);
  return v;
}
const FieldDecl* Spec::find_field(const std::string& n) const {
  for (const auto& f : fields)
    if (f.name == n) return &f;
  return nullptr;
}
const TunableDecl* Spec::find_tunable(const std::string& n) const {
  for (const auto& t : tunables)
    if (t.name == n) return &t;
  return nullptr;
}
Footprint Spec::footprint() const {
  Footprint fp(inputs().size(), {0, 0, 0});
  for (const auto& o : outputs) accumulate_footprint(*o.ir, fp);
  return fp;
}

Spec parse_spec(std::shared_ptr<const JsonSource> src, std::optional<Dtype> dtype) {
  return SpecParser(std::move(src), dtype).parse();
}
Spec load_spec(const std::string& path, std::optional<Dtype> dtype) {
  return parse_spec(std::make_shared<JsonSource>(JsonSource::from_file(path)), dtype);
}
Spec load_spec_string(const std::string& json, const std::string& name) {
  return parse_spec(std::make_shared<JsonSource>(JsonSource::from_string(json, name)));
}

}  // namespace gpen
