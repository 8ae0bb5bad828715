#include "gpen/families/scan/scan_decl.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include <fmt/format.h>

#include "gpen/families/scan/scan_op.hpp"
#include "gpen/generator/lower.hpp"

namespace gpen {

// One input, one output, no ghost zones: a scan reads no neighbours.
void read_scan(SpecReading& in) {
  if (in.fields_whole) in.diag.unit([&] { in.one_input_one_output(in.spec.kind, "a scan reads no neighbours"); });
  ScanDecl& d = in.spec.scan();
  d.pointer = "/scan";
  in.tunables_known = false;
  if (!in.reader.has("/scan") || !in.diag.unit([&] { in.reader.object("/scan", {"axis", "op", "identity"}, {"exclusive", "reverse", "description"}); })) return;
  in.tunables_known = in.reader.has("/scan/axis") && in.diag.unit([&] {
    const std::string axes[] = {"x", "y", "z"};
    const std::string ax = in.reader.choice("/scan/axis", std::vector<std::string>(axes, axes + in.spec.dims));
    d.axis = static_cast<int>(std::find(axes, axes + 3, ax) - axes);
  });
  const bool op_ok = in.reader.has("/scan/op") && in.diag.unit([&] {
    d.op_text = in.reader.string("/scan/op");
    d.op_ast = parse_expression_at(d.op_text, *in.src, "/scan/op");
    const Spec scope = scan_op_scope(in.spec.dtype);
    d.op_ir = lower_expression(scope, *d.op_ast, *in.src, "/scan/op", 0, "one of the two values a (the running value) and b (the next input)");
  });
  const bool identity_ok = in.reader.has("/scan/identity") && in.diag.unit([&] {
    const nlohmann::json& id = in.reader.at("/scan/identity");
    if (id.is_number()) {
      d.identity = id.get<double>();
      d.identity_text = in.src->raw_scalar("/scan/identity");
      if (in.spec.dtype == Dtype::Float32 && std::fabs(d.identity) > FLT_MAX)
        in.src->fail("/scan/identity", fmt::format("{} is beyond the range of float32", d.identity_text), "a finite float32 (at most about 3.4e38 in magnitude), or \"inf\" / \"-inf\"");
    } else if (id.is_string() && (id == "inf" || id == "+inf" || id == "-inf")) {
      d.identity = id == "-inf" ? -HUGE_VAL : HUGE_VAL;
      d.identity_text = id.get<std::string>();
    } else {
      in.src->fail("/scan/identity", fmt::format("found {}", json_type_name(id)), "a number, or \"inf\" / \"-inf\"");
    }
  });
  if (in.reader.has("/scan/exclusive")) in.diag.unit([&] { d.exclusive = in.reader.boolean("/scan/exclusive"); });
  if (in.reader.has("/scan/reverse")) in.diag.unit([&] { d.reverse = in.reader.boolean("/scan/reverse"); });
  if (op_ok && identity_ok) in.diag.unit([&] { check_scan_op(d, *in.src); });
}

}  // namespace gpen
