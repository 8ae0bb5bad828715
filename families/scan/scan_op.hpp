// The binary operation of a scan spec ("a + b", "max(a, b)"): the scope its
// names resolve in, its evaluation in double precision, and the checks that
// need evaluation (both values read, the identity is one, also with itself,
// sampled associativity).
#pragma once

#include "gpen/generator/spec.hpp"

namespace gpen {

// A spec whose only names are the input values a (slot 0) and b (slot 1),
// for lowering and printing the operation.
Spec scan_op_scope(Dtype dtype);

// op(a, b) in double precision.
double apply_scan_op(const ScanDecl& scan, double a, double b);

// Throws SpecError at /scan/op when the operation does not read both values
// or is plainly not associative on sample values, then at /scan/identity
// when op(e, x) or op(x, e) is not x for a finite sample x, then at
// /scan/op when op(e, e) is not e (a log-sum-exp written out gives NaN at
// -inf, -inf; logaddexp(a, b) gives -inf). Sampling cannot prove
// associativity; it catches the usual mistakes (a - b, a / b, (a + b) / 2).
void check_scan_op(const ScanDecl& scan, const JsonSource& src);

}  // namespace gpen
