// A family's tunables as a table: one row per tunable says what it is once
// (name, one-line doc, the constant it becomes in the generated unit, the
// strategy it belongs to, the member of the family's plan that holds it).
// The plan is filled from the table (fill_plan), so no plan names a tunable
// by string; what a spec may choose (values, default, range) depends on the
// spec's shape and is offered per row by the family's offer function
// (families/<kind>/<kind>_tunables.cpp).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "gpen/generator/error.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

// The one tunable that picks a kernel's shape; the plan reads it itself (an
// enum of the family's), the other rows fill members.
inline constexpr const char* kStrategyTunable = "strategy";

template <class Plan>
struct TunableRow {
  const char* name;
  const char* doc;       // one line: what it changes
  const char* binding;   // its constant in the generated Bindings, e.g. "kBlockX"; "" when only the host uses it
  const char* strategy;  // the strategies that have it ("march, stage"); "" for every strategy
  std::variant<std::monostate, int Plan::*, bool Plan::*> member;  // monostate: the strategy
};

// Sets every member of `plan` that a row of `rows` names from `choice`,
// skipping rows of another strategy than the chosen one.
template <class Plan>
void fill_plan(const std::vector<TunableRow<Plan>>& rows, const TunableChoice& choice, Plan& plan) {
  const auto strategy = choice.find(kStrategyTunable);
  for (const auto& r : rows) {
    if (*r.strategy && (strategy == choice.end() || !strategy_listed(r.strategy, to_string(strategy->second)))) continue;
    if (std::holds_alternative<std::monostate>(r.member)) continue;
    const auto v = choice.find(r.name);
    GPEN_INTERNAL_CHECK(v != choice.end() && std::holds_alternative<long long>(v->second), std::string("no integer tunable ") + r.name + " in the choice");
    const long long x = std::get<long long>(v->second);
    if (const auto* m = std::get_if<int Plan::*>(&r.member)) plan.*(*m) = static_cast<int>(x);
    else plan.*std::get<bool Plan::*>(r.member) = x != 0;
  }
}

// The generated unit's constants of the rows that have a binding, in the
// table's order, each with its plan member's value:
//   "  static constexpr int kBlockX = 32;\n"
// Every row's, whatever the strategy (another strategy's hold their plain
// values), so that the templates may name any of them.
template <class Plan>
std::string binding_lines(const std::vector<TunableRow<Plan>>& rows, const Plan& plan) {
  std::string s;
  for (const auto& r : rows) {
    if (!*r.binding) continue;
    if (const auto* m = std::get_if<int Plan::*>(&r.member))
      s += std::string("  static constexpr int ") + r.binding + " = " + std::to_string(plan.*(*m)) + ";\n";
    else if (const auto* b = std::get_if<bool Plan::*>(&r.member))
      s += std::string("  static constexpr bool ") + r.binding + " = " + (plan.*(*b) ? "true" : "false") + ";\n";
  }
  return s;
}

// The row whose member is `m`; the strategy's row. An internal error when
// the table has none.
template <class Plan, class M>
const TunableRow<Plan>& row_of(const std::vector<TunableRow<Plan>>& rows, M Plan::*m) {
  for (const auto& r : rows)
    if (const auto* x = std::get_if<M Plan::*>(&r.member); x && *x == m) return r;
  throw InternalError("a tunable missing from its family's table", __FILE__, __LINE__);
}
template <class Plan>
const TunableRow<Plan>& strategy_row(const std::vector<TunableRow<Plan>>& rows) {
  for (const auto& r : rows)
    if (std::holds_alternative<std::monostate>(r.member)) return r;
  throw InternalError("no strategy in its family's table", __FILE__, __LINE__);
}

// Throws SpecError at the spec's declaration of the tunable that `m` holds
// (or of the strategy): a choice its plan refuses.
template <class Plan, class M>
[[noreturn]] void refuse_tunable(const Spec& spec, const std::vector<TunableRow<Plan>>& rows, M Plan::*m, const std::string& msg,
                                 const std::string& expected) {
  spec.source->fail(spec.find_tunable(row_of(rows, m).name)->pointer, msg, expected);
}
template <class Plan>
[[noreturn]] void refuse_strategy(const Spec& spec, const std::vector<TunableRow<Plan>>& rows, const std::string& msg, const std::string& expected) {
  spec.source->fail(spec.find_tunable(strategy_row(rows).name)->pointer, msg, expected);
}

// What a spec of a given shape may choose for one tunable of its family
// (Family::offers): parse_tunables() narrows it by the spec's "tunables".
struct TunableOffer {
  std::string name;
  bool is_string = false;
  std::vector<TunableValue> values;  // offered when the spec says nothing
  TunableValue default_value;
  long long lo = 0, hi = 0;          // the range a spec may choose ints from
  std::vector<std::string> strings;  // the set a spec may choose strings from
  std::string only_with_strategy;    // see TunableDecl
  TunableValue plain = 0LL;
  std::string values_note;           // why this spec may take fewer values than the family has
};

// What every family's table says, without its plan type: for the check of
// specs/spec.schema.json and specs/README.md, and for documentation.
struct TunableInfo {
  std::string name, doc, binding, strategy;
};
template <class Plan>
std::vector<TunableInfo> table_info(const std::vector<TunableRow<Plan>>& rows) {
  std::vector<TunableInfo> out;
  for (const auto& r : rows) out.push_back({r.name, r.doc, r.binding, r.strategy});
  return out;
}


}  // namespace gpen
