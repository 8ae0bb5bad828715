// gpen run SPEC: one variant on the GPU at a size: random inputs, poisoned
// outputs, timing, verification.
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
        if (m.usage.spill_stores > 0)
          fmt::print("  note: the kernel spills registers to local memory, which costs kernels like this one several times their time; "
                     "`gpen tune` refuses such variants\n");
        fmt::print("  time {:.4f} ms (median of {}), {}\n", m.median_ms, o->repeat, problem->rate_text(m));
        if (const auto& r = m.roofline)
          fmt::print("  roofline: memory {:.4f} ms (the bytes at the copy), FMA {:.4f} ms ({:.0f} operations a point at {:.1f} T FMA/s, {}): {:.1f}% of roofline\n",
                     r->memory_ms, r->fma_ms, r->ops_per_point, r->fma_per_s / 1e12, to_string(s.dtype), r->pct);
        if (m.check) fmt::print("  verify: {}\n", m.check->summary());
      }
      return m.check && !m.check->pass ? kExitInvalid : kExitOk;
    };
  });
}

}  // namespace gpen::cli
