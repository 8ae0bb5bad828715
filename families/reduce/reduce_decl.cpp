// The reduction's own JSON: the "reduce" object (axes, accumulation), and
// what it makes of the output fields: their dtype and the axes they lose.
#include <fmt/format.h>

#include "gpen/families/reduce/reduce_decl.hpp"
#include "gpen/families/reduce/reduce_plan.hpp"

namespace gpen {

void read_reduce(SpecReading& in) {
  ReduceDecl& d = in.spec.reduce();
  d.pointer = "/reduce";
  const unsigned every_axis = (1u << in.spec.dims) - 1;
  d.axes = every_axis;
  const bool ok = !in.reader.has("/reduce") || in.diag.unit([&] {
    in.reader.object("/reduce", {}, {"axes", "accumulate", "description"});
    std::vector<std::string> names = {"x", "y", "z"};
    names.resize(static_cast<std::size_t>(in.spec.dims));
    if (in.reader.has("/reduce/axes")) {
      const std::size_t n = in.reader.array("/reduce/axes", true, 3);
      d.axes = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::string p = json_pointer_join("/reduce/axes", i);
        const std::string ax = in.reader.choice(p, names);
        const unsigned bit = 1u << (ax[0] - 'x');
        if (d.axes & bit) in.src->fail(p, fmt::format("axis {} is listed twice", ax), "each axis once");
        d.axes |= bit;
      }
    }
    if (in.reader.has("/reduce/accumulate")) {
      const std::string acc = in.reader.choice("/reduce/accumulate", {"float32", "float64"});
      // A float64 spec's own float32 accumulation is a mistake; a float32
      // spec read as float64 (--dtype) simply combines in float64.
      const bool written64 = in.reader.has("/dtype") && in.reader.at("/dtype") == "float64";
      if (acc == "float32" && written64)
        in.src->fail("/reduce/accumulate", "float32 accumulation of float64 inputs", "\"float64\": values combine in the inputs' precision or above");
      d.accumulate64 = acc == "float64";
    }
  });
  if (!ok) d.axes = every_axis;  // what follows is checked as if every axis were reduced
  if (in.spec.dtype == Dtype::Float64) d.accumulate64 = true;
  if (!in.fields_whole) return;
  in.diag.unit([&] {
    if (in.spec.inputs().empty()) in.src->fail("/fields", "no field has role \"input\"", "at least one input field: the values reduced are expressions of inputs");
  });
  for (auto& f : in.spec.fields) {
    if (f.role != FieldDecl::Role::Output) continue;
    f.reduced_axes = d.axes;
    if (d.accumulate64) f.dtype = Dtype::Float64;
    if (f.ghost != 0)
      in.diag.unit([&] {
        in.src->fail(f.pointer + "/ghost", fmt::format("ghost width {} on the result '{}'", f.ghost, f.name), "no ghost zones (0) on a reduction's result");
      });
  }
}

}  // namespace gpen
