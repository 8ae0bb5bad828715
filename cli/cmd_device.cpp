// gpen compile | run | bench | cache | survey: the commands that use the
// runtime. Without a driver or GPU, compile and cache still work; run and
// bench say why they cannot launch (exit 3).
#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>

#include <fmt/format.h>
#include "commands.hpp"
#include "json_output.hpp"
#include "spec_options.hpp"
#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/problem.hpp"
#include "gpen/families/common/spec_program.hpp"
#include "gpen/families/pairwise/pairwise_run.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/measure/tune/tuning_db.hpp"
#include "gpen/runtime/arch.hpp"

namespace gpen::cli {
namespace {

std::string arch_or_device(const std::string& arch) {
  if (!arch.empty()) return arch;
  std::string why;
  if (driver_available(&why)) return Context(0).info().arch();
  return "sm_90";
}

Json verify_json(const std::optional<Comparison>& c) {
  if (!c) return nullptr;
  Json j = {{"pass", c->pass}, {"rel_l2", c->rel_l2}, {"max_abs", c->max_abs}, {"tolerance", c->tolerance}, {"non_finite", c->non_finite},
            {"ghost_changed", c->ghost_changed}};
  if (c->bound_ratio >= 0) j["worst_of_bound"] = c->bound_ratio;
  return j;
}

// What `--json` says of a variant run by run and bench (docs/json.md): the
// facts, the time, the work and rate in the problem's names, the check.
Json report_json(const Problem& p, const Measurement& m, int repeat) {
  const Spec& s = p.spec();
  const RateScale& k = p.scale();
  return Json{{"spec", m.spec},
              {"kind", s.kind},
              {"dtype", to_string(s.dtype)},
              {"variant", m.variant},
              {"tunables", Json(choice_json(m.tunables))},
              {"unit", m.unit},
              {"cache", {{"source", m.cache}, {"ms", m.cache_ms}, {"load_ms", m.load_ms}}},
              {"usage", to_json(m.usage)},
              {"size", p.size()},
              {"repeat", repeat},
              {"median_ms", m.median_ms},
              {"min_ms", m.min_ms},
              {k.work, m.work},
              {k.rate, k.in_unit(m.rate)},
              {k.percent, k.percent_of(m.rate)},
              {"verify", verify_json(m.check)}};
}

// The tuned variant for this spec, size class and GPU when the tuning
// database has one and the user set no tunable; else the spec's choice.
// `size` as `gpen run --size` reads it for the spec's kind.
TunableChoice tuned_or_chosen(const SpecOptions& so, const Spec& s, const std::string& size, const DeviceInfo& d, bool use_db) {
  if (!use_db || !so.set.empty()) return so.choose(s);
  const TuningDb db;
  const TuningKey key = problem_tuning_key(s, size, d);
  if (auto r = db.find(key, s)) {
    fmt::print(stderr, "gpen: using the variant tuned on {} ({} search, {} evaluations; {})\n", r->date, r->strategy, r->evaluations, db.path());
    return r->choice;
  }
  return so.choose(s);
}

// Every strategy a spec allows; one empty name for kinds without strategies (scans).
std::vector<std::string> strategies_of(const Spec& s) {
  std::vector<std::string> out;
  if (const TunableDecl* t = s.find_tunable("strategy"))
    for (const auto& v : t->values) out.push_back(to_string(v));
  if (out.empty()) out.push_back("");
  return out;
}

// gpen.run/1: one run's report, with the bound it is measured against.
Json run_document(const DeviceInfo& d, const Problem& p, const Measurement& m, int repeat) {
  Json doc = json_document("run");
  doc["gpu"] = d.name;
  doc["arch"] = d.arch();
  doc[p.scale().bound] = p.scale().bound_value;
  doc.update(report_json(p, m, repeat));
  return doc;
}

// `gpen bench`'s variants of a spec: every strategy x block shape ("X" or
// "XxY"), with the fixed overrides. `run` gets each one's overrides; a
// combination the spec refuses is printed as skipped.
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
      }
    }
}

// `gpen bench --blocks`: "X" or "XxY", numbers of threads.
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


}  // namespace

void add_compile(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("compile", "Generate and compile a spec with NVRTC, through the kernel cache");
  struct Opts { SpecOptions spec; std::string arch, size; bool json = false, no_tuned = false; };
  auto o = std::make_shared<Opts>();
  o->spec.add_to(*cmd);
  cmd->add_option("--arch", o->arch, "Target, e.g. sm_90 (default: the GPU's, else sm_90)")
      ->check(CLI::Validator([](std::string& a) { return arch_problem(a); }, "sm_NN[a|f]", "arch"));
  cmd->add_option("--size", o->size, "Problem size: with a GPU, take the variant tuned for it (gpen tune) if there is one");
  cmd->add_flag("--no-tuned", o->no_tuned, "Ignore the tuning database");
  cmd->add_flag("--json", o->json, "Print the result as JSON (gpen.compile/1, docs/json.md); other output goes to stderr");
  cmd->callback([&run, o] {
    if (o->json) JsonChannel::open();
    run = [o] {
      const Spec s = o->spec.load();
      TunableChoice choice = o->spec.choose(s);
      if (!o->size.empty()) check_problem_size(s, o->size);
      std::string why;
      if (!o->size.empty() && driver_available(&why))
        choice = tuned_or_chosen(o->spec, s, o->size, Context(0).info(), !o->no_tuned);
      const Variant g = o->spec.generate(s, choice);
      const std::string arch = arch_or_device(o->arch);
      const auto r = process_cache().get(spec_program(s, g), arch);
      const std::string src = r.source == KernelCache::Source::Compiled ? "miss (compiled)" : fmt::format("hit ({})", to_string(r.source));
      const auto& u = r.kernel.usage;
      const std::size_t dynamic_shared = family_of(s).resources(s, g.choice).dynamic_shared_bytes;
      if (o->json) {
        Json doc = json_document("compile");
        doc.update(Json{{"spec", s.name}, {"kind", s.kind}, {"dtype", to_string(s.dtype)}, {"arch", arch},
                        {"variant", describe(s.tunables, g.choice)}, {"tunables", Json(choice_json(g.choice))}, {"unit", g.name},
                        {"kernel", g.kernel_name}, {"cache", {{"source", to_string(r.source)}, {"ms", r.ms}, {"key", r.key}}},
                        {"usage", to_json(u)}, {"dynamic_shared_bytes", dynamic_shared}});
        JsonChannel::emit(doc);
      } else {
        fmt::print("{} ({}) for {}: cache {} in {:.1f} ms\n", g.name, describe(s.tunables, g.choice), arch, src, r.ms);
        fmt::print("  registers {}, spill stores {} B, spill loads {} B, shared {} B, stack {} B\n", u.registers, u.spill_stores,
                   u.spill_loads, u.shared_bytes, u.stack_bytes);
        if (dynamic_shared) fmt::print("  dynamic shared {} B a block, opted in at load\n", dynamic_shared);
        fmt::print("  key {}\n", r.key);
      }
      return kExitOk;
    };
  });
}

void add_run(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("run", "Run a spec on the GPU: random inputs, poisoned outputs, timing, verification");
  struct Opts { SpecOptions spec; std::string size = "128"; int repeat = 20; bool verify = false, json = false, periodic = false, no_tuned = false; };
  auto o = std::make_shared<Opts>();
  o->spec.add_to(*cmd);
  cmd->add_flag("--no-tuned", o->no_tuned, "Ignore the tuning database (gpen tune)");
  cmd->add_option("--size", o->size, "Interior size NX[xNY[xNZ]] (one number: a cube)");
  cmd->add_option("--repeat", o->repeat, "Timed launches (median reported)")->check(CLI::Range(1, kMaxRepeat));
  cmd->add_flag("--verify", o->verify, "Compare with the CPU reference in double precision");
  cmd->add_flag("--periodic", o->periodic, "Fill input ghost zones periodically on the GPU");
  cmd->add_flag("--json", o->json, "Print the result as JSON (gpen.run/1, docs/json.md); other output goes to stderr");
  cmd->callback([&run, o] {
    if (o->json) JsonChannel::open();
    run = [o] {
      const Spec s = o->spec.load();
      const TunableChoice choice = o->spec.choose(s);
      check_problem_size(s, o->size);
      o->spec.generate(s, choice);  // plan errors before any device work
      std::string why;
      if (!driver_available(&why)) no_device(why, "run " + s.name);
      Context ctx(0);
      ProblemOptions po;
      po.periodic = o->periodic;
      const auto problem = make_problem(ctx, s, o->size, po);
      const Measurement m = problem->measure(tuned_or_chosen(o->spec, s, o->size, ctx.info(), !o->no_tuned), o->repeat, o->verify);
      if (o->json) {
        JsonChannel::emit(run_document(ctx.info(), *problem, m, o->repeat));
      } else {
        fmt::print("{} on {} ({}), size {}, {}\n", s.name, ctx.info().name, to_string(s.dtype), o->size, m.variant);
        fmt::print("  kernel {} (cache: {} in {:.2f} ms, module load {:.2f} ms), {} registers, {} B spills\n", m.unit, m.cache, m.cache_ms,
                   m.load_ms, m.usage.registers, m.usage.spill_stores);
        fmt::print("  time {:.4f} ms (median of {}), {}\n", m.median_ms, o->repeat, problem->rate_text(m));
        if (m.check) fmt::print("  verify: {}\n", m.check->summary());
      }
      return m.check && !m.check->pass ? kExitInvalid : kExitOk;
    };
  });
}

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
  prune->add_option("--max-size", *max_size, "At most this many bytes of entries: 500M, 2G (default: $GPEN_CACHE_MAX_SIZE, else 1G)")
      ->check(CLI::Validator([](std::string& v) { return parse_byte_size(v) ? "" : "expected bytes with an optional K, M, G or T (500M, 2G)"; },
                             "SIZE", "size"));
  prune->callback([&run, max_size] {
    run = [max_size] {
      const std::uint64_t cap = max_size->empty() ? KernelCache::default_max_bytes() : *parse_byte_size(*max_size);
      if (cap == 0) {
        fmt::print("no cap (GPEN_CACHE_MAX_SIZE=0): nothing pruned in {}\n", KernelCache::default_dir());
        return kExitOk;
      }
      const PruneReport r = KernelCache(KernelCache::default_dir()).prune(cap);
      fmt::print("removed {} entries and {} temporary files from {}: {} bytes of entries, {} before, cap {}\n", r.entries_removed,
                 r.temporaries_removed, KernelCache::default_dir(), r.bytes_after, r.bytes_before, cap);
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
      if (kernels || !tuning) fmt::print("removed {} entries from {}\n", KernelCache(KernelCache::default_dir()).clear(), KernelCache::default_dir());
      if (tuning) {
        const TuningDb db;
        fmt::print("removed {} tuning records ({})\n", db.clear(), db.path());
      }
      return kExitOk;
    };
  });
}

void add_bench(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("bench", "Time spec variants beside a device-to-device copy measured in the same run");
  struct Opts { std::vector<std::string> specs; std::string size = "512", dtype; std::vector<std::string> strategies, blocks, set; int repeat = 20; bool verify = false, json = false; };
  auto o = std::make_shared<Opts>();
  cmd->add_option("specs", o->specs, "Spec files")->required()->check(CLI::ExistingFile);
  cmd->add_option("--size", o->size, "Interior size");
  cmd->add_option("--dtype", o->dtype, "Override the dtype (float32|float64)")->check(CLI::IsMember({"float32", "float64"}));
  cmd->add_option("--strategies", o->strategies, "Strategies to time (default: every allowed one)")->delimiter(',');
  cmd->add_option("--blocks", o->blocks, "Block shapes XxY to try (default: the spec's default)")->delimiter(',')->check(block_shape());
  cmd->add_option("--set", o->set, "Override a tunable for every variant: name=value (repeatable)");
  cmd->add_option("--repeat", o->repeat, "Timed launches per variant")->check(CLI::Range(1, kMaxRepeat));
  cmd->add_flag("--verify", o->verify, "Verify every variant against the CPU reference");
  cmd->add_flag("--json", o->json, "Print the results as JSON (gpen.bench/1, docs/json.md); the table goes to stderr");
  cmd->callback([&run, o] {
    if (o->json) JsonChannel::open();
    run = [o] {
      // Every spec loads, and takes the size and the --set, before any device work.
      for (const auto& path : o->specs) {
        const Spec s = load_spec(path, o->dtype.empty() ? std::nullopt : parse_dtype(o->dtype));
        check_problem_size(s, o->size);
        s.choose(o->set);
      }
      std::string why;
      if (!driver_available(&why)) no_device(why, "benchmark");
      Context ctx(0);
      const double copy = measure_copy_gbs(ctx, std::size_t(1) << 30);
      fmt::print("{}: device-to-device copy {:.1f} GB/s (read + write)\n", ctx.info().name, copy);
      fmt::print("{:<16} {:<7} {:<58} {:>9} {:>9} {:>7} {:>5} {:>6}\n", "spec", "dtype", "variant", "ms", "GB/s", "%copy", "regs", "verify");
      Json all = Json::array(), skipped = Json::array();
      int status = kExitOk;
      for (const auto& path : o->specs) {
        const Spec s = load_spec(path, o->dtype.empty() ? std::nullopt : parse_dtype(o->dtype));
        std::vector<std::string> strategies = o->strategies;
        if (strategies.empty()) strategies = strategies_of(s);
        std::vector<std::string> blocks = o->blocks;
        if (blocks.empty()) blocks.push_back("");
        // One problem for all the variants of a spec: inputs are filled once.
        ProblemOptions po;
        po.copy_gbs = copy;
        const auto problem = make_problem(ctx, s, o->size, po);
        for_each_variant(s, strategies, blocks, o->set, skipped, [&](const std::vector<std::string>& set) {
          const Measurement m = problem->measure(s.choose(set), o->repeat, o->verify);
          const std::string v = m.check ? (m.check->pass ? "pass" : "FAIL") : "-";
          if (m.check && !m.check->pass) status = kExitInvalid;
          fmt::print("{:<16} {:<7} {:<58} {:>9.4f} {} {:>5} {:>6}\n", s.name, to_string(s.dtype), m.variant, m.median_ms, problem->rate_columns(m),
                     m.usage.registers, v);
          std::fflush(stdout);  // a row at a time when piped, as survey
          all.push_back(report_json(*problem, m, o->repeat));
        });
      }
      if (o->json) {
        Json doc = json_document("bench");
        doc.update(Json{{"gpu", ctx.info().name}, {"arch", ctx.info().arch()}, {"copy_gbs", copy},
                        {"rsqrt_bound_per_s", rsqrt_bound_per_s(ctx.info())}, {"runs", all}, {"skipped", skipped}});
        JsonChannel::emit(doc);
      }
      return status;
    };
  });
}

void add_survey(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("survey", "Check, generate and compile every spec under DIR (and strategy); with a GPU, also run and verify each");
  struct Opts { std::string dir = "specs"; std::string size = "67x45x33"; bool json = false; };
  auto o = std::make_shared<Opts>();
  cmd->add_option("dir", o->dir, "Directory of specs (searched recursively)")->check(CLI::ExistingDirectory);
  cmd->add_option("--size", o->size, "Size for the GPU runs NXxNYxNZ (2-D specs use the first two axes)");
  cmd->add_flag("--json", o->json, "Print the rows as JSON (gpen.survey/1, docs/json.md); the table goes to stderr");
  cmd->callback([&run, o] {
    if (o->json) JsonChannel::open();
    run = [o] {
      const auto full = parse_size(o->size, 3);
      std::vector<std::string> files;
      for (const auto& e : std::filesystem::recursive_directory_iterator(o->dir))
        if (e.path().extension() == ".json" && e.path().filename() != "spec.schema.json") files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      std::string why;
      const bool gpu = driver_available(&why);
      std::optional<Context> ctx;
      if (gpu) ctx.emplace(0);
      const std::string arch = gpu ? ctx->info().arch() : "sm_90";
      fmt::print("{:<40} {:<9} {:>6} {:>8} {:>5} {:>7}  {}\n", "spec", "strategy", "check", "compile", "regs", "ms", gpu ? "GPU run (" + ctx->info().name + ")" : "GPU run");
      int status = kExitOk;
      Json rows = Json::array();
      for (const auto& f : files) {
        Spec s;
        try {
          s = load_spec(f);
        } catch (const SpecError& e) {
          fmt::print("{:<40} {:<9} {:>6}\n{}\n", f, "-", "FAIL", e.what());
          rows.push_back({{"file", f}, {"check", false}, {"errors", spec_errors_json(e)}});
          status = kExitInvalid;
          continue;
        }
        for (const auto& v : strategies_of(s)) {
          const TunableChoice choice = s.choose(v.empty() ? std::vector<std::string>{} : std::vector<std::string>{"strategy=" + v});
          std::string runcol;
          int regs = -1;
          double ms = 0;
          Json row = {{"file", f}, {"spec", s.name}, {"kind", s.kind}, {"strategy", v}, {"check", true}, {"compiled", false},
                      {"registers", nullptr}, {"compile_ms", nullptr}, {"launched", false}, {"verify", nullptr}, {"error", nullptr}};
          try {
            const Variant g = generate(s, choice);
            const auto r = process_cache().get(spec_program(s, g), arch);
            regs = r.kernel.usage.registers;
            ms = r.ms;
            row["compiled"] = true;
            row["registers"] = regs;
            row["compile_ms"] = ms;
            if (gpu) {
              ProblemOptions po;
              po.copy_gbs = 0.0;  // the survey quotes no rate: no copy measured
              const auto problem = make_problem(*ctx, s, small_problem_size(s, full), po);
              const Measurement m = problem->measure(choice, 5, true);
              runcol = m.check->summary();
              row["launched"] = true;
              row["verify"] = verify_json(m.check);
              if (!m.check->pass) status = kExitInvalid;            } else {
              runcol = "not launched: " + why;
            }
          } catch (const std::exception& e) {
            runcol = std::string("FAIL: ") + e.what();
            row["error"] = e.what();
            status = kExitInvalid;
          }
          rows.push_back(row);
          fmt::print("{:<40} {:<9} {:>6} {:>8} {:>5} {:>7.1f}  {}\n", f, v.empty() ? s.kind : v, "ok", "ok", regs, ms, runcol);
          std::fflush(stdout);  // a row at a time when piped: the survey takes minutes on a GPU
        }
      }
      if (!gpu) fmt::print("\nNo GPU here ({}): every spec was checked, generated and compiled for {}, none was launched.\n", why, arch);
      if (o->json) {
        Json doc = json_document("survey");
        doc.update(Json{{"gpu", gpu ? Json(ctx->info().name) : Json(nullptr)}, {"no_gpu_reason", gpu ? Json(nullptr) : Json(why)},
                        {"arch", arch}, {"size", o->size}, {"rows", rows}});
        JsonChannel::emit(doc);
      }
      return status;
    };
  });
}

}  // namespace gpen::cli
