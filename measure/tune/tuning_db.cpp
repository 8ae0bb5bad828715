#include "gpen/measure/tune/tuning_db.hpp"

#include "gpen/generator/tunables.hpp"

#include <cmath>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpen/generator/regular_file.hpp"
#include "gpen/runtime/bounded_json.hpp"
#include "gpen/runtime/kernel_cache.hpp"
#include "gpen/runtime/new_file.hpp"
#include "gpen/runtime/nvrtc_compiler.hpp"
#include "gpen/runtime/nvrtc_library.hpp"

namespace gpen {
namespace fs = std::filesystem;

std::string TuningDb::default_path() { return KernelCache::default_dir() + "/tuning.json"; }

TuningDb::TuningDb(std::string path) : path_(std::move(path)) {}

namespace {

// Thousands of records at a few hundred bytes each; a larger file is not read.
constexpr std::size_t kMaxTuningDbBytes = std::size_t{64} << 20;
constexpr int kTuningDbDepth = 3;  // the file, a record, its choice

// The records at `path`. Anything but a regular file of JSON there (none, a
// link, a FIFO, a corrupt file) reads as no records: the next store starts
// over rather than crash, hang or follow a link out of the cache directory.
nlohmann::json read_all(const std::string& path) {
  std::string text;
  try {
    text = read_regular_file(path, kMaxTuningDbBytes, Links::Refuse);
  } catch (const FileReadError&) {
    return nlohmann::json::object();
  }
  nlohmann::json j = parse_bounded_json(text, kTuningDbDepth);
  return j.is_object() ? j : nlohmann::json::object();
}

// A record's fields but its choice. Throws nlohmann::json's exceptions for
// a field of the wrong type.
TuningRecord record_fields(const nlohmann::json& j) {
  TuningRecord r;
  r.spec = j.value("spec", "");
  r.size = j.value("size", "");
  r.strategy = j.value("strategy", "");
  r.date = j.value("date", "");
  r.ms = j.value("ms", 0.0);
  r.teff_gbs = j.value("teff_gbs", 0.0);
  r.copy_gbs = j.value("copy_gbs", 0.0);
  r.pairs_per_s = j.value("pairs_per_s", 0.0);
  r.evaluations = j.value("evaluations", 0);
  return r;
}

}  // namespace

std::vector<std::pair<std::string, TuningRecord>> TuningDb::list() const {
  std::vector<std::pair<std::string, TuningRecord>> out;
  const nlohmann::json all = read_all(path_);
  for (const auto& [key, j] : all.items()) {
    if (!j.is_object()) continue;
    try {
      TuningRecord r = record_fields(j);
      for (const auto& [k, v] : j.at("choice").items()) {
        if (v.is_number_integer()) r.choice[k] = v.get<long long>();
        else r.choice[k] = v.get<std::string>();
      }
      out.emplace_back(key, std::move(r));
    } catch (const nlohmann::json::exception&) {
      // malformed: not listed, as find() would not use it
    }
  }
  return out;
}

std::size_t TuningDb::clear() const {
  const std::size_t n = read_all(path_).size();
  std::error_code ec;
  fs::remove(path_, ec);  // unlink: a link goes, its target stays
  return n;
}

std::optional<TuningRecord> TuningDb::find(const TuningKey& key, const Spec& spec) const {
  const nlohmann::json all = read_all(path_);
  const auto it = all.find(key.str());
  if (it == all.end() || !it->is_object()) return std::nullopt;
  const auto& j = *it;
  TuningRecord r;
  try {
    r = record_fields(j);
    std::vector<std::string> overrides;
    const auto& choice = j.at("choice");
    const std::string strategy = choice.value("strategy", "");
    for (const auto& [k, v] : choice.items()) {
      // A strategy's own tunable under another strategy holds its plain
      // value, which may be none of its values (cell_block of a tile);
      // choose() puts it back.
      const TunableDecl* t = spec.find_tunable(k);
      if (t && !t->belongs_to(strategy) && v.is_number_integer() &&
          TunableValue(v.get<long long>()) == t->plain)
        continue;
      overrides.push_back(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
    }
    // A record made before one of the spec's tunables existed holds no
    // value for it: today's default there would make a variant nobody
    // measured.
    for (const auto& t : spec.tunables)
      if (!choice.contains(t.name)) return std::nullopt;
    r.choice = spec.choose(overrides, false);
  } catch (const std::exception&) {
    return std::nullopt;  // a value the spec no longer allows, or a malformed record
  }
  return r;
}

void TuningDb::store(const TuningKey& key, const TuningRecord& r) const {
  std::error_code ec;
  fs::create_directories(fs::path(path_).parent_path(), ec);
  nlohmann::json all = read_all(path_);
  const nlohmann::json choice = choice_json(r.choice);
  all[key.str()] = {{"spec", r.spec}, {"size", r.size}, {"strategy", r.strategy}, {"date", r.date}, {"choice", choice},
                    {"ms", r.ms}, {"teff_gbs", r.teff_gbs}, {"copy_gbs", r.copy_gbs}, {"evaluations", r.evaluations}};
  if (r.pairs_per_s > 0) all[key.str()]["pairs_per_s"] = r.pairs_per_s;
  try {
    replace_file(path_, all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } catch (const std::system_error& e) {
    throw std::runtime_error(fmt::format("could not store the tuning database '{}': {}", path_, e.what()));
  }
}

}  // namespace gpen
