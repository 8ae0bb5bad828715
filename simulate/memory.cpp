#include "memory.hpp"

#include <fmt/format.h>

#include "integrator.hpp"

namespace gpen::sim {

MemoryNeed program_memory(const Program& p, bool gpu) {
  MemoryNeed need;
  need.what = fmt::format("program {} ({}) at {}", p.name, to_string(p.dtype), size_text(p.size, p.dims));
  // Elements of every array the loop keeps: each field padded, its right-hand
  // side and register (and rk4's start) interiors, the stencils' outputs.
  std::uint64_t elements = 0, widest = 0;
  const std::uint64_t interior = padded_elements(p.dims, p.size, 0);
  const std::uint64_t per_field = scheme(p.integrator).two_n ? 2 : 3;
  for (const ProgramField& f : p.fields) {
    const std::uint64_t padded = padded_elements(p.dims, p.size, f.ghost);
    elements = bytes_plus(elements, bytes_plus(padded, bytes_times(per_field, interior)));
    widest = std::max(widest, padded);
  }
  for (const RhsKernel& r : p.rhs)
    for (const FieldDecl* o : r.use.spec.output_fields()) elements = bytes_plus(elements, padded_elements(p.dims, p.size, o->ghost));
  const std::uint64_t initial = bytes_times(bytes_times(interior, p.fields.size()), sizeof(double));
  if (gpu) {
    need.device = bytes_times(elements, size_of(p.dtype));
    need.host = bytes_plus(initial, bytes_times(widest, sizeof(double)));
  } else {
    need.host = bytes_plus(initial, bytes_times(elements, sizeof(double)));
  }
  return need;
}

}  // namespace gpen::sim
