// Helpers of the families' offer functions (<kind>_tunables.cpp), which
// make one TunableOffer (tunable_table.hpp) per row of the family's table,
// in the table's order.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "gpen/generator/spec.hpp"
#include "gpen/generator/tunable_table.hpp"

namespace gpen {

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
// Family::plain_twin of the stencil family.
std::optional<TunableChoice> stencil_plain_twin(const Spec& spec, const TunableChoice& choice, const std::array<long long, 3>* shape);
std::vector<TunableOffer> scan_offers(const Spec& spec);
std::vector<TunableOffer> sbp_offers(const Spec& spec);
std::vector<TunableOffer> pairwise_offers(const Spec& spec);
std::vector<TunableOffer> reduce_offers(const Spec& spec);

}  // namespace gpen
