// The reduction family: expressions of the inputs at a point, combined over
// the interior along chosen axes (sums, minima, maxima, any associative
// operation with its identity), several results in one pass.
#include <fmt/format.h>

#include "gpen/families/common/tunable_offer.hpp"
#include "gpen/families/reduce/reduce_decl.hpp"
#include "gpen/families/reduce/reduce_plan.hpp"
#include "gpen/generator/expr_ast.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/ir_common.hpp"

namespace gpen {
namespace {

UnitResources resources(const Spec& spec, const TunableChoice& choice) { return {plan_reduce(spec, choice).threads(), 0, 0}; }

std::string describe(const Spec& s) {
  std::vector<std::string> results;
  for (const auto& o : s.outputs) results.push_back(fmt::format("{} = '{}' of {}", s.fields[o.field].name, to_source_text(*o.op->op_ast), to_source_text(*o.ast)));
  const IrWork w = ir_work(s.output_exprs());
  return fmt::format("reduce '{}', {} (combined in {}), {}-D, along {}; {}; per point: {:.0f} reads ({:.0f} distinct), {:.0f} operations with common subexpressions once", s.name,
                     to_string(s.dtype), to_string(accumulator_dtype(s)), s.dims, reduced_axis_names(s), fmt::join(results, "; "),
                     w.reads, w.distinct_reads, w.distinct_ops);
}

// Its JSON: the root's keys, own object, and how fields and expressions read
// (SpecShape: required, optional, own_key, expressions, pair_expressions, ghost_reach, output_reductions).
SpecShape spec_shape() {
  return SpecShape{{"name", "kind", "dtype", "dims", "fields", "outputs"},
                   {"$schema", "description", "params", "operators", "lets", "reduce", "tunables", "constraints"},
                   "reduce",
                   true,
                   false,
                   true,
                   true};
}

}  // namespace

const Family& reduce_family() {
  static const Family f{"reduce", spec_shape(), read_reduce, [] { return FamilyDecl{ReduceDecl{}}; }, [] { return table_info(reduce_tunable_rows()); },
                        reduce_offers, plan_reduce_unit, print_reduce_unit, resources, describe};
  return f;
}

}  // namespace gpen
