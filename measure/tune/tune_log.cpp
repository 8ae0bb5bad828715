#include "gpen/measure/tune/tune_log.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpen/generator/error.hpp"
#include "gpen/generator/regular_file.hpp"
#include "gpen/runtime/bounded_json.hpp"

namespace gpen {
namespace {

// "strategy=march block_x=32" -> {"strategy=march", "block_x=32"}
std::vector<std::string> settings_of(const std::string& variant) {
  std::vector<std::string> out;
  std::istringstream in(variant);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

const nlohmann::json* member(const nlohmann::json& o, const char* name, nlohmann::json::value_t type) {
  const auto it = o.find(name);
  if (it == o.end()) return nullptr;
  const bool number = type == nlohmann::json::value_t::number_float;
  if (number ? !it->is_number() : it->type() != type) return nullptr;
  return &*it;
}

}  // namespace

std::string tune_log_line(const TuneLogHeader& h) {
  return nlohmann::json{{"schema", kTuneLogSchema}, {"spec", h.spec}, {"spec_hash", h.spec_hash}, {"size", h.size}, {"gpu", h.gpu}, {"arch", h.arch}}
      .dump();
}

std::string tune_log_line(const TunedVariant& v) {
  return nlohmann::json{{"variant", v.variant},
                        {"ms", v.ms ? nlohmann::json(*v.ms) : nlohmann::json(nullptr)},
                        {"teff_gbs", v.teff_gbs},
                        {"pairs_per_s", v.pairs_per_s},
                        {"registers", v.registers},
                        {"spill_bytes", v.spill_bytes},
                        {"refused", v.refused},
                        {"reason", v.reason}}
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TuneLog read_tune_log(const std::string& path, const Spec& spec, const TuneLogHeader& expect) {
  std::string text;
  try {
    text = read_regular_file(path, kMaxTuneLogBytes, Links::Follow);
  } catch (const FileReadError& e) {
    throw TuneLogError(fmt::format("--resume {}: {}", path, e.problem()));
  }
  TuneLog log;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  auto fail = [&](const std::string& why) { return TuneLogError(fmt::format("{}:{}: {}", path, number, why)); };
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    // A log line is a flat object; the file may come from anyone.
    const nlohmann::json j = parse_bounded_json(line, 1);
    if (j.is_discarded()) {
      // Only the last line may be cut short by a process killed mid-write.
      if (in.peek() == EOF && number > 1) {
        log.warnings.push_back(fmt::format("{}:{}: skipped: not a whole JSON line (the search was stopped while writing it?)", path, number));
        continue;
      }
      throw fail("not a line of a gpen tune log (JSON expected)");
    }
    if (!j.is_object()) throw fail("not a line of a gpen tune log (an object expected)");
    if (number == 1) {
      const auto* schema = member(j, "schema", nlohmann::json::value_t::string);
      if (!schema || *schema != kTuneLogSchema) throw fail(fmt::format("not a gpen tune log: the first line must have \"schema\": \"{}\"", kTuneLogSchema));
      auto field = [&](const char* name) {
        const auto* v = member(j, name, nlohmann::json::value_t::string);
        if (!v) throw fail(fmt::format("the header has no string \"{}\"", name));
        return v->get<std::string>();
      };
      log.header = {field("spec"), field("spec_hash"), field("size"), field("gpu"), field("arch")};
      auto same = [&](const char* what, const std::string& was, const std::string& now) {
        if (was != now) throw fail(fmt::format("the log is of {} '{}', this search of '{}': times measured there are no evidence here", what, quoted_text(was), quoted_text(now)));
      };
      same("the spec hash", log.header.spec_hash, expect.spec_hash);
      same("the size", log.header.size, expect.size);
      same("the GPU", log.header.gpu, expect.gpu);
      same("the arch", log.header.arch, expect.arch);
      continue;
    }
    const auto* variant = member(j, "variant", nlohmann::json::value_t::string);
    const auto* reason = member(j, "reason", nlohmann::json::value_t::string);
    if (!variant || !reason || !j.contains("ms")) throw fail("a variant line needs \"variant\", \"ms\" and \"reason\"");
    TunedVariant v;
    v.variant = variant->get<std::string>();
    v.reason = reason->get<std::string>();
    if (!j["ms"].is_null()) {
      if (!j["ms"].is_number() || !(j["ms"].get<double>() > 0)) throw fail("\"ms\" must be a positive number or null");
      v.ms = j["ms"].get<double>();
    }
    if (const auto* x = member(j, "teff_gbs", nlohmann::json::value_t::number_float)) v.teff_gbs = x->get<double>();
    if (const auto* x = member(j, "pairs_per_s", nlohmann::json::value_t::number_float)) v.pairs_per_s = x->get<double>();
    v.rate = v.teff_gbs > 0 ? v.teff_gbs : v.pairs_per_s;  // one of them is the variant's rate, the other 0
    if (const auto it = j.find("registers"); it != j.end() && it->is_number_integer())
      v.registers = static_cast<int>(std::clamp<long long>(it->get<long long>(), -1, 1 << 20));
    if (const auto it = j.find("spill_bytes"); it != j.end() && it->is_number_integer())
      v.spill_bytes = static_cast<int>(std::clamp<long long>(it->get<long long>(), -1, 1 << 30));
    if (const auto* x = member(j, "refused", nlohmann::json::value_t::boolean)) v.refused = x->get<bool>();
    if (v.refused && v.ms) throw fail("a refused variant has no \"ms\"");
    try {
      v.choice = spec.choose(settings_of(v.variant), false);
    } catch (const SpecError& e) {
      log.warnings.push_back(fmt::format("{}:{}: skipped: {}", path, number, e.detail().message));
      continue;
    } catch (const UsageError& e) {  // a value the spec no longer allows
      log.warnings.push_back(fmt::format("{}:{}: skipped: {}", path, number, e.what()));
      continue;
    }
    log.variants.push_back(std::move(v));
  }
  if (number == 0) throw TuneLogError(fmt::format("--resume {}: the file is empty", path));
  return log;
}

}  // namespace gpen
