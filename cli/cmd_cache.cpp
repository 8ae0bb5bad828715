// gpen cache path | list | prune | clear: the kernel cache and the tuning
// database beside it.
#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "json_output.hpp"
#include "reports.hpp"
#include "spec_options.hpp"
#include "variant_choice.hpp"
#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/problem.hpp"
#include "gpen/families/common/spec_program.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/measure/tune/tuning_db.hpp"
#include "gpen/runtime/arch.hpp"

namespace gpen::cli {
namespace {

// A prune or clear that left entries it was to remove, or could not list
// the directory, fails (exit 1), after saying what it did remove.
void throw_if_not_removed(const PruneReport& r) {
  if (r.failure.empty()) return;
  if (r.entries_not_removed == 0) throw std::runtime_error(r.failure);
  throw std::runtime_error(fmt::format("{} entr{} not removed; {}", r.entries_not_removed, r.entries_not_removed == 1 ? "y" : "ies", r.failure));
}

}  // namespace

void add_cache(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("cache", "The kernel cache and the tuning database beside it: path, list, prune, clear");
  cmd->require_subcommand(1);
  cmd->add_subcommand("path", "Print the cache directory")->callback([&run] {
    run = [] { fmt::print("{}\n", KernelCache::default_dir()); return kExitOk; };
  });
  auto* list = cmd->add_subcommand("list", "List kernel entries (size, time since last use, spec, kernel) and tuning records");
  auto list_json = std::make_shared<bool>(false);
  list->add_flag("--json", *list_json, "Print the list as JSON (gpen.cache-list/1, docs/json.md)");
  list->callback([&run, list_json] {
    if (*list_json) JsonChannel::open();
    run = [list_json] {
      const auto entries = KernelCache(KernelCache::default_dir()).list();
      std::uint64_t bytes = 0;
      fmt::print("{:<18} {:>9} {:>8}  {:<6} {:<20} {}\n", "key", "bytes", "unused", "arch", "spec", "kernel");
      for (const auto& e : entries) {
        bytes += e.bytes;
        fmt::print("{:<18} {:>9} {:>7}s  {:<6} {:<20} {}{}\n", e.key.substr(0, 16), e.bytes, e.age_seconds, e.arch, e.spec, e.kernel,
                   e.valid ? "" : "(unusable: it " + e.problem + "; will be recompiled)");
      }
      fmt::print("{} entries, {} bytes, in {}\n", entries.size(), bytes, KernelCache::default_dir());
      const TuningDb db;
      const auto records = db.list();
      for (const auto& [key, r] : records) {
        std::string choice;
        for (const auto& [name, value] : r.choice) choice += fmt::format("{}{}={}", choice.empty() ? "" : " ", name, to_string(value));
        fmt::print("tuned: {} size {} ({}), {:.4f} ms, {} evaluations, {}: {}\n", r.spec, r.size, r.date, r.ms, r.evaluations, choice,
                   key.substr(key.find('|') + 1));
      }
      fmt::print("{} tuning records in {}\n", records.size(), db.path());
      if (*list_json) {
        Json doc = json_document("cache-list"), kernels = Json::array(), tuned = Json::array();
        for (const auto& e : entries)
          kernels.push_back({{"key", e.key}, {"bytes", e.bytes}, {"unused_s", e.age_seconds}, {"arch", e.arch}, {"spec", e.spec},
                             {"kernel", e.kernel}, {"usable", e.valid}, {"problem", e.problem}});
        for (const auto& [key, r] : records)
          tuned.push_back({{"key", key}, {"spec", r.spec}, {"size", r.size}, {"date", r.date}, {"strategy", r.strategy},
                           {"tunables", Json(choice_json(r.choice))}, {"ms", r.ms}, {"evaluations", r.evaluations}});
        doc.update(Json{{"dir", KernelCache::default_dir()}, {"bytes", bytes}, {"kernels", kernels}, {"tuning_db", db.path()}, {"tuning", tuned}});
        JsonChannel::emit(doc);
      }
      return kExitOk;
    };
  });
  auto* prune = cmd->add_subcommand("prune", "Remove the least recently used kernel entries until the rest fit, and what interrupted writes left");
  auto max_size = std::make_shared<std::string>();
  prune->add_option("--max-size", *max_size, "At most this many bytes of entries: 500M, 2G, 0 (none kept) (default: $GPEN_CACHE_MAX_SIZE, else 1G; 0 there: no cap)")
      ->check(CLI::Validator([](std::string& v) { return parse_byte_size(v) ? "" : "expected bytes with an optional K, M, G or T (500M, 2G)"; },
                             "SIZE", "size"));
  prune->callback([&run, max_size] {
    run = [max_size] {
      // --max-size 0 keeps no entry; GPEN_CACHE_MAX_SIZE=0 is no cap.
      std::uint64_t cap = 0;
      try {
        cap = max_size->empty() ? KernelCache::default_max_bytes() : *parse_byte_size(*max_size);
      } catch (const std::invalid_argument& e) {  // GPEN_CACHE_MAX_SIZE, the cap it was to prune to
        throw UsageError(e.what());
      }
      if (cap == 0 && max_size->empty()) {
        fmt::print("no cap (GPEN_CACHE_MAX_SIZE=0): nothing pruned in {}\n", KernelCache::default_dir());
        return kExitOk;
      }
      const PruneReport r = KernelCache(KernelCache::default_dir()).prune(cap);
      fmt::print("removed {} entries and {} temporary files from {}: {} bytes of entries, {} before, cap {}\n", r.entries_removed,
                 r.temporaries_removed, KernelCache::default_dir(), r.bytes_after, r.bytes_before, cap);
      throw_if_not_removed(r);
      return kExitOk;
    };
  });
  // Kernels only by default: they come back by compiling, tuning records
  // only by tuning again on a GPU.
  auto* clear = cmd->add_subcommand("clear", "Remove every kernel entry (default), or the tuning records, or both");
  auto what = std::make_shared<std::pair<bool, bool>>(false, false);
  clear->add_flag("--kernels", what->first, "Remove the kernel entries (the default)");
  clear->add_flag("--tuning", what->second, "Remove the tuning records (gpen tune's results)");
  clear->callback([&run, what] {
    run = [what] {
      const auto [kernels, tuning] = *what;
      PruneReport kernels_left;
      if (kernels || !tuning) {
        kernels_left = KernelCache(KernelCache::default_dir()).clear();
        fmt::print("removed {} entries from {}\n", kernels_left.entries_removed, KernelCache::default_dir());
      }
      if (tuning) {  // tried whatever the kernels' clear left
        const TuningDb db;
        fmt::print("removed {} tuning records ({})\n", db.clear(), db.path());
      }
      throw_if_not_removed(kernels_left);
      return kExitOk;
    };
  });
}

}  // namespace gpen::cli
