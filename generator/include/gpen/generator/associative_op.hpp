// An associative binary operation of two values a and b with its identity
// (spec.hpp's AssociativeOp): how it reads from a spec, its evaluation in
// double precision, and the checks that need evaluation (both values read,
// the identity is one, also with itself, sampled associativity). A scan's
// operation, and how a reduction's values combine.
#pragma once

#include <optional>

#include "gpen/generator/spec.hpp"
#include "gpen/generator/spec_reading.hpp"

namespace gpen {

// A spec whose only names are the input values a (slot 0) and b (slot 1),
// for lowering and printing the operation.
Spec associative_op_scope(Dtype dtype);

// op(a, b) in double precision.
double apply_op(const AssociativeOp& op, double a, double b);

// Reads the operation's text at op.op_pointer and its identity at
// op.identity_pointer (a number, or "inf" / "-inf") into `op`, each a unit
// of in.diag, then checks them (check_associative_op). `dtype`: the values'
// (a reduction's accumulator), by default the spec's. False when any failed.
bool read_associative_op(SpecReading& in, AssociativeOp& op, std::optional<Dtype> dtype = std::nullopt);

// Throws SpecError at op_pointer when the operation does not read both
// values or is plainly not associative on sample values, then at
// identity_pointer when op(e, x) or op(x, e) is not x for a finite sample
// x, then at op_pointer when op(e, e) is not e (a log-sum-exp written out
// gives NaN at -inf, -inf; logaddexp(a, b) gives -inf). Sampling cannot
// prove associativity; it catches the usual mistakes (a - b, a / b, (a + b) / 2).
void check_associative_op(const AssociativeOp& op, const JsonSource& src);

// The operation a name stands for: "sum" (a + b, 0), "min" (min(a, b),
// inf), "max" (max(a, b), -inf), lowered; its pointers are `pointer`.
AssociativeOp named_op(const std::string& name, Dtype dtype, const std::string& pointer);

}  // namespace gpen
