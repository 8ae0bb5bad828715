// gpen bench SPEC...: variants timed beside a copy measured in the same run.
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
#include "gpen/families/pairwise/pairwise_run.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/measure/tune/tuning_db.hpp"
#include "gpen/runtime/arch.hpp"

namespace gpen::cli {

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
        check_distinct_sets(o->set);
        s.choose(o->set);
      }
      std::string why;
      if (!driver_available(&why)) no_device(why, "benchmark");
      Context ctx(0);
      const double copy = measure_copy_gbs(ctx, std::size_t(1) << 30);
      fmt::print("{}: device-to-device copy {:.1f} GB/s (read + write)\n", ctx.info().name, copy);
      // %roof: the larger of the memory time at the copy and the FMA time
      // from the spec's operation count, over the time (stencils).
      fmt::print("{:<16} {:<7} {:<58} {:>9} {:>9} {:>7} {:>5} {:>6} {:>6}\n", "spec", "dtype", "variant", "ms", "GB/s", "%copy", "regs", "verify", "%roof");
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
          const std::string roof = m.roofline ? fmt::format("{:.1f}", m.roofline->pct) : "-";
          fmt::print("{:<16} {:<7} {:<58} {:>9.4f} {} {:>5} {:>6} {:>6}\n", s.name, to_string(s.dtype), m.variant, m.median_ms, problem->rate_columns(m),
                     m.usage.registers, v, roof);
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

}  // namespace gpen::cli
