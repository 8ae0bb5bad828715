// gpen check SPEC...   validate specs
// gpen gen SPEC        print the generated CUDA
#include <fstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "json_output.hpp"
#include "spec_options.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/templates.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen::cli {

namespace {

// What `check` says of a valid spec, after "ok  FILE: ".
std::string summary_of(const Spec& s) {
  if (s.is_scan())
    return fmt::format("scan '{}', {}, {}-D; {} = {}{} scan of {} along {}, op '{}', identity {}", s.name, to_string(s.dtype), s.dims,
                       s.output_fields()[0]->name, s.scan.reverse ? "reverse " : "", s.scan.exclusive ? "exclusive" : "inclusive",
                       s.inputs()[0]->name, axis_name(s.scan.axis), to_source_text(*s.scan.op_ast), s.scan.identity_text);
  if (s.is_sbp()) {
    std::vector<std::string> axes;
    for (int a : s.sbp.axes) axes.push_back(axis_name(a));
    return fmt::format("sbp '{}', {}, {}-D; {} = D{} {} along {}; interior order {}, boundary order {}, {} closure rows a side, lines of >= {} points",
                       s.name, to_string(s.dtype), s.dims, s.output_fields()[0]->name, s.sbp.derivative, s.inputs()[0]->name,
                       fmt::join(axes, " + "), s.sbp.order, s.sbp.boundary_order, s.sbp.rows(), s.sbp.min_length());
  }
  if (s.is_pairwise()) {
    const PairwiseDecl& d = s.pairwise;
    std::vector<std::string> outs;
    for (std::size_t o = 0; o < s.outputs.size(); ++o)
      outs.push_back(fmt::format("{}_i = {} over j of {}", s.fields[s.outputs[o].field].name, to_string(d.reduce[o]), to_source_text(*s.outputs[o].ast)));
    return fmt::format("pairwise '{}', {}, {}; {}{}; {}", s.name, to_string(s.dtype),
                       d.grid ? fmt::format("{}-D grid cells", s.dims) : d.same_set ? "N particles" : "N targets, M sources",
                       d.same_set ? (d.skip_self ? "self skipped" : "self included") : "separate sets", d.grouped ? ", grouped" : "",
                       fmt::join(outs, "; "));
  }
  const Footprint fp = s.footprint();
  std::string reach;
  for (const auto* in : s.inputs())
    reach += fmt::format(" {}[{}]", in->name, fmt::join(std::vector<int>(fp[in->slot].begin(), fp[in->slot].begin() + s.dims), ","));
  return fmt::format("{} '{}', {}, {}-D, {} input(s), {} output(s); reach:{}", s.kind, s.name, to_string(s.dtype), s.dims, s.inputs().size(),
                     s.output_fields().size(), reach);
}

}  // namespace

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
          const std::string summary = summary_of(s);
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
