// gpen check SPEC...   validate specs
// gpen gen SPEC        print the generated CUDA
#include <fstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "json_output.hpp"
#include "spec_options.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/templates.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen::cli {

void add_check(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("check", "Validate specs: structure, names, expressions, ghost widths, and that the default variant generates");
  struct Opts { std::vector<std::string> files; bool json = false; };
  auto o = std::make_shared<Opts>();
  cmd->add_option("spec", o->files, "Spec files (JSON)")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--json", o->json, "Print the results as JSON (gpen.check/1, docs/json.md); the text goes to stderr");
  cmd->callback([&run, o] {
    if (o->json) JsonChannel::open();
    run = [o] {
      int status = kExitOk;
      Json specs = Json::array();
      for (const auto& f : o->files) {
        Json entry = {{"file", f}, {"ok", false}, {"name", nullptr}, {"kind", nullptr}, {"summary", nullptr}, {"warnings", Json::array()},
                      {"errors", Json::array()}, {"error_count", 0}};
        try {
          const Spec s = load_spec(f);
          // The default variant must generate too: tunables whose defaults
          // do not go together (a chained scan with 16-byte column groups)
          // fail here rather than at the first `gpen gen` or `run`.
          generate(s, s.choose());
          const std::string summary = family_of(s).describe(s);
          fmt::print("ok  {}: {}\n", f, summary);
          for (const auto& w : s.warnings) fmt::print(stderr, "{}: warning: {}\n", f, w);
          entry.update(Json{{"ok", true}, {"name", s.name}, {"kind", s.kind}, {"summary", summary}, {"warnings", s.warnings}});
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

void add_gen(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("gen", "Print the CUDA source generated for a spec");
  struct Opts {
    SpecOptions spec;
    std::string out;
    bool standalone = false;
  };
  auto o = std::make_shared<Opts>();
  o->spec.add_to(*cmd);
  cmd->add_option("-o,--output", o->out, "Write to FILE instead of standard output")->check(output_file());
  cmd->add_flag("--standalone", o->standalone, "Inline the templates (with #line directives) so that nvcc compiles the file alone");
  cmd->callback([&run, o] {
    run = [o] {
      const Spec s = o->spec.load();
      const GeneratedSource g = o->spec.generate(s, o->spec.choose(s));
      const std::string text = o->standalone ? inline_includes(g.source, g.name) : g.source;
      if (o->out.empty()) fmt::print("{}", text);
      else write_file(o->out, text);
      return kExitOk;
    };
  });
}

}  // namespace gpen::cli
