#include "gpen/generator/associative_op.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include <fmt/format.h>

#include "gpen/generator/error.hpp"
#include "gpen/generator/lower.hpp"

namespace gpen {

Spec associative_op_scope(Dtype dtype) {
  Spec s;
  s.name = "op";
  s.kind = "scan";
  s.dtype = dtype;
  s.dims = 1;
  s.fields.push_back({"a", FieldDecl::Role::Input, 0, 0, "op"});
  s.fields.push_back({"b", FieldDecl::Role::Input, 0, 1, "op"});
  return s;
}

double apply_op(const AssociativeOp& op, double a, double b) {
  return evaluate(*op.op_ir, [&](const Access& x) { return x.field == 0 ? a : b; }, {});
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
bool is_log_sum_exp(const AssociativeOp& scan) {
  for (double a : kSamples)
    for (double b : kSamples)
      if (!same(apply_op(scan, a, b), logaddexp(a, b))) return false;
  return true;
}

// op(e, e) = e: the kernels pad partial segments with the identity and
// start their carries at it, so they combine identity with identity
// (families/scan/device/scan_rows.cuh, families/reduce/device/reduce.cuh). Sampling op(e, x) with finite x does not
// reach it: max(a, b) + log(1 + exp(-abs(a - b))) is x at (-inf, x) but
// NaN at (-inf, -inf), since -inf - -inf is NaN.
void check_identity_with_itself(const AssociativeOp& scan, const JsonSource& src) {
  const double ee = apply_op(scan, scan.identity, scan.identity);
  if (same(ee, scan.identity)) return;
  std::string hint;
  if (std::isinf(scan.identity) && scan.identity < 0)
    hint = is_log_sum_exp(scan) ? "; this operation is a log-sum-exp: write logaddexp(a, b), which gives -inf there"
                                : "; for a log-sum-exp write logaddexp(a, b), which gives -inf there";
  src.fail(scan.op_pointer,
           fmt::format("'{}' gives {} at a = b = {}, the identity", quoted_text(scan.op_text), show(ee), scan.identity_text),
           fmt::format("op(e, e) = e = {}: the kernels pad lines and blocks with the identity and combine it with itself{}",
                       scan.identity_text, hint));
}

}  // namespace

void check_associative_op(const AssociativeOp& scan, const JsonSource& src) {
  std::vector<Access> reads;
  collect_accesses(*scan.op_ir, reads);
  for (int slot = 0; slot < 2; ++slot) {
    const bool read = std::any_of(reads.begin(), reads.end(), [&](const Access& a) { return a.field == slot; });
    if (!read)
      src.fail(scan.op_pointer, fmt::format("'{}' never reads {}", scan.op_text, slot == 0 ? "a" : "b"),
               "an operation of both values, such as a + b, a * b or max(a, b)");
  }
  for (double a : kSamples)
    for (double b : kSamples)
      for (double c : kSamples) {
        const double lhs = apply_op(scan, apply_op(scan, a, b), c);
        const double rhs = apply_op(scan, a, apply_op(scan, b, c));
        if (!std::isfinite(lhs) || !std::isfinite(rhs)) continue;
        if (std::fabs(lhs - rhs) > 1e-9 * std::max({1.0, std::fabs(lhs), std::fabs(rhs)}))
          src.fail(scan.op_pointer,
                   fmt::format("'{}' is not associative: with x = {}, y = {}, z = {}, op(op(x, y), z) = {} but op(x, op(y, z)) = {}",
                               scan.op_text, show(a), show(b), show(c), show(lhs), show(rhs)),
                   "an associative operation: the kernels combine values in a tree, not one after another");
      }
  for (double x : kSamples) {
    const double l = apply_op(scan, scan.identity, x), r = apply_op(scan, x, scan.identity);
    if (!same(l, x) || !same(r, x))
      src.fail(scan.identity_pointer,
               fmt::format("{} is not an identity of '{}': with a = {}, b = {} it gives {}", scan.identity_text, scan.op_text,
                           same(l, x) ? show(x) : scan.identity_text, same(l, x) ? scan.identity_text : show(x), show(same(l, x) ? r : l)),
               "a value e with op(e, x) = x = op(x, e): 0 for a + b, 1 for a * b, \"-inf\" for max(a, b)");
  }
  check_identity_with_itself(scan, src);
}

bool read_associative_op(SpecReading& in, AssociativeOp& op, std::optional<Dtype> dtype) {
  const Dtype values = dtype.value_or(in.spec.dtype);
  const bool op_ok = in.reader.has(op.op_pointer) && in.diag.unit([&] {
    op.op_text = in.reader.string(op.op_pointer);
    op.op_ast = parse_expression_at(op.op_text, *in.src, op.op_pointer);
    const Spec scope = associative_op_scope(values);
    op.op_ir = lower_expression(scope, *op.op_ast, *in.src, op.op_pointer, 0, "one of the two values a (the running value) and b (the next input)");
  });
  const bool identity_ok = in.reader.has(op.identity_pointer) && in.diag.unit([&] {
    const nlohmann::json& id = in.reader.at(op.identity_pointer);
    if (id.is_number()) {
      op.identity = id.get<double>();
      op.identity_text = in.src->raw_scalar(op.identity_pointer);
      if (values == Dtype::Float32 && std::fabs(op.identity) > FLT_MAX)
        in.src->fail(op.identity_pointer, fmt::format("{} is beyond the range of float32", op.identity_text),
                     "a finite float32 (at most about 3.4e38 in magnitude), or \"inf\" / \"-inf\"");
    } else if (id.is_string() && (id == "inf" || id == "+inf" || id == "-inf")) {
      op.identity = id == "-inf" ? -HUGE_VAL : HUGE_VAL;
      op.identity_text = id.get<std::string>();
    } else {
      in.src->fail(op.identity_pointer, fmt::format("found {}", json_type_name(id)), "a number, or \"inf\" / \"-inf\"");
    }
  });
  return op_ok && identity_ok && in.diag.unit([&] { check_associative_op(op, *in.src); });
}

AssociativeOp named_op(const std::string& name, Dtype dtype, const std::string& pointer) {
  AssociativeOp op;
  op.op_pointer = op.identity_pointer = pointer;
  op.op_text = name == "sum" ? "a + b" : name == "min" ? "min(a, b)" : "max(a, b)";
  op.identity = name == "sum" ? 0.0 : name == "min" ? HUGE_VAL : -HUGE_VAL;
  op.identity_text = name == "sum" ? "0" : name == "min" ? "inf" : "-inf";
  GPEN_INTERNAL_CHECK(name == "sum" || name == "min" || name == "max", "a named operation: sum, min or max");
  const auto src = std::make_shared<JsonSource>(JsonSource::from_string("{}", "<" + name + ">"));
  op.op_ast = parse_expression_at(op.op_text, *src, "");
  op.op_ir = lower_expression(associative_op_scope(dtype), *op.op_ast, *src, "", 0, "a or b");
  return op;
}

}  // namespace gpen
