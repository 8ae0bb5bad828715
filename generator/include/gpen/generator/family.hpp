// A kernel family as the generator sees it: how its JSON reads, what it
// offers a spec to tune, how it plans and prints a unit, what it asks of a
// GPU and how `gpen check` describes it. Each family defines one
// (families/<kind>/<kind>_family.cpp); the registry (families/registry.cpp,
// from families/kinds.def) is the one list of them, and the generator asks
// them instead of testing a spec's kind.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpen/generator/codegen.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/generator/spec_reading.hpp"
#include "gpen/generator/tunable_table.hpp"

namespace gpen {

// What one variant's kernel asks of a GPU: checked against the device's
// limits before a variant is compiled (the tuner's search space).
struct UnitResources {
  int threads = 0;                        // a block
  std::size_t shared_bytes = 0;           // static shared memory a block
  std::size_t dynamic_shared_bytes = 0;   // dynamic shared memory a block, opted in at load
};

// Each member a function of the family's own files (families/<kind>/<kind>_*.cpp).
struct Family {
  const char* kind;
  // How the parts every spec shares read for this kind (its root's keys,
  // roles, expressions); then its own part, read after the fields (and
  // params, where the shape reads them): null for a kind that has none.
  SpecShape shape;
  void (*read)(SpecReading& in);
  // An empty declaration of this kind, for the spec reader to fill.
  FamilyDecl (*declaration)();
  // Its tunables, one row each.
  std::vector<TunableInfo> (*tunables)();
  // What a spec of this shape may choose for each tunable, in the table's order.
  std::vector<TunableOffer> (*offers)(const Spec& spec);
  // The unit of a choice, planned (throws SpecError for a choice the plan
  // refuses) without its source; then its source.
  Variant (*plan_unit)(const Spec& spec, const TunableChoice& choice);
  std::string (*print_unit)(const Spec& spec, const Variant& unit);
  UnitResources (*resources)(const Spec& spec, const TunableChoice& choice);
  // One line for `gpen check`: what the spec computes, e.g. "scan
  // 'cumsum_x', float64, 3-D; s = inclusive scan of u along x, ...".
  std::string (*describe)(const Spec& spec);
  // The operations one point of a variant's unit computes, each
  // structurally distinct subexpression once, as the unit computes them
  // (the roofline's FMA time); null for a family whose work is not counted
  // by the point.
  double (*ops_per_point)(const Spec& spec, const Variant& unit) = nullptr;
  // The choice that makes the same unit as `choice`, with each tunable that
  // has no effect under the others' values at its plain value, where that
  // differs from `choice`; and, where `shape` is given (the arrays a search
  // times on), with each tunable that changes only the launch at the first
  // of its declared values that launches the same kernel alike on `shape`.
  // None where every tunable acts. The tuner times such a choice once, as
  // its twin, where its space holds the twin. Null for a family whose
  // tunables all act wherever they are offered.
  std::optional<TunableChoice> (*plain_twin)(const Spec& spec, const TunableChoice& choice, const std::array<long long, 3>* shape) = nullptr;
};

// Every family, in the order of their kinds in the spec format.
const std::vector<const Family*>& families();
// Their kinds, in that order: what a spec's "kind" may be.
std::vector<std::string> family_kinds();
// The family of `kind`; null when none has it.
const Family* find_family(const std::string& kind);
// The family of a spec read by load_spec (its kind was checked there).
const Family& family_of(const Spec& spec);

}  // namespace gpen
