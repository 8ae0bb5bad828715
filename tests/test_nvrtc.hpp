// The NVRTC checks every kind's compile test makes of a generated unit.
#pragma once

#include <string>

#include <doctest/doctest.h>

#include "gpen/families/common/spec_program.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/runtime/nvrtc_compiler.hpp"

namespace gpen::test {

// Compiles `g` for sm_90: a real CUBIN, the kernel in the PTX, ptxas' usage
// lines in the log (NVRTC 12.9+ drops them for a unit found in the driver's
// cache unless compiled with --no-cache, see nvrtc_options()), registers and
// no spills (a spill means a register array went to local memory).
// Returns the compiled unit for further checks.
inline CompiledKernel check_compiles(const Variant& g, const std::string& spec_name) {
  CAPTURE(g.name);
  const CompiledKernel k = compile_with_nvrtc(source_program(g, spec_name), "sm_90");
  INFO("NVRTC log:\n" << k.log);
  CHECK(k.cubin.size() > 1000);
  CHECK(k.ptx.find(g.kernel_name) != std::string::npos);
  CHECK(k.usage.registers > 0);
  CHECK(k.usage.spill_stores == 0);
  return k;
}

}  // namespace gpen::test
