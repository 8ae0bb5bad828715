#include "gpen/families/scan/scan_op.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpen/generator/error.hpp"

namespace gpen {

Spec scan_op_scope(Dtype dtype) {
  Spec s;
  s.name = "scan_op";
  s.kind = "scan";
  s.dtype = dtype;
  s.dims = 1;
  s.fields.push_back({"a", FieldDecl::Role::Input, 0, 0, "/scan/op"});
  s.fields.push_back({"b", FieldDecl::Role::Input, 0, 1, "/scan/op"});
  return s;
}

double apply_scan_op(const ScanDecl& scan, double a, double b) {
  return evaluate(*scan.op_ir, [&](const Access& x) { return x.field == 0 ? a : b; }, {});
}

namespace {

bool same(double got, double want) {
  if (got == want) return true;  // infinities included
  return std::isfinite(got) && std::isfinite(want) && std::fabs(got - want) <= 1e-12 * std::max(1.0, std::fabs(want));
}

// fmt writes a NaN's sign ("-nan"), which says nothing here.
std::string show(double v) { return std::isnan(v) ? "nan" : fmt::format("{}", v); }

const double kSamples[] = {-1.5, -0.25, 0.5, 1.0, 3.75};

// Whether op agrees with logaddexp on the samples: a log-sum-exp written out,
// such as max(a, b) + log(1 + exp(-abs(a - b))).
bool is_log_sum_exp(const ScanDecl& scan) {
  for (double a : kSamples)
    for (double b : kSamples)
      if (!same(apply_scan_op(scan, a, b), logaddexp(a, b))) return false;
  return true;
}

// op(e, e) = e: the kernels pad partial segments with the identity and
// start their carries at it, so they combine identity with identity
// (families/scan/device/scan_rows.cuh). Sampling op(e, x) with finite x does not
// reach it: max(a, b) + log(1 + exp(-abs(a - b))) is x at (-inf, x) but
// NaN at (-inf, -inf), since -inf - -inf is NaN.
void check_identity_with_itself(const ScanDecl& scan, const JsonSource& src) {
  const double ee = apply_scan_op(scan, scan.identity, scan.identity);
  if (same(ee, scan.identity)) return;
  std::string hint;
  if (std::isinf(scan.identity) && scan.identity < 0)
    hint = is_log_sum_exp(scan) ? "; this operation is a log-sum-exp: write logaddexp(a, b), which gives -inf there"
                                : "; for a log-sum-exp write logaddexp(a, b), which gives -inf there";
  src.fail("/scan/op",
           fmt::format("'{}' gives {} at a = b = {}, the identity", quoted_text(scan.op_text), show(ee), scan.identity_text),
           fmt::format("op(e, e) = e = {}: the kernels pad lines and blocks with the identity and combine it with itself{}",
                       scan.identity_text, hint));
}

}  // namespace

void check_scan_op(const ScanDecl& scan, const JsonSource& src) {
  std::vector<Access> reads;
  collect_accesses(*scan.op_ir, reads);
  for (int slot = 0; slot < 2; ++slot) {
    const bool read = std::any_of(reads.begin(), reads.end(), [&](const Access& a) { return a.field == slot; });
    if (!read)
      src.fail("/scan/op", fmt::format("'{}' never reads {}", scan.op_text, slot == 0 ? "a" : "b"),
               "an operation of both values, such as a + b, a * b or max(a, b)");
  }
  for (double a : kSamples)
    for (double b : kSamples)
      for (double c : kSamples) {
        const double lhs = apply_scan_op(scan, apply_scan_op(scan, a, b), c);
        const double rhs = apply_scan_op(scan, a, apply_scan_op(scan, b, c));
        if (!std::isfinite(lhs) || !std::isfinite(rhs)) continue;
        if (std::fabs(lhs - rhs) > 1e-9 * std::max({1.0, std::fabs(lhs), std::fabs(rhs)}))
          src.fail("/scan/op",
                   fmt::format("'{}' is not associative: with x = {}, y = {}, z = {}, op(op(x, y), z) = {} but op(x, op(y, z)) = {}",
                               scan.op_text, show(a), show(b), show(c), show(lhs), show(rhs)),
                   "an associative operation: a parallel scan combines values in a tree, not one after another");
      }
  for (double x : kSamples) {
    const double l = apply_scan_op(scan, scan.identity, x), r = apply_scan_op(scan, x, scan.identity);
    if (!same(l, x) || !same(r, x))
      src.fail("/scan/identity",
               fmt::format("{} is not an identity of '{}': with a = {}, b = {} it gives {}", scan.identity_text, scan.op_text,
                           same(l, x) ? show(x) : scan.identity_text, same(l, x) ? scan.identity_text : show(x), show(same(l, x) ? r : l)),
               "a value e with op(e, x) = x = op(x, e): 0 for a + b, 1 for a * b, \"-inf\" for max(a, b)");
  }
  check_identity_with_itself(scan, src);
}

}  // namespace gpen
