// NVRTC: generated source -> CUBIN (and PTX) for one architecture. Needs the
// CUDA toolkit's libnvrtc, not a GPU or a driver.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpen/generator/codegen.hpp"

namespace gpen {

// A compile failure as data: the log, the options and the numbered source
// around the first error, so that the message shows what went wrong where.
class CompileError : public std::runtime_error {
 public:
  CompileError(std::string what, std::string log, std::vector<std::string> options);
  const std::string& log() const { return log_; }
  const std::vector<std::string>& options() const { return options_; }

 private:
  std::string log_;
  std::vector<std::string> options_;
};

struct ResourceUsage {
  int registers = -1;      // per thread
  int spill_stores = -1;   // bytes
  int spill_loads = -1;    // bytes
  int shared_bytes = -1;   // static shared memory per block
  int stack_bytes = -1;    // stack frame
};

struct CompiledKernel {
  std::string kernel_name;
  std::string arch;  // "sm_90"
  std::string cubin;
  std::string ptx;
  std::string log;   // NVRTC's log, -Xptxas -v output included
  std::vector<std::string> options;
  ResourceUsage usage;
  double compile_ms = 0;
};

// {"registers": .., "spill_stores": .., ...}: for cache headers and --json output.
nlohmann::json to_json(const ResourceUsage& u);

// The options gpen compiles with for `arch` (part of the cache key).
std::vector<std::string> nvrtc_options(const std::string& arch);
// "13.0"
std::string nvrtc_version();

// Throws CompileError; `spec_name` names the spec in the message.
CompiledKernel compile_with_nvrtc(const GeneratedSource& src, const std::string& arch, const std::string& spec_name);

// Parses ptxas' "-v" lines ("Used 40 registers, ...") out of a log: the
// section of `kernel_name` when given and present, else the first entry's.
ResourceUsage parse_ptxas_usage(const std::string& log, const std::string& kernel_name = "");

}  // namespace gpen
