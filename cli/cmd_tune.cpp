// gpen tune: search a spec's tunables on the GPU (measure/tune/tune.hpp) within a
// time budget that counts the whole command, show progress (a line on a
// terminal, plain lines when piped), log every evaluation as it finishes,
// stop cleanly on Ctrl-C, print the best variants beside the default and
// the copy bandwidth with what the search covered, draw it as an SVG, and
// remember the best for run/compile.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "commands.hpp"
#include "json_output.hpp"
#include "interrupt.hpp"
#include "progress.hpp"
#include "run_limits.hpp"
#include "tune_progress.hpp"
#include "search_svg.hpp"
#include "spec_options.hpp"
#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/problem.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/measure/tune/tune.hpp"
#include "gpen/measure/tune/tune_log.hpp"

namespace gpen::cli {
namespace {

// What `gpen tune` may take when --time is not given: long enough for a
// local search to find most of what there is, short enough to wait for.
constexpr double kDefaultTuneSeconds = 120;

std::string stop_text(const TuneResult& r, double time_s, std::size_t budget_flag) {
  const std::size_t n = r.evaluated.size();
  switch (r.stop) {
    case SearchStop::Time: return fmt::format("stopped by --time ({} s, setup included) after {} of {} evaluations", time_s, n, r.budget);
    case SearchStop::Interrupted: return fmt::format("stopped by Ctrl-C after {} of {} evaluations", n, r.budget);
    case SearchStop::Budget:
      return budget_flag ? fmt::format("stopped at --budget {} evaluations", n) : fmt::format("stopped at the strategy's budget of {} evaluations", n);
    case SearchStop::Done: break;
  }
  return fmt::format("searched every one of the {} evaluations it could make", n);
}

// "strategy: march 80, tile 78, rolling 0": how many measured variants
// (timed or failed) took each value of each searched tunable.
void print_coverage(const Spec& s, const TuneResult& r, const std::vector<std::string>& fixed) {
  for (const TunableDecl& t : s.tunables) {
    if (t.values.size() < 2) continue;
    if (overrides_tunable(fixed, t.name)) continue;
    std::vector<std::string> parts;
    for (const TunableValue& value : t.values) {
      const auto n = std::count_if(r.evaluated.begin(), r.evaluated.end(), [&](const TunedVariant& v) {
        const auto it = v.choice.find(t.name);
        return it != v.choice.end() && it->second == value;
      });
      parts.push_back(fmt::format("{} {}", to_string(value), n));
    }
    fmt::print("  {}: {}\n", t.name, fmt::join(parts, ", "));
  }
}

// gpen.tune/1 (docs/json.md).
Json result_json(const Spec& s, const TuneResult& r, const std::string& size, const DeviceInfo& d, const std::string& strategy, double time_s) {
  auto variant = [](const TunedVariant& v) {
    return Json{{"variant", v.variant}, {"tunables", Json(choice_json(v.choice))}, {"ms", v.ms ? Json(*v.ms) : Json(nullptr)},
                {"teff_gbs", v.teff_gbs}, {"pairs_per_s", v.pairs_per_s}, {"registers", v.registers},
                {"spill_bytes", v.spill_bytes}, {"refused", v.refused}, {"reason", v.reason}, {"resumed", v.resumed}};
  };
  Json all = Json::array();
  for (const auto& v : r.evaluated) all.push_back(variant(v));
  Json doc = json_document("tune");
  doc.update(Json{{"spec", s.name}, {"kind", s.kind}, {"dtype", to_string(s.dtype)}, {"size", size}, {"gpu", d.name}, {"arch", d.arch()},
                  {"strategy", strategy}, {"time_limit_s", time_s}, {"copy_gbs", 0.0}, {"unit_bound_per_s", 0.0}, {"rsqrt_bound_per_s", r.scale.rsqrt_bound},
                  {"space_total", r.space_total}, {"space_valid", r.space_valid}, {"budget", r.budget}, {"stop", to_string(r.stop)},
                  {"setup_s", r.setup_s}, {"total_s", r.total_s}, {"default", variant(r.reference)},
                  {"best", r.best ? variant(r.evaluated[*r.best]) : Json(nullptr)}, {"saved", r.saved ? Json(r.key.str()) : Json(nullptr)},
                  {"save_error", r.save_error.empty() ? Json(nullptr) : Json(r.save_error)},
                  {"evaluations", all}});
  doc[r.scale.bound] = r.scale.bound_value;  // the other bound stays 0 (docs/json.md)
  if (r.scale.kind == RateKind::Pairs) doc["bound_unit"] = r.scale.bound_unit;
  return doc;
}

}  // namespace

void add_tune(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("tune", "Search a spec's tunables on the GPU, verify every variant, remember the best");
  struct Opts {
    SpecOptions spec;
    std::string size = "256", strategy = "local", plot, log, resume;
    std::size_t budget = 0;
    double time_s = kDefaultTuneSeconds;
    int repeat = 10;
    bool no_save = false, json = false, allow_spills = false;
    std::uint64_t seed = 1;
  };
  auto o = std::make_shared<Opts>();
  o->spec.add_to(*cmd);  // --set fixes a tunable: it is not searched
  cmd->add_option("--size", o->size, "Problem size NX[xNY[xNZ]] (one number: a cube); pairwise: N, NxM (separate sources) or the grid");
  cmd->add_option("--strategy", o->strategy, "local (from random starts spread over the strategies) | exhaustive (every variant, in a spread order) | random")
      ->check(CLI::IsMember({"exhaustive", "random", "local"}));
  cmd->add_option("--time", o->time_s, "Seconds the whole command may take, setup included; compiles still running then are abandoned (0: no limit)")
      ->check(number_where(valid_tune_seconds, kTuneSecondsExpected, "SECONDS", "seconds"));
  cmd->add_option("--budget", o->budget, "Evaluations at most (0: the strategy's own: every variant; local: a quarter of them)")
      ->check(CLI::Range(std::size_t{0}, static_cast<std::size_t>(kMaxBudget), "an integer from 0 up"));
  cmd->add_option("--repeat", o->repeat, "Timed launches per variant (median)")->check(CLI::Range(1, kMaxRepeat, fmt::format("an integer from 1 to {}", kMaxRepeat)));
  cmd->add_option("--seed", o->seed, "Seed of the random orders");
  cmd->add_option("--log", o->log, "Append every evaluation to FILE as a JSON line as it finishes (format: measure/tune/tune_log.hpp)")
      ->check(output_file());
  cmd->add_option("--resume", o->resume, "Go on from the --log of an earlier search of this spec, size and GPU: what it measured is not measured again")
      ->check(CLI::ExistingFile);
  cmd->add_option("--plot", o->plot, "Write the picture of the search to FILE (SVG)")->check(output_file());
  cmd->add_flag("--json", o->json, "Print the result and every evaluation as JSON (gpen.tune/1, docs/json.md); the rest goes to stderr");
  cmd->add_flag("--allow-spills", o->allow_spills, "Time variants that spill registers to local memory too (by default refused once compiled, before any launch)");
  cmd->add_flag("--no-save", o->no_save, "Do not store the result in the tuning database");
  cmd->callback([&run, o] {
    if (o->json) JsonChannel::open();
    run = [o] {
      const auto started = std::chrono::steady_clock::now();
      const Spec s = o->spec.load();
      // A bad --size or --set is an error before any device work.
      check_problem_size(s, o->size);
      // With the defaults, the --set values are the reference every variant is checked against: it keeps the constraints too.
      o->spec.choose(s);
      std::string why;
      if (!driver_available(&why)) throw NoDeviceError("cannot tune " + s.name + ": " + why);
      Context ctx(0);
      const TuneLogHeader header{s.name, s.hash, o->size, ctx.info().name, ctx.info().arch()};
      TuneOptions to;
      to.started = started;
      to.strategy = parse_search_strategy(o->strategy);
      to.budget = o->budget;
      to.time_limit_s = o->time_s;
      to.seed = o->seed;
      to.fixed = o->spec.set;
      to.repeat = o->repeat;
      to.save = !o->no_save;
      to.abandon_compiles = true;
      to.allow_spills = o->allow_spills;
      if (!o->resume.empty()) {
        TuneLog earlier = read_tune_log(o->resume, s, header);
        for (const auto& w : earlier.warnings) fmt::print(stderr, "gpen: warning: {}\n", w);
        to.resume = std::move(earlier.variants);
      }
      // The log: appended to (a resumed search's own log goes on), a header
      // first when the file is new.
      std::ofstream log;
      if (!o->log.empty()) {
        std::error_code ec;
        const bool fresh = !std::filesystem::exists(o->log, ec) || std::filesystem::file_size(o->log, ec) == 0;
        if (!fresh && o->log != o->resume) read_tune_log(o->log, s, header);  // refuses to mix searches in one log
        log.open(o->log, std::ios::app);
        if (!log) throw std::runtime_error("cannot write --log " + o->log);
        if (fresh) log << tune_log_line(header) << '\n' << std::flush;
      }
      InterruptFlag interrupt("the current measurement");
      to.interrupt = &interrupt.flag();
      ProgressLine bar;
      TuneProgressText progress_text(o->time_s);
      to.on_phase = [&](const std::string& what) { bar.note("  " + what); };
      to.on_variant = [&](const TunedVariant& v, const TuneProgress& p) {
        if (log.is_open() && !(v.resumed && o->log == o->resume)) log << tune_log_line(v) << '\n' << std::flush;
        bar.update(progress_text(v, p));
      };
      fmt::print("tuning {} ({}) at {} on {}: {} search, {}\n", s.name, to_string(s.dtype), o->size, ctx.info().name, o->strategy,
                 o->time_s > 0 ? fmt::format("--time {} s (setup included)", o->time_s) : std::string("no time limit (--time 0)"));
      std::fflush(stdout);
      bar.note("  measuring the copy bandwidth and preparing random inputs");
      const auto problem = make_problem(ctx, s, o->size);
      const TuneResult r = tune(ctx, *problem, to);
      bar.finish();

      std::size_t failed = 0, refused = 0;
      for (const auto& v : r.evaluated) {
        failed += !v.ms && !v.refused;
        refused += v.refused;
      }
      fmt::print("space: {} combinations, {} valid; {}\n", r.space_total, r.space_valid,
                 r.scale.bound_short());
      for (std::size_t i = 0; i < std::min<std::size_t>(3, r.rejected.size()); ++i)
        fmt::print("  not evaluated: {} x {}\n", r.rejected[i].second, r.rejected[i].first);
      fmt::print("search: {} ({} failed{}, each recorded with its reason{}); setup {:.1f} s, in all {:.1f} s\n", stop_text(r, o->time_s, o->budget),
                 failed, refused ? fmt::format(", {} refused: they spill registers", refused) : "", r.resumed ? fmt::format("; {} from --resume", r.resumed) : "", r.setup_s, r.total_s);
      fmt::print("measured variants per value:\n");
      print_coverage(s, r, o->spec.set);
      std::vector<const TunedVariant*> ok;
      for (const auto& v : r.evaluated)
        if (v.ms) ok.push_back(&v);
      std::sort(ok.begin(), ok.end(), [](const TunedVariant* a, const TunedVariant* b) { return *a->ms < *b->ms; });
      fmt::print("{:<4} {:<72} {:>9} {:>10} {:>7} {:>5}\n", "rank", "variant", "ms", r.scale.unit, r.scale.percent_column, "regs");
      auto row = [&](const std::string& rank, const TunedVariant& v) {
        fmt::print("{:<4} {:<72} {:>9.4f} {:>10} {:>6.1f}% {:>5}\n", rank, v.variant, *v.ms, r.scale.number(v.rate), r.scale.percent_of_unit(v.rate),
                   v.registers);
      };
      for (std::size_t i = 0; i < std::min<std::size_t>(10, ok.size()); ++i) row(std::to_string(i + 1), *ok[i]);
      if (r.reference.ms) row("dflt", r.reference);
      if (!ok.empty())
        fmt::print("best of the {} variants measured is {:.2f}x the default's speed; every timed variant matched {}, which matched the CPU reference ({})\n",
                   ok.size(), *r.reference.ms / *ok[0]->ms,
                   r.reference_check,
                   r.reference.check ? r.reference.check->summary() : "-");
      // The first of each, as an example.
      for (const bool spilled : {false, true})
        for (const auto& v : r.evaluated)
          if (!v.ms && v.refused == spilled) {
            fmt::print("  {}: {}: {}\n", spilled ? "refused" : "failed", v.variant, v.reason.substr(0, 200));
            break;
          }
      if (r.saved) fmt::print("saved to {} under {}\n", TuningDb::default_path(), r.key.str());
      if (!r.save_error.empty()) fmt::print(stderr, "gpen tune: warning: the best variant was not saved: {}\n", r.save_error);
      if (log.is_open()) fmt::print("log: {} ({} evaluations; --resume {} goes on from here)\n", o->log, r.evaluated.size(), o->log);

      if (!o->plot.empty()) {
        write_file(o->plot, search_svg(r, fmt::format("gpen tune {} ({}, {}, {}) on {}", s.name, to_string(s.dtype), o->size, o->strategy, ctx.info().name)));
        fmt::print("picture of the search: {}\n", o->plot);
      }
      if (o->json) JsonChannel::emit(result_json(s, r, o->size, ctx.info(), o->strategy, o->time_s));
      int code = kExitOk;
      if (ok.empty()) {
        fmt::print(stderr, "gpen: {}\n", !r.evaluated.empty()                 ? "no variant passed its check: nothing to remember"
                                         : r.stop == SearchStop::Interrupted ? "interrupted before a variant was measured (during the default's check on the CPU, "
                                                                               "which a smaller --size makes shorter): nothing to remember"
                                                                             : "no variant was measured: give the search more --time");
        code = kExitInvalid;
      }
      if (r.stop == SearchStop::Interrupted) code = kExitInterrupted;
      if (r.abandoned_compiles) {
        // NVRTC cannot be cancelled: leave without waiting for the compiles
        // that were still running (their results were not wanted).
        std::fflush(stdout);
        std::fflush(stderr);
        if (log.is_open()) log.close();
        std::_Exit(code);
      }
      return code;
    };
  });
}

}  // namespace gpen::cli
