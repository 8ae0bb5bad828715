// gpen gen SPEC: print the generated CUDA.
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

namespace gpen::cli {

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
      const Variant g = o->spec.generate(s, o->spec.choose(s));
      const std::string text = o->standalone ? inline_includes(g.source, g.name) : g.source;
      if (o->out.empty()) fmt::print("{}", text);
      else write_file(o->out, text);
      return kExitOk;
    };
  });
}

}  // namespace gpen::cli
