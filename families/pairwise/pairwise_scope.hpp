// The names a pairwise spec's expressions see: every value of the pair
// (x_i at the target, m_j at the source, ix_j for a grid cell's coordinate),
// the params and the lets. Pair expressions are lowered against a scope spec
// whose inputs are these values, so Access::field indexes
// PairwiseDecl::values.
#pragma once

#include "gpen/generator/spec.hpp"

namespace gpen {

// A spec whose inputs are spec.pairwise().values and whose params are the spec's.
Spec pairwise_scope(const Spec& spec);

// Throws SpecError at the name in `ast` that is a field without its suffix
// (x for x_i or x_j), a target field read at the source or the other way
// round, or a cell coordinate outside a grid, saying which names would do.
void check_pair_names(const Spec& spec, const Ast& ast, const JsonSource& src, const std::string& pointer);

// The reduction's identity: 0, +inf, -inf.
double reduce_identity(Reduce r);

}  // namespace gpen
