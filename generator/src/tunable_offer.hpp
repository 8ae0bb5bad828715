// What a spec of a given shape may choose for each tunable of its family:
// the offers that parse_tunables() (tunables.cpp) narrows by the spec's
// "tunables" object. Each family's offer function (<kind>_tunables.cpp)
// makes one per row of its table, in the table's order.
#pragma once

#include <string>
#include <vector>

#include "gpen/generator/spec.hpp"
#include "gpen/generator/tunable_table.hpp"

namespace gpen {

struct TunableOffer {
  std::string name;
  bool is_string = false;
  std::vector<TunableValue> values;  // offered when the spec says nothing
  TunableValue default_value;
  long long lo = 0, hi = 0;          // the range a spec may choose ints from
  std::vector<std::string> strings;  // the set a spec may choose strings from
  std::string only_with_strategy;    // see TunableDecl
  TunableValue plain = 0LL;
  std::string values_note;           // why `strings` holds more than this spec may take
};

// An integer tunable: its row, the values offered, the default, the range a
// spec may choose from, and its plain value under another strategy.
template <class Plan>
TunableOffer offer(const TunableRow<Plan>& row, std::vector<TunableValue> values, long long default_value, long long lo, long long hi,
                   long long plain = 0) {
  return TunableOffer{row.name, false, std::move(values), default_value, lo, hi, {}, row.strategy, plain, {}};
}

// The strategy: the ones this spec may take, the default, every one the family has.
template <class Plan>
TunableOffer offer_strategy(const std::vector<TunableRow<Plan>>& rows, const std::vector<std::string>& values, const std::string& default_value,
                            std::vector<std::string> all) {
  std::vector<TunableValue> v(values.begin(), values.end());
  return TunableOffer{strategy_row(rows).name, true, std::move(v), default_value, 0, 0, std::move(all), {}, 0LL, {}};
}

std::vector<TunableOffer> stencil_offers(const Spec& spec);
std::vector<TunableOffer> scan_offers(const Spec& spec);
std::vector<TunableOffer> sbp_offers(const Spec& spec);
std::vector<TunableOffer> pairwise_offers(const Spec& spec);

}  // namespace gpen
