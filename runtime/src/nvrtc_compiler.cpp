#include "gpen/runtime/nvrtc_compiler.hpp"

#include <chrono>
#include <regex>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <nvrtc.h>

#include "gpen/generator/templates.hpp"

namespace gpen {

CompileError::CompileError(std::string what, std::string log, std::vector<std::string> options)
    : std::runtime_error(std::move(what)), log_(std::move(log)), options_(std::move(options)) {}

namespace {

void check(nvrtcResult r, const char* call, const std::string& doing) {
  if (r != NVRTC_SUCCESS) throw std::runtime_error(fmt::format("{} failed: {} ({})", call, nvrtcGetErrorString(r), doing));
}

// The generated source's lines around the first error NVRTC reports in it.
std::string source_context(const GeneratedSource& src, const std::string& log) {
  std::smatch m;
  const std::regex re(std::regex_replace(src.name, std::regex(R"([.])"), R"(\.)") + R"(\((\d+)\))");
  if (!std::regex_search(log, m, re)) return {};
  const int bad = std::stoi(m[1]);
  std::istringstream in(src.source);
  std::string line, out;
  for (int n = 1; std::getline(in, line); ++n)
    if (n >= bad - 3 && n <= bad + 3) out += fmt::format("{} {:>4} | {}\n", n == bad ? ">" : " ", n, line);
  return out;
}

// NVRTC's (major, minor) version.
std::pair<int, int> nvrtc_version_numbers() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return {major, minor};
}

}  // namespace

nlohmann::json to_json(const ResourceUsage& u) {
  return {{"registers", u.registers}, {"spill_stores", u.spill_stores}, {"spill_loads", u.spill_loads},
          {"shared_bytes", u.shared_bytes}, {"stack_bytes", u.stack_bytes}};
}

std::vector<std::string> nvrtc_options(const std::string& arch) {
  std::vector<std::string> o = {"--gpu-architecture=" + arch, "--std=c++17", "-default-device", "--ptxas-options=-v", "-lineinfo"};
  // From 12.9 NVRTC keeps compiled units in the driver's cache where a driver
  // is loaded, and a unit it finds there comes back without the ptxas log,
  // so without its registers and spills. Our own cache keeps cubins already.
  if (nvrtc_version_numbers() >= std::make_pair(12, 9)) o.push_back("--no-cache");
  return o;
}

std::string nvrtc_version() {
  const auto [major, minor] = nvrtc_version_numbers();
  return fmt::format("{}.{}", major, minor);
}

ResourceUsage parse_ptxas_usage(const std::string& full_log, const std::string& kernel_name) {
  ResourceUsage u;
  std::smatch m;
  // A unit may hold several entries; keep the named one's section of the log.
  std::string log = full_log;
  if (!kernel_name.empty()) {
    const std::string mark = "Compiling entry function '" + kernel_name + "'";
    const auto at = full_log.find(mark);
    if (at != std::string::npos) {
      const auto next = full_log.find("Compiling entry function '", at + mark.size());
      log = full_log.substr(at, next == std::string::npos ? std::string::npos : next - at);
    }
  }
  if (std::regex_search(log, m, std::regex(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)"))) {
    u.stack_bytes = std::stoi(m[1]);
    u.spill_stores = std::stoi(m[2]);
    u.spill_loads = std::stoi(m[3]);
  }
  if (std::regex_search(log, m, std::regex(R"(Used (\d+) registers)"))) u.registers = std::stoi(m[1]);
  // ptxas names shared memory only when a kernel has some.
  if (std::regex_search(log, m, std::regex(R"((\d+) bytes smem)"))) u.shared_bytes = std::stoi(m[1]);
  else if (u.registers >= 0) u.shared_bytes = 0;
  return u;
}

CompiledKernel compile_with_nvrtc(const GeneratedSource& src, const std::string& arch, const std::string& spec_name) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto headers = template_headers();
  std::vector<const char*> names, texts;
  for (const auto& [n, t] : headers) {
    names.push_back(n.c_str());
    texts.push_back(t.c_str());
  }
  const std::string doing = fmt::format("spec '{}', {}", spec_name, src.name);
  nvrtcProgram prog = nullptr;
  check(nvrtcCreateProgram(&prog, src.source.c_str(), src.name.c_str(), static_cast<int>(headers.size()),
                           texts.data(), names.data()),
        "nvrtcCreateProgram", doing);
  struct Guard {
    nvrtcProgram& p;
    ~Guard() { nvrtcDestroyProgram(&p); }
  } guard{prog};

  CompiledKernel out;
  out.kernel_name = src.kernel_name;
  out.arch = arch;
  out.options = nvrtc_options(arch);
  std::vector<const char*> opts;
  for (const auto& o : out.options) opts.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  out.log.resize(log_size);
  if (log_size) nvrtcGetProgramLog(prog, out.log.data());
  while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();
  if (r != NVRTC_SUCCESS) {
    throw CompileError(fmt::format("NVRTC could not compile {} ({}): {}\n{}\n{}", src.name, doing, nvrtcGetErrorString(r),
                                   out.log, source_context(src, out.log)),
                       out.log, out.options);
  }
  std::size_t n = 0;
  check(nvrtcGetCUBINSize(prog, &n), "nvrtcGetCUBINSize", doing);
  out.cubin.resize(n);
  check(nvrtcGetCUBIN(prog, out.cubin.data()), "nvrtcGetCUBIN", doing);
  check(nvrtcGetPTXSize(prog, &n), "nvrtcGetPTXSize", doing);
  out.ptx.resize(n);
  check(nvrtcGetPTX(prog, out.ptx.data()), "nvrtcGetPTX", doing);
  out.usage = parse_ptxas_usage(out.log, src.kernel_name);
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace gpen
