// NVRTC: generated source -> CUBIN (and PTX) for one architecture. Needs the
// CUDA toolkit's libnvrtc (opened on first use, nvrtc_library.hpp), not a
// GPU or a driver.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpen/runtime/program.hpp"

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

// The options gpen compiles with for `arch` and an NVRTC of `version`
// (major, minor); the cache key holds them for the build-time version
// (nvrtc_build_version(), nvrtc_library.hpp), a compile uses them for the
// library it opened.
std::vector<std::string> nvrtc_options(const std::string& arch, std::pair<int, int> version);
// nvrtc_options for the NVRTC library in use: opens it.
std::vector<std::string> nvrtc_options(const std::string& arch);
// "13.0", of the NVRTC library in use: opens it.
std::string nvrtc_version();

// Prints the program's source and compiles it with its headers, and nothing
// else to include. Throws CompileError (the message names program.label), and
// NvrtcUnavailable (nvrtc_library.hpp) when there is no NVRTC to open.
CompiledKernel compile_with_nvrtc(const Program& program, const std::string& arch);
// How many times this process has called compile_with_nvrtc (tests use it
// to see that a warm cache hit compiled nothing).
std::size_t nvrtc_compiles();

// Parses ptxas' "-v" lines ("Used 40 registers, ...") out of a log: the
// section of `kernel_name` when given and present, else the first entry's.
ResourceUsage parse_ptxas_usage(const std::string& log, const std::string& kernel_name = "");

}  // namespace gpen
