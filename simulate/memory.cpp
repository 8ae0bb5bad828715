#include "memory.hpp"

#include <fmt/format.h>

#include "integrator.hpp"

namespace gpen::sim {

MemoryNeed program_memory(const Program& p, bool gpu, bool callers_fields) {
  MemoryNeed need;
  need.what = fmt::format("program {} ({}) at {}", p.name, to_string(p.dtype), size_text(p.size, p.dims));
  // Elements of every array the loop keeps: each field padded, its register
  // (2N) and its right-hand side and start (rk4) as interiors, the
  // stencils' outputs the program does not use. The GPU's 2N loop keeps a
  // pair of padded arrays per field (a stage reads one and writes the
  // other), and its stencils write no right-hand side and no unused output; its
  // registers are padded like the fields (one layout for a launch's arrays).
  const bool two_n = scheme(p.integrator).two_n, fused = gpu && two_n;
  std::uint64_t elements = 0, widest = 0;
  const std::uint64_t interior = padded_elements(p.dims, p.size, 0);
  // The fused loop's registers: none for a one-stage scheme (euler).
  const std::uint64_t registers = scheme(p.integrator).stages.size() > 1 ? 1 : 0;
  // The CPU also keeps each field's interior from before a step, to put
  // back a step Ctrl-C ends part way (Simulation::run).
  const std::uint64_t interiors = (two_n ? (fused ? 0 : 2) : 3) + (gpu ? 0 : 1);
  // Padded arrays a field: the fused loop's pair (one of them the caller's) and
  // register; else the field (on the caller's arrays, rk4's packed copy of it).
  const std::uint64_t paddeds = fused ? 2 + registers - (callers_fields ? 1 : 0) : 1;
  for (const ProgramField& f : p.fields) {
    const std::uint64_t padded = padded_elements(p.dims, p.size, f.ghost);
    elements = bytes_plus(elements, bytes_plus(bytes_times(paddeds, padded), bytes_times(interiors, interior)));
    widest = std::max(widest, padded);
  }
  for (const RhsKernel& r : p.rhs)
    for (const FieldDecl* o : r.use.spec.output_fields())
      // The CPU keeps every output; the GPU's rk4 those not used (the rest are k); the fused loop none.
      if (gpu ? !fused && r.output_field[static_cast<std::size_t>(o->slot)] < 0 : true)
        elements = bytes_plus(elements, padded_elements(p.dims, p.size, o->ghost));
  const std::uint64_t initial = bytes_times(interior, sizeof(double));  // a field's values at a time (Simulation)
  if (gpu) {
    need.device = bytes_times(elements, size_of(p.dtype));
    need.host = bytes_plus(initial, bytes_times(widest, size_of(p.dtype)));  // upload_interior's staging array
  } else {
    need.host = bytes_plus(initial, bytes_times(elements, sizeof(double)));
  }
  return need;
}

}  // namespace gpen::sim
