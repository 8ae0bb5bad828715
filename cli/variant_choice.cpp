#include "variant_choice.hpp"

#include <fmt/format.h>

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/common/problem.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/measure/tune/tuned_kernel.hpp"

namespace gpen::cli {

std::string arch_or_device(const std::string& arch) {
  if (!arch.empty()) return arch;
  std::string why;
  if (driver_available(&why)) return Context(0).info().arch();
  return "sm_90";
}

TunableChoice tuned_or_chosen(const SpecOptions& so, const Spec& s, const std::string& size, const DeviceInfo& d, bool use_db) {
  if (!use_db || !so.set.empty()) return so.choose(s);
  const TuningDb db;
  const TunedChoice t = tuned_choice(s, size, d, db);
  if (!t.record) return so.choose(s);
  fmt::print(stderr, "gpen: using the variant tuned on {} ({} search, {} evaluations; {})\n", t.record->date, t.record->strategy, t.record->evaluations,
             db.path());
  return t.choice;
}

std::vector<std::string> strategies_of(const Spec& s) {
  std::vector<std::string> out;
  if (const TunableDecl* t = s.find_tunable("strategy"))
    for (const auto& v : t->values) out.push_back(to_string(v));
  if (out.empty()) out.push_back("");
  return out;
}

void for_each_variant(const Spec& s, const std::vector<std::string>& strategies, const std::vector<std::string>& blocks,
                      const std::vector<std::string>& fixed, Json& skipped, const std::function<void(const std::vector<std::string>&)>& run) {
  for (const auto& st : strategies)
    for (const auto& b : blocks) {
      std::vector<std::string> set = fixed;
      if (!st.empty()) set.push_back("strategy=" + st);
      if (!b.empty()) {
        const auto x = b.find('x');
        set.push_back("block_x=" + b.substr(0, x));
        if (x != std::string::npos) set.push_back("block_y=" + b.substr(x + 1));
      }
      auto skip = [&](const std::string& why) {
        const std::string variant = fmt::format("{}", fmt::join(set, " "));
        fmt::print("{:<16} {:<7} {:<58} skipped: {}\n", s.name, to_string(s.dtype), variant, why);
        skipped.push_back({{"spec", s.name}, {"dtype", to_string(s.dtype)}, {"variant", variant}, {"reason", why}});
      };
      try {
        run(set);
      } catch (const SpecError& e) {
        skip(e.detail().message);
      } catch (const UsageError& e) {  // a strategy or block shape this spec does not allow
        skip(e.what());
      } catch (const BlockFitError& e) {  // a block this GPU cannot run at the variant's registers
        skip(e.what());
      }
    }
}

CLI::Validator block_shape() {
  return CLI::Validator(
      [](std::string& b) -> std::string {
        auto number = [](const std::string& n) { return !n.empty() && n.size() <= 4 && n.find_first_not_of("0123456789") == std::string::npos; };
        const auto x = b.find('x');
        if (number(b.substr(0, x)) && (x == std::string::npos || number(b.substr(x + 1)))) return {};
        return "'" + b + "' is not a block shape: expected X or XxY, numbers of threads (e.g. 32x8)";
      },
      "XxY", "block shape");
}

[[noreturn]] void no_device(const std::string& why, const std::string& what) { throw NoDeviceError("cannot " + what + ": " + why); }

}  // namespace gpen::cli
