// The NVRTC checks every kind's compile test makes of a generated unit.
#pragma once

#include <string>

#include <doctest/doctest.h>

#include "gpen/generator/codegen.hpp"
#include "gpen/runtime/nvrtc_compiler.hpp"

namespace gpen::test {

// Compiles `g` for sm_90: a real CUBIN, the kernel in the PTX, and where
// the log has ptxas' usage lines, registers and no spills (a spill means a
// register array went to local memory). On the GPU machine NVRTC's log
// sometimes lacks those lines (3 of 20 kernels on 2026-11-22); the runtime
// then reads the loaded function's attributes. Returns whether it had them.
inline bool check_compiles(const GeneratedSource& g, const std::string& spec_name) {
  CAPTURE(g.name);
  const CompiledKernel k = compile_with_nvrtc(g, "sm_90", spec_name);
  INFO("NVRTC log:\n" << k.log);
  CHECK(k.cubin.size() > 1000);
  CHECK(k.ptx.find(g.kernel_name) != std::string::npos);
  if (k.log.find("Used ") == std::string::npos) return false;
  CHECK(k.usage.registers > 0);
  CHECK(k.usage.spill_stores == 0);
  return true;
}

}  // namespace gpen::test
