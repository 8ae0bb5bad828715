// JSON -> Spec: shape checks with exact JSON pointers, then name resolution
// and lowering of every expression, then the checks that need the lowered
// form (ghost widths against the footprint).
#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <functional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpen/generator/associative_op.hpp"
#include "gpen/generator/constraints.hpp"
#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/fornberg.hpp"
#include "gpen/generator/limits.hpp"
#include "gpen/generator/lower.hpp"
#include "gpen/generator/sha256.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/generator/spec_reading.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen {

const char* to_string(Dtype d) { return d == Dtype::Float32 ? "float32" : "float64"; }
std::optional<Dtype> parse_dtype(const std::string& s) {
  if (s == "float32") return Dtype::Float32;
  if (s == "float64") return Dtype::Float64;
  return std::nullopt;
}
const char* axis_name(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }

Dtype field_dtype(const Spec& spec, const FieldDecl& f) { return f.dtype.value_or(spec.dtype); }
std::array<long long, 3> field_shape(const FieldDecl& f, const std::array<long long, 3>& interior) {
  std::array<long long, 3> s = interior;
  for (int a = 0; a < 3; ++a)
    if (f.reduced_axes >> a & 1u) s[a] = 1;
  return s;
}

std::string to_string(const TunableValue& v) {
  if (const auto* i = std::get_if<long long>(&v)) return std::to_string(*i);
  return std::get<std::string>(v);
}

namespace {

using nlohmann::json;


// Every independent part of the spec is parsed as a unit of diag (see
// diagnostics.hpp): its error is recorded and the next part parsed. A part
// that needs one that failed is skipped, so that each mistake is reported
// once: a name whose declaration failed lands in broken, and no expression
// that mentions it is lowered.
class SpecParser final : public SpecReading {
 public:
  SpecParser(std::shared_ptr<const JsonSource> source, std::optional<Dtype> dtype)
      : SpecReading(std::move(source)), dtype_override_(dtype) {}

  Spec parse() {
    diag.unit([&] { parts(); });
    diag.throw_if_any();
    if (shape().expressions) unused();
    if (shape().ghost_reach) spec.parsed_footprint = spec.footprint();  // the kinds whose reads reach into ghost zones
    return std::move(spec);
  }

 private:
  void parts() {
    spec.source = src;
    nlohmann::json effective = src->root();
    if (dtype_override_ && effective.is_object()) effective["dtype"] = to_string(*dtype_override_);
    spec.hash = sha256_hex(effective.dump());
    // The kind decides which other keys belong; without one, the stencil
    // keys are checked (and 'kind' reported missing).
    const json& root = reader.at("");
    spec.kind = families().front()->kind;
    const bool has_kind = root.is_object() && root.contains("kind");
    // A program given where a kernel spec belongs: one error that says so,
    // not one for each of its keys that no kernel spec has.
    if (has_kind && root["kind"] == "program") {
      diag.unit([&] {
        src->fail("/kind", "this file is a program (a simulation), not a kernel spec",
                  fmt::format("a kernel spec (kind {}); gpen simulate runs a program, gpen check checks it", fmt::join(family_kinds(), ", ")));
      });
      return;
    }
    if (has_kind ? !diag.unit([&] { spec.kind = reader.choice("/kind", family_kinds()); }) : misspelt_kind(root)) {
      // The rest depends on the kind: only the keys any kind has, and what
      // every kind has, are checked.
      std::vector<std::string> any = {"$schema", "name", "kind", "description", "dtype", "dims", "fields", "params", "operators", "lets", "outputs", "math"};
      for (const Family* f : families())
        if (f->shape.own_key) any.push_back(f->shape.own_key);
      any.insert(any.end(), {"tunables", "constraints"});
      reader.object("", {}, any);
      common();
      return;
    }
    family_ = &family_of(spec);
    spec.decl = family_->declaration();
    std::vector<std::string> optional = shape().optional;
    if (shape().expressions) optional.push_back("math");  // how its math functions are evaluated
    const JsonReader::Keys keys = reader.object("", shape().required, optional);
    // A misspelt "params" (or operators, lets) hides names that expressions use.
    for (const char* k : {"params", "operators", "lets"})
      if (keys.meant.count(k)) names_sound = false;
    common();
    fields();
    if (shape().expressions && reader.has("/params")) params();
    if (family_->read) family_->read(*this);
    if (shape().expressions) {
      if (reader.has("/operators")) operators();
      if (reader.has("/lets")) lets();
      if (reader.has("/outputs")) outputs();
    }
    // The built-in tunables depend on the scan's axis, the SBP's axes and the
    // pairwise domain: without those, tunables and constraints are not checked.
    if (tunables_known) {
      spec.tunables = parse_tunables(spec, reader.has("/tunables") ? &reader.at("/tunables") : nullptr, *src, diag);
      spec.constraints = parse_constraints(spec, reader.has("/constraints") ? &reader.at("/constraints") : nullptr, *src, diag);
      defaults_keep_constraints();
    }
    if (shape().ghost_reach && dims_ok) ghost_widths();
  }

  // A constraint the spec's own default variant breaks can never have been
  // meant (or can never hold, as "block_x < 0"): said where it is written,
  // with the defaults of the tunables it names.
  void defaults_keep_constraints() {
    if (spec.constraints.empty() || !diag.empty()) return;
    const TunableChoice d = spec.choose();
    for (const ConstraintDecl& c : spec.constraints) {
      if (satisfied(c, d)) continue;
      diag.unit([&] {
        src->fail(c.pointer, fmt::format("the spec's default variant breaks this constraint ({})", named_values(c, d)),
                  "a constraint that the defaults keep: the tuner searches only variants that keep every one");
      });
    }
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
    if (reader.has("/name")) diag.unit([&] { spec.name = reader.identifier("/name"); });
    if (reader.has("/description")) diag.unit([&] { spec.description = reader.string("/description"); });
    if (reader.has("/dtype")) diag.unit([&] { spec.dtype = *parse_dtype(reader.choice("/dtype", {"float32", "float64"})); });
    if (reader.has("/math"))
      diag.unit([&] { spec.math = reader.choice("/math", {"accurate", "fast"}) == "fast" ? MathPolicy::Fast : MathPolicy::Accurate; });
    if (dtype_override_) spec.dtype = *dtype_override_;
    dims_ok = reader.has("/dims") && diag.unit([&] { spec.dims = static_cast<int>(reader.integer("/dims", 1, 3)); });
  }

  // Runs the unit that declares the entry's name at `name_ptr`. When it
  // fails, the name is broken (expressions that mention it are not lowered);
  // when not even the name can be told, no expression is.
  template <class Fn>
  bool declaring(const std::string& name_ptr, Fn&& fn) {
    if (diag.unit(std::forward<Fn>(fn))) return true;
    if (reader.has(name_ptr) && reader.at(name_ptr).is_string()) broken.insert(reader.at(name_ptr).get<std::string>());
    else names_sound = false;
    return false;
  }

  // Whether `a` mentions a name whose declaration failed (for pair
  // expressions, m_j mentions the field m).
  bool mentions_broken(const Ast& a) const {
    if (a.kind == Ast::Kind::Name || a.kind == Ast::Kind::Call) {
      if (broken.count(a.text)) return true;
      const std::string& t = a.text;
      if (shape().pair_expressions && t.size() > 2 && (t.compare(t.size() - 2, 2, "_i") == 0 || t.compare(t.size() - 2, 2, "_j") == 0) &&
          broken.count(t.substr(0, t.size() - 2)))
        return true;
    }
    return std::any_of(a.args.begin(), a.args.end(), [&](const AstPtr& x) { return mentions_broken(*x); });
  }

  // Lowering needs every name it could meet: a parsed expression that could
  // meet a name whose declaration failed is left (its errors would be that one's).
  void require_lowerable(const Ast& a) const {
    if (!names_sound || mentions_broken(a) || (shape().pair_expressions && !expression_scope)) throw UnitFailed{};
  }

  void declare(const std::string& name, const std::string& ptr) {
    if (shape().pair_expressions) {
      // Pair expressions have no axes, but read every field with a suffix.
      if (find_math_function(name) || name == "ix" || name == "iy" || name == "iz")
        src->fail(ptr, fmt::format("'{}' is reserved (a math function or a cell coordinate)", name), "another name");
      if (name.size() > 2 && (name.compare(name.size() - 2, 2, "_i") == 0 || name.compare(name.size() - 2, 2, "_j") == 0))
        src->fail(ptr, fmt::format("'{}' ends in a pair suffix", name), "a name not ending in _i or _j: expressions add them (x_i, x_j)");
    } else if (name == "x" || name == "y" || name == "z" || find_math_function(name)) {
      src->fail(ptr, fmt::format("'{}' is reserved (an axis or a math function)", name), "another name");
    }
    if (!names_.insert(name).second) src->fail(ptr, fmt::format("'{}' is declared twice", name), "names unique across fields, params, operators and lets");
  }

  // The array at ptr as a unit of its own; false (and the names it would
  // declare unknown) when it is no array or too long.
  bool listed(const std::string& ptr, bool non_empty, std::size_t most) {
    if (diag.unit([&] { reader.array(ptr, non_empty, most); })) return true;
    names_sound = false;
    return false;
  }

  void fields() {
    if (!reader.has("/fields") || !listed("/fields", true, kMaxFields)) {
      fields_whole = false;
      return;
    }
    const std::size_t n = reader.at("/fields").size();
    int in = 0, out = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/fields", i);
      fields_whole &= declaring(p + "/name", [&] {
        const JsonReader::Keys keys = reader.entry(p, {"name", "role"}, {"ghost", "description"});
        FieldDecl f;
        f.pointer = p;
        f.name = reader.identifier(p + "/name");
        declare(f.name, p + "/name");
        const std::string role = shape().pair_expressions ? reader.choice(p + "/role", {"input", "target", "source", "output"})
                                                  : reader.choice(p + "/role", {"input", "output"});
        f.role = role == "output" ? FieldDecl::Role::Output : FieldDecl::Role::Input;
        f.set = role == "target" ? FieldDecl::Set::Targets : role == "source" ? FieldDecl::Set::Sources : FieldDecl::Set::Both;
        f.ghost = reader.has(p + "/ghost") ? static_cast<int>(reader.integer(p + "/ghost", 0, 64)) : 0;
        f.slot = f.role == FieldDecl::Role::Input ? in++ : out++;
        if (keys.meant.count("ghost")) ghost_misspelt_.insert(p);  // its ghost width is not the one meant
        spec.fields.push_back(f);
      });
    }
    if (fields_whole && out == 0) diag.unit([&] { src->fail("/fields", "no field has role \"output\"", "at least one output field"); });
  }

  const SpecShape& shape() const { return (family_ ? family_ : families().front())->shape; }

  void one_input_one_output(const std::string& kind, const char* why_no_ghosts) override {
    if (spec.inputs().size() != 1 || spec.output_fields().size() != 1)
      src->fail("/fields", fmt::format("{} input and {} output fields", spec.inputs().size(), spec.output_fields().size()),
                 fmt::format("exactly one input and one output field for kind \"{}\"", kind));
    for (const auto& f : spec.fields)
      if (f.ghost != 0) src->fail(f.pointer + "/ghost", fmt::format("ghost width {} on '{}'", f.ghost, f.name), fmt::format("no ghost zones (0): {}", why_no_ghosts));
  }

  void params() override {
    if (!listed("/params", false, kMaxParams)) return;
    const std::size_t n = reader.at("/params").size();
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/params", i);
      declaring(p + "/name", [&] {
        reader.entry(p, {"name"}, {"value", "description"});
        ParamDecl d;
        d.pointer = p;
        d.name = reader.identifier(p + "/name");
        declare(d.name, p + "/name");
        if (reader.has(p + "/value")) d.value = reader.number(p + "/value");
        spec.params.push_back(d);
      });
    }
  }

  void operators() {
    if (!listed("/operators", false, kMaxOperators)) return;
    const std::size_t n = reader.at("/operators").size();
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/operators", i);
      declaring(p + "/name", [&] {
        OperatorDecl op;
        op.pointer = p;
        const json& j = reader.at(p);
        if (j.is_object() && j.contains("derivative")) {
          reader.entry(p, {"name", "derivative", "order"}, {"description"});
          op.derivative = static_cast<int>(reader.integer(p + "/derivative", 1, 6));
          op.order = static_cast<int>(reader.integer(p + "/order", 2, 16));
          if (op.order % 2) src->fail(p + "/order", fmt::format("order {} is odd; central stencils have even order", op.order), "an even order in [2, 16]");
          op.coeffs = central_weights(op.derivative, op.order);
          const int rad = central_radius(op.derivative, op.order);
          for (int k = -rad; k <= rad; ++k) op.offsets.push_back(k);
        } else if (j.is_object() && j.contains("offsets2d")) {
          explicit_points(p, "offsets2d", kMaxOperatorPoints2d, op.offsets2d, op.coeffs, [&](const std::string& po) {
            const json& pair = reader.at(po);
            if (!pair.is_array() || pair.size() != 2)
              src->fail(po, "not a pair of offsets", "[a, b]: the offsets along the operator's first and second axis, integers in [-32, 32]");
            return std::array<int, 2>{static_cast<int>(reader.integer(po + "/0", -32, 32)), static_cast<int>(reader.integer(po + "/1", -32, 32))};
          }, [](const std::array<int, 2>& o) { return fmt::format("[{}, {}]", o[0], o[1]); });
        } else {
          explicit_points(p, "offsets", 65, op.offsets, op.coeffs, [&](const std::string& po) { return static_cast<int>(reader.integer(po, -32, 32)); },
                          [](int o) { return std::to_string(o); });
        }
        op.name = reader.identifier(p + "/name");
        declare(op.name, p + "/name");
        spec.operators.push_back(op);
      });
    }
  }

  // An explicit operator's points under `key` (at most `most`), each read by
  // `read` at its pointer and distinct, and one coefficient a point.
  template <class Point, class Read, class Show>
  void explicit_points(const std::string& p, const std::string& key, std::size_t most, std::vector<Point>& points, std::vector<Rational>& coeffs,
                       Read read, Show show) {
    reader.entry(p, {"name", key, "coeffs"}, {"description"});
    const std::size_t no = reader.array(p + "/" + key, true, most);
    const std::size_t nc = reader.array(p + "/coeffs", true, most);
    if (no != nc) src->fail(p + "/coeffs", fmt::format("{} coefficients for {} offsets", nc, no), fmt::format("{} coefficients, one per offset", no));
    for (std::size_t k = 0; k < no; ++k) {
      const std::string po = json_pointer_join(p + "/" + key, k);
      const Point o = read(po);
      if (std::count(points.begin(), points.end(), o)) src->fail(po, fmt::format("offset {} appears twice", show(o)), "distinct offsets");
      points.push_back(o);
      coeffs.push_back(reader.rational(json_pointer_join(p + "/coeffs", k)));
    }
  }

  void lets() {
    if (!listed("/lets", false, kMaxLets)) return;
    const std::size_t n = reader.at("/lets").size();
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/lets", i);
      declaring(p + "/name", [&] {
        reader.entry(p, {"name", "expr"}, {"description"});
        LetDecl d;
        d.pointer = p + "/expr";
        d.name = reader.identifier(p + "/name");
        declare(d.name, p + "/name");
        d.text = reader.string(p + "/expr");
        spec.lets.push_back(d);
      });
    }
    // Lower after all names exist so that a forward reference gets its own message.
    Spec& scope = expression_scope ? *expression_scope : spec;
    if (expression_scope) expression_scope->lets = spec.lets;
    for (std::size_t i = 0; i < spec.lets.size(); ++i) {
      auto& d = spec.lets[i];
      const bool ok = diag.unit([&] {
        d.ast = parse_expression_at(d.text, *src, d.pointer);
        require_lowerable(*d.ast);
        if (check_names) check_names(*d.ast, d.pointer);
        d.ir = lower_expression(scope, *d.ast, *src, d.pointer, i, scope_noun());
        scope.lets[i].ir = d.ir;
      });
      if (!ok) broken.insert(d.name);
    }
  }

  void outputs() {
    if (!diag.unit([&] { reader.array("/outputs", true, kMaxFields); })) {
      outputs_whole_ = false;
      return;
    }
    const std::size_t n = reader.at("/outputs").size();
    std::set<int> seen;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string p = json_pointer_join("/outputs", i);
      bool identified = false;  // which output field this entry computes is known
      diag.unit([&] {
        const bool reduces = shape().pair_expressions || shape().output_reductions;
        const JsonReader::Keys keys = reduces ? reader.object(p, {"field", "expr"}, {"description", "reduce"}) : reader.object(p, {"field", "expr"}, {"description"});
        if (!reader.has(p + "/field")) throw UnitFailed{};
        OutputDecl o;
        o.pointer = p + "/expr";
        o.field = output_field(p + "/field", seen, identified);
        if (!keys.complete) throw UnitFailed{};
        o.text = reader.string(p + "/expr");
        o.ast = parse_expression_at(o.text, *src, o.pointer);
        require_lowerable(*o.ast);
        if (check_names) check_names(*o.ast, o.pointer);
        o.ir = lower_expression(expression_scope ? *expression_scope : spec, *o.ast, *src, o.pointer, spec.lets.size(), scope_noun());
        if (shape().pair_expressions) {
          const std::string red = reader.has(p + "/reduce") ? reader.choice(p + "/reduce", {"sum", "min", "max"}) : "sum";
          o.reduce = red == "sum" ? Reduce::Sum : red == "min" ? Reduce::Min : Reduce::Max;
        }
        if (shape().output_reductions) o.op = output_op(p + "/reduce", field_dtype(spec, spec.fields[o.field]));
        spec.outputs.push_back(o);
      });
      outputs_whole_ &= identified;
    }
    // An entry whose field could not be told may be the missing one.
    if (fields_whole && outputs_whole_)
      for (const auto* f : spec.output_fields())
        if (!seen.count(static_cast<int>(f - spec.fields.data())))
          diag.unit([&] { src->fail(f->pointer, fmt::format("output field '{}' has no expression in /outputs", f->name), "an entry in /outputs for every output field"); });
    // Outputs are written in the order of their fields, so the kernel's slots match.
    std::stable_sort(spec.outputs.begin(), spec.outputs.end(), [](const OutputDecl& a, const OutputDecl& b) { return a.field < b.field; });
    // Pairs whose formulas read nothing of the source stage empty sources:
    // a formula of the target alone, reduced over N sources, is a typo
    // (a missing _j), or N times (the min or max: once) that formula.
    if (shape().pair_expressions && outputs_whole_ && spec.outputs.size() == n && n > 0 && spec.pairwise().read_by(true, spec.output_exprs()).empty())
      diag.unit([&] {
        src->fail("/outputs", "no output reads a value of the source: each pair's term is the target's alone",
                  "a formula of the pair: a source field with the suffix _j (m_j), or on a grid a source cell's coordinate (ix_j)");
      });
  }

  // How an output's values combine (SpecShape::output_reductions): "sum"
  // where `ptr` is absent, a name, or an operation with its identity.
  // `values`: the dtype the values combine in (the result's).
  std::shared_ptr<const AssociativeOp> output_op(const std::string& ptr, Dtype values) {
    if (!reader.has(ptr)) return std::make_shared<AssociativeOp>(named_op("sum", values, ptr));
    const json& j = reader.at(ptr);
    if (!j.is_object() && !j.is_string())
      src->fail(ptr, fmt::format("found {}", json_type_name(j)), "\"sum\", \"min\", \"max\", or an operation with its identity: {\"op\": \"a * b\", \"identity\": 1}");
    if (j.is_string()) return std::make_shared<AssociativeOp>(named_op(reader.choice(ptr, {"sum", "min", "max"}), values, ptr));
    reader.object(ptr, {"op", "identity"}, {"description"});
    auto op = std::make_shared<AssociativeOp>();
    op->op_pointer = ptr + "/op";
    op->identity_pointer = ptr + "/identity";
    if (!read_associative_op(*this, *op, values)) throw UnitFailed{};
    return op;
  }

  // The output field named at `ptr`, marked in `seen`; `identified` once it
  // is known which field the entry meant (a misspelt name: the one it looks like).
  int output_field(const std::string& ptr, std::set<int>& seen, bool& identified) {
    const std::string name = reader.string(ptr);
    const FieldDecl* f = spec.find_field(name);
    if (!f || f->role != FieldDecl::Role::Output) {
      if (!f && (broken.count(name) || !fields_whole)) {  // a field whose declaration failed
        identified = broken.count(name) > 0;
        throw UnitFailed{};
      }
      std::vector<std::string> outs;
      for (const auto* x : spec.output_fields()) outs.push_back(x->name);
      if (const auto meant = closest_name(name, outs)) {
        seen.insert(static_cast<int>(spec.find_field(*meant) - spec.fields.data()));
        identified = true;
      }
      src->fail(ptr, fmt::format("'{}' is not an output field{}", name, did_you_mean(name, outs)), fmt::format("one of: {}", fmt::join(outs, ", ")));
    }
    const int field = static_cast<int>(f - spec.fields.data());
    identified = true;
    if (!seen.insert(field).second) src->fail(ptr, fmt::format("output '{}' is computed twice", name), "one expression per output field");
    return field;
  }

  std::string scope_noun() const {
    return shape().pair_expressions ? "a value of the pair (a field with _i for the target or _j for the source), a param or a let"
                       : "a declared input field, param or let";
  }

  // Each input field's ghost width against what the lowered outputs reach;
  // one whose "ghost" key is misspelt is left (its width is not the one meant).
  void ghost_widths() {
    const Footprint fp = spec.footprint();
    for (const auto* f : spec.inputs()) {
      if (ghost_misspelt_.count(f->pointer)) continue;
      diag.unit([&] {
        for (int ax = 0; ax < spec.dims; ++ax) {
          const int need = fp[f->slot][ax];
          if (f->ghost < need) {
            src->fail(f->pointer + (reader.has(f->pointer + "/ghost") ? "/ghost" : ""),
                       fmt::format("ghost width {} of '{}' is smaller than the {} points the outputs reach along {}", f->ghost, f->name, need, axis_name(ax)),
                       fmt::format("ghost >= {}", need));
          }
        }
      });
    }
  }

  void unused() {
    std::vector<Access> acc;
    for (const auto& o : spec.outputs) collect_accesses(*o.ir, acc);
    for (const auto* f : spec.inputs()) {
      const bool used = std::any_of(acc.begin(), acc.end(), [&](const Access& a) {
        // Pair expressions read values of the pair (PairValue), each of one field.
        return shape().pair_expressions ? static_cast<std::size_t>(a.field) < access_fields.size() && access_fields[a.field] == f - spec.fields.data()
                                        : a.field == f->slot;
      });
      if (!used) warn(f->pointer, fmt::format("input field '{}' is never read by the outputs", f->name));
    }
    // Params, operators and lets that no output reaches, through the lets
    // it uses: likely a term left out or a reference to another name.
    std::set<std::string> named;
    std::function<void(const Ast&)> names_in = [&](const Ast& a) {
      if (a.kind == Ast::Kind::Name || a.kind == Ast::Kind::Call) named.insert(a.text);
      for (const auto& x : a.args) names_in(*x);
    };
    for (const auto& o : spec.outputs)
      if (o.ast) names_in(*o.ast);
    // A let reads only the lets before it: from the last down, each one
    // reached adds what it names.
    for (std::size_t i = spec.lets.size(); i-- > 0;)
      if (named.count(spec.lets[i].name) && spec.lets[i].ast) names_in(*spec.lets[i].ast);
    for (const auto& d : spec.params)
      if (!d.device && !named.count(d.name)) warn(d.pointer, fmt::format("param '{}' is never used by the outputs", d.name));
    for (const auto& op : spec.operators)
      if (!named.count(op.name)) warn(op.pointer, fmt::format("operator '{}' is never applied by the outputs", op.name));
    for (const auto& d : spec.lets)
      if (!named.count(d.name)) warn(d.pointer.substr(0, d.pointer.rfind('/')), fmt::format("let '{}' is never used by the outputs", d.name));
  }

  // A warning at `pointer`, with its line and column.
  void warn(const std::string& pointer, const std::string& what) {
    const Location at = src->locate(pointer);
    spec.warnings.push_back(fmt::format("{} (line {}, column {}): {}", pointer, at.line, at.column, what));
  }

  std::set<std::string> names_;
  std::optional<Dtype> dtype_override_;
  const Family* family_ = nullptr;  // once the kind is told

  // What failed, so that what depends on it is skipped rather than blamed.
  bool outputs_whole_ = true;              // every /outputs entry's field is known
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
std::vector<IrPtr> Spec::output_exprs() const {
  std::vector<IrPtr> v;
  for (const auto& o : outputs) v.push_back(o.ir);
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
  if (parsed_footprint) return *parsed_footprint;
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
