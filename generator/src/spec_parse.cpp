// JSON -> Spec: shape checks with exact JSON pointers, then name resolution
// and lowering of every expression, then the checks that need the lowered
// form (ghost widths against the footprint).
#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "gpen/generator/fornberg.hpp"
#include "gpen/generator/limits.hpp"
#include "gpen/generator/lower.hpp"
#include "gpen/generator/pairwise_scope.hpp"
#include "gpen/generator/sbp_check.hpp"
#include "gpen/generator/scan_op.hpp"
#include "gpen/generator/sha256.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/generator/constraints.hpp"
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
  explicit Reader(const JsonSource& src) : src_(src) {}

  const json& at(const std::string& ptr) const { return src_.root().at(json::json_pointer(ptr)); }
  bool has(const std::string& ptr) const { return src_.root().contains(json::json_pointer(ptr)); }

  void object(const std::string& ptr, const std::vector<std::string>& required,
              const std::vector<std::string>& optional) const {
    const json& j = at(ptr);
    if (!j.is_object()) src_.fail(ptr, fmt::format("found {}", type_name(j)), "an object");
    for (auto it = j.begin(); it != j.end(); ++it) {
      const bool known = std::count(required.begin(), required.end(), it.key()) ||
                         std::count(optional.begin(), optional.end(), it.key());
      if (!known) {
        std::vector<std::string> all = required;
        all.insert(all.end(), optional.begin(), optional.end());
        src_.fail(json_pointer_join(ptr, it.key()), fmt::format("unknown key '{}'", it.key()),
                  fmt::format("one of: {}", fmt::join(all, ", ")), true);
      }
    }
    for (const auto& k : required)
      if (!j.contains(k)) src_.fail(ptr, fmt::format("missing key '{}'", k), fmt::format("an object with '{}'", k));
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
      src_.fail(ptr, fmt::format("'{}' is not allowed here", quoted_text(s)), fmt::format("one of: {}", fmt::join(allowed, ", ")));
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
};

class SpecParser {
 public:
  SpecParser(std::shared_ptr<const JsonSource> src, std::optional<Dtype> dtype)
      : src_(std::move(src)), r_(*src_), dtype_override_(dtype) {}

  Spec parse() {
    s_.source = src_;
    nlohmann::json effective = src_->root();
    if (dtype_override_ && effective.is_object()) effective["dtype"] = to_string(*dtype_override_);
    s_.hash = sha256_hex(effective.dump());
    // The kind decides which other keys belong; without one, the stencil
    // keys are checked (and 'kind' reported missing).
    const json& root = r_.at("");
    s_.kind = root.is_object() && root.contains("kind") ? r_.choice("/kind", {"stencil", "scan", "sbp", "pairwise"}) : "stencil";
    if (s_.is_scan()) {
      r_.object("", {"name", "kind", "dtype", "dims", "fields", "scan"}, {"$schema", "description", "tunables", "constraints"});
    } else if (s_.is_sbp()) {
      r_.object("", {"name", "kind", "dtype", "dims", "fields", "sbp"}, {"$schema", "description", "params", "tunables", "constraints"});
    } else if (s_.is_pairwise()) {
      r_.object("", {"name", "kind", "dtype", "dims", "fields", "pairwise", "outputs"},
                {"$schema", "description", "params", "lets", "tunables", "constraints"});
    } else {
      r_.object("", {"name", "kind", "dtype", "dims", "fields", "outputs"},
                {"$schema", "description", "params", "operators", "lets", "tunables", "constraints"});
    }
    s_.name = r_.identifier("/name");
    if (r_.has("/description")) s_.description = r_.string("/description");
    s_.dtype = *parse_dtype(r_.choice("/dtype", {"float32", "float64"}));
    if (dtype_override_) s_.dtype = *dtype_override_;
    s_.dims = static_cast<int>(r_.integer("/dims", 1, 3));
    fields();
    if (s_.is_scan() || s_.is_sbp()) {
      if (s_.is_scan()) scan();
      else sbp();
      s_.tunables = parse_tunables(s_, r_.has("/tunables") ? &r_.at("/tunables") : nullptr, *src_);
      s_.constraints = parse_constraints(s_, r_.has("/constraints") ? &r_.at("/constraints") : nullptr, *src_);
      return std::move(s_);
    }
    if (r_.has("/params")) params();
    if (s_.is_pairwise()) pairwise();
    if (r_.has("/operators")) operators();
    if (r_.has("/lets")) lets();
    outputs();
    s_.tunables = parse_tunables(s_, r_.has("/tunables") ? &r_.at("/tunables") : nullptr, *src_);
    s_.constraints = parse_constraints(s_, r_.has("/constraints") ? &r_.at("/constraints") : nullptr, *src_);
    if (!s_.is_pairwise()) ghost_widths();
    unused();
    return std::move(s_);
  }

 private:
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

  void fields() {
    const std::size_t n = r_.array("/fields", true, kMaxFields);
    int in = 0, out = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/fields", i);
      r_.object(p, {"name", "role"}, {"ghost", "description"});
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
      s_.fields.push_back(f);
    }
    if (out == 0) src_->fail("/fields", "no field has role \"output\"", "at least one output field");
  }

  // An SBP operator: one input, one output, no ghost zones (closures
  // replace them); the math is checked by check_sbp (sbp_check.cpp).
  void sbp() {
    one_input_one_output("sbp", "an SBP operator closes at the boundary with its own rows");
    if (r_.has("/params")) params();
    SbpDecl& d = s_.sbp;
    d.pointer = "/sbp";
    r_.object("/sbp", {"derivative", "order", "boundary_order", "axes", "interior", "left", "norm"},
              {"source", "description", "spacing", "right", "boundary_derivative"});
    if (r_.has("/sbp/source")) d.source_text = r_.string("/sbp/source");
    d.derivative = static_cast<int>(r_.integer("/sbp/derivative", 1, 2));
    d.order = static_cast<int>(r_.integer("/sbp/order", 1, 16));
    d.boundary_order = static_cast<int>(r_.integer("/sbp/boundary_order", 1, d.order));
    static const char* axes[] = {"x", "y", "z"};
    const std::size_t na = r_.array("/sbp/axes", true, 3);
    for (std::size_t i = 0; i < na; ++i) {
      const std::string p = json_pointer_join("/sbp/axes", i);
      const std::string ax = r_.choice(p, std::vector<std::string>(axes, axes + s_.dims));
      const int a = static_cast<int>(std::find(axes, axes + 3, ax) - axes);
      if (std::count(d.axes.begin(), d.axes.end(), a)) src_->fail(p, fmt::format("axis {} appears twice", ax), "distinct axes");
      d.axes.push_back(a);
    }
    d.spacing.assign(d.axes.size(), -1);
    if (r_.has("/sbp/spacing")) {
      // One param for every axis, or one per axis.
      auto param = [&](const std::string& p) {
        const std::string name = r_.string(p);
        for (std::size_t k = 0; k < s_.params.size(); ++k)
          if (s_.params[k].name == name) return static_cast<int>(k);
        src_->fail(p, fmt::format("no param named '{}'", name), "the name of a param declared in /params (the grid spacing)");
        return -1;
      };
      if (r_.at("/sbp/spacing").is_array()) {
        const std::size_t ns = r_.array("/sbp/spacing", false, 3);
        if (ns != na)
          src_->fail("/sbp/spacing", fmt::format("{} spacings for {} axes", ns, na), "one param name per entry of /sbp/axes, or one name for all");
        for (std::size_t i = 0; i < na; ++i) d.spacing[i] = param(json_pointer_join("/sbp/spacing", i));
      } else {
        d.spacing.assign(na, param("/sbp/spacing"));
      }
    }
    d.interior = rationals("/sbp/interior", kMaxSbpWidth);
    d.left = rows("/sbp/left");
    if (r_.has("/sbp/right")) {
      d.right = rows("/sbp/right");
      d.right_given = true;
    } else {
      const Rational sign = d.derivative % 2 ? Rational(-1) : Rational(1);
      for (const auto& row : d.left) {
        d.right.emplace_back();
        for (const auto& c : row) d.right.back().push_back(sign * c);
      }
    }
    d.norm = rationals("/sbp/norm", kMaxSbpRows);
    if (r_.has("/sbp/boundary_derivative")) d.boundary_derivative = rationals("/sbp/boundary_derivative", kMaxSbpWidth);
    check_sbp(d, *src_);
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
    one_input_one_output("scan", "a scan reads no neighbours");
    ScanDecl& d = s_.scan;
    d.pointer = "/scan";
    r_.object("/scan", {"axis", "op", "identity"}, {"exclusive", "reverse", "description"});
    const std::string axes[] = {"x", "y", "z"};
    const std::string ax = r_.choice("/scan/axis", std::vector<std::string>(axes, axes + s_.dims));
    d.axis = static_cast<int>(std::find(axes, axes + 3, ax) - axes);
    d.op_text = r_.string("/scan/op");
    d.op_ast = parse_expression_at(d.op_text, *src_, "/scan/op");
    const Spec scope = scan_op_scope(s_.dtype);
    d.op_ir = lower_expression(scope, *d.op_ast, *src_, "/scan/op", 0, "one of the two values a (the running value) and b (the next input)");
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
    if (r_.has("/scan/exclusive")) d.exclusive = r_.boolean("/scan/exclusive");
    if (r_.has("/scan/reverse")) d.reverse = r_.boolean("/scan/reverse");
    check_scan_op(d, *src_);
  }

  void params() {
    const std::size_t n = r_.array("/params", false, kMaxParams);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/params", i);
      r_.object(p, {"name"}, {"value", "description"});
      ParamDecl d;
      d.pointer = p;
      d.name = r_.identifier(p + "/name");
      declare(d.name, p + "/name");
      if (r_.has(p + "/value")) d.value = r_.number(p + "/value");
      s_.params.push_back(d);
    }
  }

  void operators() {
    const std::size_t n = r_.array("/operators", false, kMaxOperators);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/operators", i);
      OperatorDecl op;
      op.pointer = p;
      const json& j = r_.at(p);
      if (j.is_object() && j.contains("derivative")) {
        r_.object(p, {"name", "derivative", "order"}, {"description"});
        op.derivative = static_cast<int>(r_.integer(p + "/derivative", 1, 6));
        op.order = static_cast<int>(r_.integer(p + "/order", 2, 16));
        if (op.order % 2) src_->fail(p + "/order", fmt::format("order {} is odd; central stencils have even order", op.order), "an even order in [2, 16]");
        op.coeffs = central_weights(op.derivative, op.order);
        const int rad = central_radius(op.derivative, op.order);
        for (int k = -rad; k <= rad; ++k) op.offsets.push_back(k);
      } else {
        r_.object(p, {"name", "offsets", "coeffs"}, {"description"});
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
    }
  }

  void lets() {
    const std::size_t n = r_.array("/lets", false, kMaxLets);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/lets", i);
      r_.object(p, {"name", "expr"}, {"description"});
      LetDecl d;
      d.pointer = p + "/expr";
      d.name = r_.identifier(p + "/name");
      declare(d.name, p + "/name");
      d.text = r_.string(p + "/expr");
      s_.lets.push_back(d);
    }
    // Lower after all names exist so that a forward reference gets its own message.
    Spec& scope = pair_scope_ ? *pair_scope_ : s_;
    if (pair_scope_) pair_scope_->lets = s_.lets;
    for (std::size_t i = 0; i < n; ++i) {
      auto& d = s_.lets[i];
      d.ast = parse_expression_at(d.text, *src_, d.pointer);
      if (pair_scope_) check_pair_names(s_, *d.ast, *src_, d.pointer);
      d.ir = lower_expression(scope, *d.ast, *src_, d.pointer, i, scope_noun());
      scope.lets[i].ir = d.ir;
    }
  }

  void outputs() {
    const std::size_t n = r_.array("/outputs", true, kMaxFields);
    std::set<int> seen;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/outputs", i);
      if (s_.is_pairwise()) r_.object(p, {"field", "expr"}, {"description", "reduce"});
      else r_.object(p, {"field", "expr"}, {"description"});
      OutputDecl o;
      o.pointer = p + "/expr";
      const std::string name = r_.string(p + "/field");
      const FieldDecl* f = s_.find_field(name);
      if (!f || f->role != FieldDecl::Role::Output) {
        std::vector<std::string> outs;
        for (const auto* x : s_.output_fields()) outs.push_back(x->name);
        src_->fail(p + "/field", fmt::format("'{}' is not an output field", name), fmt::format("one of: {}", fmt::join(outs, ", ")));
      }
      o.field = static_cast<int>(f - s_.fields.data());
      if (!seen.insert(o.field).second) src_->fail(p + "/field", fmt::format("output '{}' is computed twice", name), "one expression per output field");
      o.text = r_.string(p + "/expr");
      o.ast = parse_expression_at(o.text, *src_, o.pointer);
      if (pair_scope_) check_pair_names(s_, *o.ast, *src_, o.pointer);
      o.ir = lower_expression(pair_scope_ ? *pair_scope_ : s_, *o.ast, *src_, o.pointer, s_.lets.size(), scope_noun());
      s_.outputs.push_back(o);
      if (s_.is_pairwise()) {
        const std::string red = r_.has(p + "/reduce") ? r_.choice(p + "/reduce", {"sum", "min", "max"}) : "sum";
        reduce_.push_back(red == "sum" ? Reduce::Sum : red == "min" ? Reduce::Min : Reduce::Max);
      }
    }
    for (const auto* f : s_.output_fields())
      if (!seen.count(static_cast<int>(f - s_.fields.data())))
        src_->fail(f->pointer, fmt::format("output field '{}' has no expression in /outputs", f->name), "an entry in /outputs for every output field");
    // Outputs are written in the order of their fields, so the kernel's slots
    // match; a pairwise output's reduction moves with it.
    std::vector<std::size_t> order(s_.outputs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s_.outputs[a].field < s_.outputs[b].field; });
    std::vector<OutputDecl> sorted;
    for (std::size_t i : order) {
      sorted.push_back(s_.outputs[i]);
      if (s_.is_pairwise()) s_.pairwise.reduce.push_back(reduce_[i]);
    }
    s_.outputs = std::move(sorted);
  }

  std::string scope_noun() const {
    return pair_scope_ ? "a value of the pair (a field with _i for the target or _j for the source), a param or a let"
                       : "a declared input field, param or let";
  }

  // The "pairwise" object and the pair values it makes readable.
  void pairwise() {
    PairwiseDecl& d = s_.pairwise;
    d.pointer = "/pairwise";
    r_.object("/pairwise", {}, {"domain", "sources", "self", "pairs", "description"});
    d.grid = r_.has("/pairwise/domain") && r_.choice("/pairwise/domain", {"particles", "grid"}) == "grid";
    d.same_set = !r_.has("/pairwise/sources") || r_.choice("/pairwise/sources", {"targets", "separate"}) == "targets";
    d.grouped = r_.has("/pairwise/pairs") && r_.choice("/pairwise/pairs", {"all", "grouped"}) == "grouped";
    if (!d.grid && s_.dims != 1)
      src_->fail("/dims", fmt::format("dims {} for particles", s_.dims), "dims 1: particles are 1-D arrays (domain \"grid\" takes 1-3-D grids)");
    if (d.grid && !d.same_set)
      src_->fail("/pairwise/sources", "separate sources on a grid", "\"targets\": on a grid, targets and sources are the same cells");
    if (d.same_set) {
      if (!r_.has("/pairwise/self"))
        src_->fail("/pairwise", "missing key 'self'", "\"self\": \"skip\" or \"include\": whether the pair of a target with itself counts");
      d.skip_self = r_.choice("/pairwise/self", {"include", "skip"}) == "skip";
    } else if (r_.has("/pairwise/self")) {
      src_->fail("/pairwise/self", "'self' with separate sources", "no 'self': a target is never one of separate sources");
    }
    for (const auto& f : s_.fields) {
      if (f.role != FieldDecl::Role::Input) continue;
      if (d.same_set && f.set != FieldDecl::Set::Both)
        src_->fail(f.pointer + "/role", fmt::format("role '{}' while the sources are the targets", f.set == FieldDecl::Set::Targets ? "target" : "source"),
                   "role \"input\" (read as name_i and name_j), or \"sources\": \"separate\" in /pairwise");
      if (!d.same_set && f.set == FieldDecl::Set::Both)
        src_->fail(f.pointer + "/role", "role 'input' with separate sources", "role \"target\" or \"source\": which set the field belongs to");
      if (f.ghost != 0) src_->fail(f.pointer + "/ghost", fmt::format("ghost width {} on '{}'", f.ghost, f.name), "no ghost zones (0): pairs read no neighbours");
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
    if (s_.inputs().size() > 32 || s_.output_fields().size() > 16 || s_.params.size() > 16)
      src_->fail("/fields", fmt::format("{} inputs, {} outputs and {} params", s_.inputs().size(), s_.output_fields().size(), s_.params.size()),
                 "at most 32 inputs, 16 outputs and 16 params (the kernel's argument block)");
    pair_scope_ = pairwise_scope(s_);
  }

  void ghost_widths() {
    const Footprint fp = s_.footprint();
    for (const auto* f : s_.inputs()) {
      for (int ax = 0; ax < s_.dims; ++ax) {
        const int need = fp[f->slot][ax];
        if (f->ghost < need) {
          src_->fail(f->pointer + (r_.has(f->pointer + "/ghost") ? "/ghost" : ""),
                     fmt::format("ghost width {} of '{}' is smaller than the {} points the outputs reach along {}", f->ghost, f->name, need, axis_name(ax)),
                     fmt::format("ghost >= {}", need));
        }
      }
    }
  }

  void unused() {
    std::vector<Access> acc;
    for (const auto& o : s_.outputs) collect_accesses(*o.ir, acc);
    for (const auto* f : s_.inputs()) {
      const bool used = std::any_of(acc.begin(), acc.end(), [&](const Access& a) {
        // Pair expressions read values of the pair (PairValue), each of one field.
        return s_.is_pairwise() ? s_.pairwise.values[a.field].field == f - s_.fields.data() : a.field == f->slot;
      });
      if (!used) s_.warnings.push_back(fmt::format("{}: input field '{}' is never read by the outputs", f->pointer, f->name));
    }
  }

  std::shared_ptr<const JsonSource> src_;
  Reader r_;
  Spec s_;
  std::set<std::string> names_;
  std::optional<Dtype> dtype_override_;
  std::optional<Spec> pair_scope_;  // pairwise: the names pair expressions see
  std::vector<Reduce> reduce_;      // pairwise: per /outputs entry, in file order
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
