#include "gpen/families/pairwise/pairwise_decl.hpp"

#include <fmt/format.h>

#include "gpen/families/pairwise/device/pairwise_args.h"
#include "gpen/families/pairwise/pairwise_scope.hpp"

namespace gpen {
namespace {

// An input field's role and ghost width against the pairwise domain.
void check_pair_field(const SpecReading& in, const FieldDecl& f) {
  const PairwiseDecl& d = in.spec.pairwise();
  if (d.same_set && f.set != FieldDecl::Set::Both)
    in.src->fail(f.pointer + "/role", fmt::format("role '{}' while the sources are the targets", f.set == FieldDecl::Set::Targets ? "target" : "source"),
               "role \"input\" (read as name_i and name_j), or \"sources\": \"separate\" in /pairwise");
  if (!d.same_set && f.set == FieldDecl::Set::Both)
    in.src->fail(f.pointer + "/role", "role 'input' with separate sources", "role \"target\" or \"source\": which set the field belongs to");
  if (f.ghost != 0) in.src->fail(f.pointer + "/ghost", fmt::format("ghost width {} on '{}'", f.ghost, f.name), "no ghost zones (0): pairs read no neighbours");
}

}  // namespace

// The "pairwise" object and the pair values it makes readable.
void read_pairwise(SpecReading& in) {
  PairwiseDecl& d = in.spec.pairwise();
  d.pointer = "/pairwise";
  // Its shape decides what pair expressions can read: without it (or with
  // a key of it misspelt), they are not lowered.
  JsonReader::Keys keys;
  if (!in.reader.has("/pairwise") || !in.diag.unit([&] {
        keys = in.reader.object("/pairwise", {}, {"domain", "sources", "self", "pairs", "description"});
        if (keys.meant.count("domain") || keys.meant.count("sources") || keys.meant.count("pairs")) throw UnitFailed{};
        d.grid = in.reader.has("/pairwise/domain") && in.reader.choice("/pairwise/domain", {"particles", "grid"}) == "grid";
        d.same_set = !in.reader.has("/pairwise/sources") || in.reader.choice("/pairwise/sources", {"targets", "separate"}) == "targets";
        d.grouped = in.reader.has("/pairwise/pairs") && in.reader.choice("/pairwise/pairs", {"all", "grouped"}) == "grouped";
      })) {
    in.tunables_known = false;
    return;
  }
  if (!d.grid && in.spec.dims != 1 && in.dims_ok)
    in.diag.unit([&] { in.src->fail("/dims", fmt::format("dims {} for particles", in.spec.dims), "dims 1: particles are 1-D arrays (domain \"grid\" takes 1-3-D grids)"); });
  if (d.grid && !d.same_set)
    in.diag.unit([&] { in.src->fail("/pairwise/sources", "separate sources on a grid", "\"targets\": on a grid, targets and sources are the same cells"); });
  if (!keys.meant.count("self")) in.diag.unit([&] {
    if (d.same_set) {
      if (!in.reader.has("/pairwise/self"))
        in.src->fail("/pairwise", "missing key 'self'", "\"self\": \"skip\" or \"include\": whether the pair of a target with itself counts");
      d.skip_self = in.reader.choice("/pairwise/self", {"include", "skip"}) == "skip";
    } else if (in.reader.has("/pairwise/self")) {
      in.src->fail("/pairwise/self", "'self' with separate sources", "no 'self': a target is never one of separate sources");
    }
  });
  for (const auto& f : in.spec.fields) {
    if (f.role != FieldDecl::Role::Input) continue;
    // A field read wrongly is in.broken for the expressions that read it.
    if (!in.diag.unit([&] { check_pair_field(in, f); })) in.broken.insert(f.name);
    for (bool source : {false, true}) {
      if ((f.set == FieldDecl::Set::Targets && source) || (f.set == FieldDecl::Set::Sources && !source)) continue;
      d.values.push_back({f.name + (source ? "_j" : "_i"), source, static_cast<int>(&f - in.spec.fields.data()), -1, "f_" + f.name});
    }
  }
  if (d.grid)
    for (int ax = 0; ax < in.spec.dims; ++ax)
      for (bool source : {false, true}) {
        const std::string c = std::string("i") + axis_name(ax);
        d.values.push_back({c + (source ? "_j" : "_i"), source, -1, ax, c});
      }
  if (in.spec.inputs().size() > std::size_t{kPairMaxInputs} || in.spec.output_fields().size() > std::size_t{kPairMaxOutputs} ||
      in.spec.params.size() > std::size_t{kPairMaxParams})
    in.diag.unit([&] {
      in.src->fail("/fields", fmt::format("{} inputs, {} outputs and {} params", in.spec.inputs().size(), in.spec.output_fields().size(), in.spec.params.size()),
                 fmt::format("at most {} inputs, {} outputs and {} params (the kernel's argument block)", kPairMaxInputs, kPairMaxOutputs,
                             kPairMaxParams));
    });
  in.expression_scope = pairwise_scope(in.spec);
  // Pair expressions read the values of the pair, each of one field (or a cell coordinate).
  for (const PairValue& v : d.values) in.access_fields.push_back(v.field);
  in.check_names = [&in](const Ast& expr, const std::string& ptr) { check_pair_names(in.spec, expr, *in.src, ptr); };
}

}  // namespace gpen
