// gpen compile SPEC: generate and compile with NVRTC, through the kernel cache
// (no GPU needed: the arch defaults to sm_90 without one).
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
#include "gpen/runtime/occupancy.hpp"

namespace gpen::cli {

void add_compile(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("compile", "Generate and compile a spec with NVRTC, through the kernel cache");
  struct Opts { SpecOptions spec; std::string arch, size; bool json = false, no_tuned = false; };
  auto o = std::make_shared<Opts>();
  o->spec.add_to(*cmd);
  cmd->add_option("--arch", o->arch, "Target, e.g. sm_90 (default: the GPU's, else sm_90)")
      ->check(CLI::Validator([](std::string& a) { return arch_problem(a); }, "sm_NN[a|f]", "arch"));
  cmd->add_option("--size", o->size, "Problem size: with a GPU, take the variant tuned for it (gpen tune) if there is one")->check(non_empty());
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
      const UnitResources res = family_of(s).resources(s, g.choice);
      const std::size_t dynamic_shared = res.dynamic_shared_bytes;
      const std::optional<Residency> resident = residency(u, res.threads, dynamic_shared, arch);
      if (o->json) {
        Json doc = json_document("compile");
        doc.update(Json{{"spec", s.name}, {"kind", s.kind}, {"dtype", to_string(s.dtype)}, {"arch", arch},
                        {"variant", describe(s.tunables, g.choice)}, {"tunables", Json(choice_json(g.choice))}, {"unit", g.name},
                        {"kernel", g.kernel_name}, {"cache", {{"source", to_string(r.source)}, {"ms", r.ms}, {"key", r.key}}},
                        {"usage", to_json(u)}, {"dynamic_shared_bytes", dynamic_shared}});
        if (resident) doc["resident"] = {{"blocks", resident->blocks}, {"warps", resident->warps}, {"bound", resident->bound}};
        JsonChannel::emit(doc);
      } else {
        fmt::print("{} ({}) for {}: cache {} in {:.1f} ms\n", g.name, describe(s.tunables, g.choice), arch, src, r.ms);
        fmt::print("  registers {}, spill stores {} B, spill loads {} B, shared {} B, stack {} B\n", u.registers, u.spill_stores,
                   u.spill_loads, u.shared_bytes, u.stack_bytes);
        if (dynamic_shared) fmt::print("  dynamic shared {} B a block, opted in at load\n", dynamic_shared);
        if (resident) fmt::print("  resident: {}\n", to_string(*resident));
        fmt::print("  key {}\n", r.key);
      }
      return kExitOk;
    };
  });
}

}  // namespace gpen::cli
