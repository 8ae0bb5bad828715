#include "gpen/generator/tunables.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpen/generator/constraints.hpp"
#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/limits.hpp"

namespace gpen {
namespace {

TunableValue read_value(const TunableOffer& b, const nlohmann::json& j, const std::string& ptr, const JsonSource& src) {
  if (b.is_string) {
    if (!j.is_string() || !std::count(b.strings.begin(), b.strings.end(), j.get<std::string>()))
      src.fail(ptr, fmt::format("{} is not a {}{}", j.dump(), b.name, j.is_string() ? did_you_mean(j.get<std::string>(), b.strings) : ""),
               fmt::format("one of: {}", fmt::join(b.strings, ", ")));
    // A value of the kind that this spec's shape cannot take: block on block
    // (pairwise "blocks") for particles, a pencil along several axes. Its
    // plan would find none of the tunables it needs.
    if (!std::count(b.values.begin(), b.values.end(), TunableValue(j.get<std::string>()))) {
      std::vector<std::string> offered;
      for (const auto& v : b.values) offered.push_back(to_string(v));
      src.fail(ptr, fmt::format("{} is not a {} of this spec{}", j.dump(), b.name, b.values_note.empty() ? "" : ": " + b.values_note),
               fmt::format("one of: {}", fmt::join(offered, ", ")));
    }
    return j.get<std::string>();
  }
  if (!j.is_number_integer() || j.get<long long>() < b.lo || j.get<long long>() > b.hi)
    src.fail(ptr, fmt::format("{} is not a valid {}{}", j.dump(), b.name, b.values_note.empty() ? "" : " of this spec: " + b.values_note),
             fmt::format("an integer in [{}, {}]", b.lo, b.hi));
  return j.get<long long>();
}

// What `spec` offers for tunable b in `dtype` (pairwise flag_chunk: 1, 2,
// 4 in float64, 1 in float32).
TunableOffer offer_in(const Spec& spec, Dtype dtype, const TunableOffer& b) {
  if (dtype == spec.dtype) return b;
  Spec other = spec;
  other.dtype = dtype;
  for (auto& o : family_of(other).offers(other))
    if (o.name == b.name) return o;
  return b;
}

// The strategies of a list ("march, stage") one by one.
std::vector<std::string> listed(const std::string& list) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    std::size_t b = at, e = comma;
    while (b < e && list[b] == ' ') ++b;
    while (e > b && list[e - 1] == ' ') --e;
    out.push_back(list.substr(b, e - b));
    at = comma + 1;
  }
  return out;
}

// "the march strategy has", "the march and stage strategies have".
std::string owners(const std::string& list) {
  const auto s = listed(list);
  if (s.size() == 1) return "the " + s[0] + " strategy has";
  return fmt::format("the {} and {} strategies have", fmt::join(s.begin(), s.end() - 1, ", "), s.back());
}

// "march", "march or stage".
std::string alternatives(const std::string& list) { return fmt::format("{}", fmt::join(listed(list), " or ")); }


}  // namespace

std::optional<std::string> off_strategy(const TunableDecl& t, const TunableValue& v, const std::string& strategy) {
  if (t.only_with_strategy.empty() || t.belongs_to(strategy) || v == t.plain) return std::nullopt;
  return fmt::format("{} = {} with strategy {}: only {} it", t.name, to_string(v), strategy, owners(t.only_with_strategy));
}

std::vector<TunableDecl> parse_tunables(const Spec& spec, const nlohmann::json* node, const JsonSource& src, Diagnostics& diag) {
  const auto builtins = family_of(spec).offers(spec);
  std::vector<TunableDecl> out;
  std::vector<std::string> names;
  for (const auto& b : builtins) {
    out.push_back({b.name, b.values, b.default_value, "/tunables", b.only_with_strategy, b.plain, b.values_note});
    names.push_back(b.name);
  }
  if (!node) return out;
  if (!node->is_object()) {
    diag.unit([&] { src.fail("/tunables", "found a non-object", "an object of tunable names"); });
    return out;
  }
  // Each tunable on its own: a wrong one does not hide the next.
  for (auto it = node->begin(); it != node->end(); ++it) {
    const std::string ptr = json_pointer_join("/tunables", it.key());
    auto bi = std::find_if(builtins.begin(), builtins.end(), [&](const TunableOffer& b) { return b.name == it.key(); });
    if (bi == builtins.end() && diag.full()) {
      diag.count_one();
      continue;
    }
    diag.unit([&] {
      if (bi == builtins.end())
        src.fail(ptr, fmt::format("unknown tunable '{}' for kind '{}'{}", it.key(), spec.kind, did_you_mean(it.key(), names)),
                 fmt::format("one of: {}", fmt::join(names, ", ")), true);
      TunableDecl& d = out[bi - builtins.begin()];
      d.pointer = ptr;
      const auto& j = it.value();
      if (!j.is_object()) src.fail(ptr, "found a non-object", "an object with \"values\" and/or \"default\"");
      record_unknown_keys(j, ptr, {"values", "default"}, src, diag);
      if (j.contains("values")) {
        const auto& v = j["values"];
        if (!v.is_array() || v.empty()) src.fail(ptr + "/values", "not a non-empty array", "an array of allowed values");
        src.check_count(ptr + "/values", v.size(), kMaxTunableValues);
        d.values.clear();
        for (std::size_t i = 0; i < v.size(); ++i) d.values.push_back(read_value(*bi, v[i], json_pointer_join(ptr + "/values", i), src));
      }
      // The default: the spec's (a value, or one a dtype, {"float64": 6,
      // "float32": 4}, each one checked whichever dtype is loaded), else
      // gpen's, or the first value where "values" leave that out.
      bool own_default = false;
      if (j.contains("default")) {
        const auto& dj = j["default"];
        const std::string dptr = ptr + "/default";
        // v against what the spec offers (o) and its own values.
        auto allowed = [&](const nlohmann::json& v, const std::string& at, const TunableOffer& o, const std::string& in) {
          const TunableValue value = read_value(o, v, at, src);
          const auto& values = j.contains("values") ? d.values : o.values;
          if (!std::count(values.begin(), values.end(), value))
            src.fail(at, fmt::format("default {} is not among the allowed values{}", to_string(value), in), "a default listed in \"values\"");
          return value;
        };
        if (!dj.is_object()) {
          d.default_value = allowed(dj, dptr, *bi, "");
          own_default = true;
        } else {
          record_unknown_keys(dj, dptr, {"float32", "float64"}, src, diag);
          if (dj.empty()) src.fail(dptr, "found an empty object", "a value, or an object of one a dtype (\"float32\", \"float64\")");
          for (const char* name : {"float32", "float64"}) {
            if (!dj.contains(name)) continue;
            const Dtype dtype = *parse_dtype(name);
            const TunableValue value = allowed(dj[name], json_pointer_join(dptr, name), offer_in(spec, dtype, *bi), fmt::format(" in {}", name));
            if (dtype == spec.dtype) {
              d.default_value = value;
              own_default = true;
            }
          }
        }
      }
      if (!own_default && !std::count(d.values.begin(), d.values.end(), d.default_value)) d.default_value = d.values.front();
    });
  }
  return out;
}

bool overrides_tunable(const std::vector<std::string>& overrides, const std::string& name) {
  return std::any_of(overrides.begin(), overrides.end(), [&](const std::string& o) { return o.substr(0, o.find('=')) == name; });
}

TunableChoice Spec::choose(const std::vector<std::string>& overrides, bool whole) const {
  TunableChoice c;
  for (const auto& t : tunables) c[t.name] = t.default_value;
  std::vector<std::string> names;
  for (const auto& t : tunables) names.push_back(t.name);
  // The override that set each tunable, as the user wrote it.
  std::map<std::string, std::string> set_by;
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    const std::string name = o.substr(0, eq);
    if (eq == std::string::npos)
      throw UsageError(fmt::format("--set {}: not name=value (tunables: {})", o, fmt::join(names, ", ")));
    const TunableDecl* t = find_tunable(name);
    if (!t)
      throw UsageError(fmt::format("--set {}: '{}' names no tunable (tunables: {}){}", o, name, fmt::join(names, ", "), did_you_mean(name, names)));
    const std::string text = o.substr(eq + 1);
    auto match = std::find_if(t->values.begin(), t->values.end(), [&](const TunableValue& v) { return to_string(v) == text; });
    if (match == t->values.end()) {
      std::vector<std::string> vals;
      for (const auto& v : t->values) vals.push_back(to_string(v));
      // A misspelt strategy gets a suggestion; numbers close in spelling are not close.
      const std::string hint = std::holds_alternative<std::string>(t->default_value) ? did_you_mean(text, vals) : "";
      // The reason this spec takes fewer values than the family has goes
      // before the list, which ends the line (scripts read it).
      const std::string why = t->values_note.empty() ? "" : " (" + t->values_note + ")";
      throw UsageError(fmt::format("--set {}: {} is not an allowed value of {}{}; allowed: {}{}", o, text, name, why, fmt::join(vals, ", "), hint));
    }
    c[name] = *match;
    set_by[name] = o;
  }
  // Tunables of another strategy than the chosen one fall back to their
  // plain value; one the user set to anything else is refused here, naming
  // the --set, rather than by the plan at the spec's "tunables".
  for (const auto& t : tunables) {
    if (t.only_with_strategy.empty() || !c.count("strategy")) continue;
    const std::string strategy = to_string(c.at("strategy"));
    if (t.belongs_to(strategy)) continue;
    const auto by = set_by.find(t.name);
    if (by == set_by.end()) c[t.name] = t.plain;
    else if (c.at(t.name) != t.plain)
      throw UsageError(fmt::format("--set {}: only {} {}, and the strategy is {}{}; expected {} = {}, or strategy {}", by->second,
                                   owners(t.only_with_strategy), t.name, strategy, set_by.count("strategy") ? " (--set " + set_by.at("strategy") + ")" : " (the spec's default)",
                                   t.name, to_string(t.plain), alternatives(t.only_with_strategy)));
  }
  // The spec's own defaults keep its constraints (checked when it loads).
  if (whole && !set_by.empty())
    if (const ConstraintDecl* k = first_broken(*this, c))
      throw UsageError(fmt::format("--set {}: breaks the spec's constraint \"{}\" ({})", fmt::join(overrides, " --set "), k->text, k->pointer));
  return c;
}

bool strategy_listed(const std::string& list, const std::string& strategy) {
  const auto s = listed(list);
  return std::find(s.begin(), s.end(), strategy) != s.end();
}

bool TunableDecl::belongs_to(const std::string& strategy) const {
  return only_with_strategy.empty() || strategy_listed(only_with_strategy, strategy);
}

void check_strategy_tunables(const Spec& spec, const TunableChoice& choice) {
  const auto st = choice.find("strategy");
  if (st == choice.end()) return;
  const std::string strategy = to_string(st->second);
  for (const auto& t : spec.tunables) {
    const auto v = choice.find(t.name);
    if (t.only_with_strategy.empty() || v == choice.end()) continue;
    if (const auto why = off_strategy(t, v->second, strategy))
      spec.source->fail(t.pointer, *why, fmt::format("{} = {}, or strategy {}", t.name, to_string(t.plain), alternatives(t.only_with_strategy)));
    if (t.belongs_to(strategy) && !std::count(t.values.begin(), t.values.end(), v->second)) {
      std::vector<std::string> vals;
      for (const auto& x : t.values) vals.push_back(to_string(x));
      spec.source->fail(t.pointer, fmt::format("{} = {} with strategy {}: not one of its values", t.name, to_string(v->second), strategy),
                        fmt::format("one of: {}", fmt::join(vals, ", ")));
    }
  }
}

nlohmann::json tunable_json(const TunableValue& v) {
  if (const auto* n = std::get_if<long long>(&v)) return *n;
  return std::get<std::string>(v);
}

nlohmann::json choice_json(const TunableChoice& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : c) j[name] = tunable_json(value);
  return j;
}

long long tunable_int(const TunableChoice& c, const std::string& name) { return std::get<long long>(c.at(name)); }
const std::string& tunable_string(const TunableChoice& c, const std::string& name) { return std::get<std::string>(c.at(name)); }

std::string describe(const std::vector<TunableDecl>& decls, const TunableChoice& c) {
  std::string s;
  for (const auto& d : decls) s += (s.empty() ? "" : " ") + d.name + "=" + to_string(c.at(d.name));
  return s;
}

}  // namespace gpen
