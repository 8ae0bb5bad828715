// gpen check SPEC...: validate specs.
#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "json_output.hpp"
#include "spec_options.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/templates.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/simulate/program.hpp"

namespace gpen::cli {

namespace {

// Each tunable the spec allows, with its family's one-line doc.
struct TunableLine {
  std::string name, values, default_value, strategy, doc;
};
std::vector<TunableLine> tunable_lines(const Spec& s) {
  const auto table = family_of(s).tunables();
  std::vector<TunableLine> out;
  for (const auto& t : s.tunables) {
    std::vector<std::string> values;
    for (const auto& v : t.values) values.push_back(to_string(v));
    const auto row = std::find_if(table.begin(), table.end(), [&](const TunableInfo& i) { return i.name == t.name; });
    out.push_back({t.name, fmt::format("{}", fmt::join(values, ", ")), to_string(t.default_value), t.only_with_strategy,
                   row == table.end() ? "" : row->doc});
  }
  return out;
}

void print_tunables(const Spec& s) {
  for (const auto& t : tunable_lines(s))
    fmt::print("    {:<19} {}{}; default {}; allowed {}\n", t.name, t.doc, t.strategy.empty() ? "" : " (" + t.strategy + " only)", t.default_value,
               t.values);
}

Json spec_tunables_json(const Spec& s) {
  Json all = Json::array();
  const auto lines = tunable_lines(s);
  for (std::size_t i = 0; i < s.tunables.size(); ++i) {
    const TunableDecl& t = s.tunables[i];
    Json values = Json::array();
    for (const auto& v : t.values) values.push_back(Json(tunable_json(v)));
    all.push_back({{"name", t.name}, {"values", values}, {"default", Json(tunable_json(t.default_value))}, {"strategy", t.only_with_strategy},
                   {"doc", lines[i].doc}});
  }
  return all;
}

std::string program_summary(const sim::Program& p) {
  std::vector<std::string> kernels;
  for (const sim::RhsKernel& k : p.rhs) kernels.push_back(k.use.spec.name);
  return fmt::format("program '{}', {}, {}-D {}, {} field{}, right-hand side {}, {}, time step {}, {} diagnostic reduction{}", p.name,
                     p.dtype == Dtype::Float32 ? "float32" : "float64", p.dims,
                     fmt::join(std::vector<long long>(p.size.begin(), p.size.begin() + p.dims), "x"), p.fields.size(), p.fields.size() == 1 ? "" : "s",
                     fmt::join(kernels, " + "), to_string(p.integrator), p.time_step.fixed ? fmt::format("{}", p.time_step.dt) : "from the CFL conditions",
                     p.diagnostics.reductions.size(), p.diagnostics.reductions.size() == 1 ? "" : "s");
}

}  // namespace

void add_check(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("check", "Validate specs and programs: structure, names, expressions, ghost widths, and that the default variant generates");
  struct Opts { std::vector<std::string> files; bool json = false, tunables = false; };
  auto o = std::make_shared<Opts>();
  cmd->add_option("spec", o->files, "Spec files (JSON)")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--json", o->json, "Print the results as JSON (gpen.check/1, docs/json.md); the text goes to stderr");
  cmd->add_flag("--tunables", o->tunables, "Also list each valid spec's tunables: what each changes, its allowed values and default");
  cmd->callback([&run, o] {
    if (o->json) JsonChannel::open();
    run = [o] {
      int status = kExitOk;
      Json specs = Json::array();
      for (const auto& f : o->files) {
        Json entry = {{"file", f}, {"ok", false}, {"name", nullptr}, {"kind", nullptr}, {"summary", nullptr}, {"warnings", Json::array()},
                      {"errors", Json::array()}, {"error_count", 0}};
        try {
          if (sim::is_program_file(f)) {
            // A program: read whole, its kernel specs with it.
            const sim::Program p = sim::load_program(f);
            const std::string summary = program_summary(p);
            fmt::print("ok  {}: {}\n", f, summary);
            entry.update(Json{{"ok", true}, {"name", p.name}, {"kind", "program"}, {"summary", summary}});
            specs.push_back(entry);
            continue;
          }
          const Spec s = load_spec(f);
          // The default variant must generate too: tunables whose defaults
          // do not go together (a chained scan with 16-byte column groups)
          // fail here rather than at the first `gpen gen` or `run`.
          generate(s, s.choose());
          const std::string summary = family_of(s).describe(s);
          fmt::print("ok  {}: {}\n", f, summary);
          for (const auto& w : s.warnings) fmt::print(stderr, "{}: warning: {}\n", f, w);
          entry.update(Json{{"ok", true}, {"name", s.name}, {"kind", s.kind}, {"summary", summary}, {"warnings", s.warnings},
                            {"tunables", spec_tunables_json(s)}});
          if (o->tunables) print_tunables(s);
        } catch (const SpecError& e) {
          // Every independent error of the spec (up to kMaxErrors), then how many.
          const auto* all = dynamic_cast<const SpecErrors*>(&e);
          const std::size_t n = all ? all->count() : 1;
          fmt::print(stderr, "{}\n{}: {} error{}\n", e.what(), f, n, n == 1 ? "" : "s");
          entry["errors"] = spec_errors_json(e);
          entry["error_count"] = n;
          status = kExitInvalid;
        }
        specs.push_back(entry);
      }
      if (o->json) {
        Json doc = json_document("check");
        doc["specs"] = specs;
        JsonChannel::emit(doc);
      }
      return status;
    };
  });
}

}  // namespace gpen::cli
