// gpen survey [DIR]: every spec and strategy checked, generated and
// compiled; with a GPU, also run and verified.
#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpen/simulate/program.hpp"
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
#include "interrupt.hpp"

namespace gpen::cli {

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
      std::size_t programs = 0;  // not kernels: `gpen check` reads them, `gpen simulate` runs them
      for (const auto& e : std::filesystem::recursive_directory_iterator(o->dir)) {
        // Schemas (spec.schema.json, program.schema.json) are for editors.
        const std::string name = e.path().filename().string();
        if (e.path().extension() != ".json" || (name.size() > 12 && name.compare(name.size() - 12, 12, ".schema.json") == 0)) continue;
        if (sim::is_program_file(e.path().string())) ++programs;
        else files.push_back(e.path().string());
      }
      std::sort(files.begin(), files.end());
      if (programs > 0) fmt::print(stderr, "{} program{} left out (no kernels: gpen simulate runs them)\n", programs, programs == 1 ? "" : "s");
      std::string why;
      const bool gpu = driver_available(&why);
      std::optional<Context> ctx;
      if (gpu) ctx.emplace(0);
      const std::string arch = gpu ? ctx->info().arch() : "sm_90";
      fmt::print("{:<40} {:<9} {:>6} {:>8} {:>5} {:>7}  {}\n", "spec", "strategy", "check", "compile", "regs", "ms", gpu ? "GPU run (" + ctx->info().name + ")" : "GPU run");
      int status = kExitOk;
      Json rows = Json::array();
      InterruptFlag interrupt("the current spec");
      std::size_t surveyed = 0;  // files whose every strategy was surveyed
      for (const auto& f : files) {
        if (interrupt.raised()) break;
        Spec s;
        try {
          s = load_spec(f);
        } catch (const SpecError& e) {
          fmt::print("{:<40} {:<9} {:>6}\n{}\n", f, "-", "FAIL", e.what());
          rows.push_back({{"file", f}, {"check", false}, {"errors", spec_errors_json(e)}});
          status = kExitInvalid;
          ++surveyed;
          continue;
        }
        for (const auto& v : strategies_of(s)) {
          std::string runcol, compiled = "FAIL";
          int regs = -1;
          double ms = 0;
          Json row = {{"file", f}, {"spec", s.name}, {"kind", s.kind}, {"strategy", v}, {"check", true}, {"compiled", false},
                      {"registers", nullptr}, {"compile_ms", nullptr}, {"launched", false}, {"verify", nullptr}, {"error", nullptr}};
          try {
            // A strategy whose defaults break one of the spec's constraints is this row's failure, not the survey's.
            const TunableChoice choice = s.choose(v.empty() ? std::vector<std::string>{} : std::vector<std::string>{"strategy=" + v});
            const Variant g = generate(s, choice);
            const auto r = process_cache().get(spec_program(s, g), arch);
            regs = r.kernel.usage.registers;
            ms = r.ms;
            row["compiled"] = true;
            compiled = "ok";
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
              if (!m.check->pass) status = kExitInvalid;
            } else {
              runcol = "not launched: " + why;
            }
          } catch (const std::exception& e) {
            runcol = std::string("FAIL: ") + e.what();
            row["error"] = e.what();
            status = kExitInvalid;
          }
          rows.push_back(row);
          fmt::print("{:<40} {:<9} {:>6} {:>8} {:>5} {:>7.1f}  {}\n", f, v.empty() ? s.kind : v, "ok", compiled, regs, ms, runcol);
          std::fflush(stdout);  // a row at a time when piped: the survey takes minutes on a GPU
        }
        ++surveyed;
      }
      const bool stopped = interrupt.raised();
      if (stopped) {
        fmt::print("\nStopped by Ctrl-C: {} of {} spec files surveyed.\n", surveyed, files.size());
        status = kExitInterrupted;
      } else if (!gpu) {
        fmt::print("\nNo GPU here ({}): every spec was checked, generated and compiled for {}, none was launched.\n", why, arch);
      }
      if (o->json) {
        Json doc = json_document("survey");
        doc.update(Json{{"gpu", gpu ? Json(ctx->info().name) : Json(nullptr)}, {"no_gpu_reason", gpu ? Json(nullptr) : Json(why)},
                        {"arch", arch}, {"size", o->size}, {"interrupted", stopped}, {"rows", rows}});
        JsonChannel::emit(doc);
      }
      return status;
    };
  });
}

}  // namespace gpen::cli
