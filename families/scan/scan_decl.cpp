#include "gpen/families/scan/scan_decl.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpen/generator/associative_op.hpp"
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
  d.op_pointer = "/scan/op";
  d.identity_pointer = "/scan/identity";
  read_associative_op(in, d);
  if (in.reader.has("/scan/exclusive")) in.diag.unit([&] { d.exclusive = in.reader.boolean("/scan/exclusive"); });
  if (in.reader.has("/scan/reverse")) in.diag.unit([&] { d.reverse = in.reader.boolean("/scan/reverse"); });
}

}  // namespace gpen
