#include "gpen/runtime/nvrtc_compiler.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <sstream>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "gpen/generator/error.hpp"
#include "gpen/runtime/arch.hpp"
#include "gpen/runtime/nvrtc_library.hpp"

namespace gpen {

CompileError::CompileError(std::string what, std::string log, std::vector<std::string> options)
    : std::runtime_error(std::move(what)), log_(std::move(log)), options_(std::move(options)) {}

namespace {

std::atomic<std::size_t> compiles{0};

void check(nvrtcResult r, const char* call, const std::string& doing) {
  if (r != NVRTC_SUCCESS) throw std::runtime_error(fmt::format("{} failed: {} ({})", call, nvrtc().nvrtcGetErrorString(r), doing));
}

// The decimal number that `text` starts with, or -1 where there is none or
// it has more digits than an int holds (a log is data, not a promise).
int leading_int(std::string_view text) {
  std::size_t n = 0;
  long long v = 0;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') {
    if (++n > 9) return -1;
    v = v * 10 + (text[n - 1] - '0');
  }
  return n == 0 ? -1 : static_cast<int>(v);
}

// The number that ends just before `suffix` in `line` ("40" of "Used 40
// registers" for " registers"), or -1.
int int_before(std::string_view line, std::string_view suffix) {
  const std::size_t at = line.find(suffix);
  if (at == std::string_view::npos) return -1;
  std::size_t b = at;
  while (b > 0 && line[b - 1] >= '0' && line[b - 1] <= '9') --b;
  return leading_int(line.substr(b, at - b));
}

// The generated source's lines around the first error NVRTC reports in it
// ("<unit name>(<line>): error ...").
std::string source_context(const std::string& name, const std::string& source, const std::string& log) {
  const std::string mark = name + "(";
  const std::size_t at = log.find(mark);
  if (at == std::string::npos) return {};
  const int bad = leading_int(std::string_view(log).substr(at + mark.size()));
  if (bad < 0) return {};
  std::istringstream in(source);
  std::string line, out;
  for (int n = 1; std::getline(in, line); ++n)
    if (n >= bad - 3 && n <= bad + 3) out += fmt::format("{} {:>4} | {}\n", n == bad ? ">" : " ", n, line);
  return out;
}

// NVRTC reads files named by #include itself; gpen gives it its own headers
// and nothing else, so every #include of what it compiles must name one of
// them. Generated text never carries a spec's words (they are parsed and
// printed), so a stray #include is gpen's bug, and it is stopped here rather
// than letting NVRTC open a host file.
void check_includes(const std::string& text, const std::string& where,
                    const std::vector<std::pair<std::string, std::string>>& headers) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::size_t hash = line.find_first_not_of(" \t");
    if (hash == std::string::npos) continue;
    if (line.compare(hash, 2, "%:") == 0) ++hash;  // the digraph of '#'
    else if (line[hash] != '#') continue;
    const std::size_t word = line.find_first_not_of(" \t", hash + 1);
    if (word == std::string::npos || line.compare(word, 7, "include") != 0) continue;
    const std::size_t q1 = line.find('"', word + 7), q2 = q1 == std::string::npos ? q1 : line.find('"', q1 + 1);
    const std::string name = q2 == std::string::npos ? "" : line.substr(q1 + 1, q2 - q1 - 1);
    bool known = false;
    for (const auto& h : headers) known = known || h.first == name;
    GPEN_INTERNAL_CHECK(known && line.find_first_not_of(" \t", q2 + 1) == std::string::npos,
                        fmt::format("{} line {} includes something other than gpen's headers: {}", where, n, line.substr(0, 120)));
  }
}

// The (major, minor) version of the NVRTC library in use (opened here).
std::pair<int, int> nvrtc_version_numbers() {
  int major = 0, minor = 0;
  nvrtc().nvrtcVersion(&major, &minor);
  return {major, minor};
}

}  // namespace

nlohmann::json to_json(const ResourceUsage& u) {
  return {{"registers", u.registers}, {"spill_stores", u.spill_stores}, {"spill_loads", u.spill_loads},
          {"shared_bytes", u.shared_bytes}, {"stack_bytes", u.stack_bytes}};
}

std::vector<std::string> nvrtc_options(const std::string& arch, std::pair<int, int> version) {
  std::vector<std::string> o = {"--gpu-architecture=" + arch, "--std=c++17", "-default-device", "--ptxas-options=-v", "-lineinfo"};
  // From 12.9 NVRTC keeps compiled units in the driver's cache where a driver
  // is loaded, and a unit it finds there comes back without the ptxas log,
  // so without its registers and spills. Our own cache keeps cubins already.
  if (version >= std::make_pair(12, 9)) o.push_back("--no-cache");
  return o;
}

std::vector<std::string> nvrtc_options(const std::string& arch) { return nvrtc_options(arch, nvrtc_version_numbers()); }

std::size_t nvrtc_compiles() { return compiles.load(); }

std::string nvrtc_version() {
  const auto [major, minor] = nvrtc_version_numbers();
  return fmt::format("{}.{}", major, minor);
}

ResourceUsage parse_ptxas_usage(const std::string& full_log, const std::string& kernel_name) {
  // Only ptxas' own lines count, those that start with "ptxas " ("ptxas
  // info    : Used 40 registers", "ptxas         .     0 bytes stack
  // frame"): a compiler warning quoting other text cannot pass for them.
  std::vector<std::string_view> lines;
  const std::string_view log(full_log);
  for (std::size_t b = 0; b < log.size();) {
    std::size_t e = log.find('\n', b);
    if (e == std::string_view::npos) e = log.size();
    if (log.compare(b, 6, "ptxas ") == 0) lines.push_back(log.substr(b, e - b));
    b = e + 1;
  }
  // A unit may hold several entries; keep the named one's section when it has one.
  std::size_t from = 0, to = lines.size();
  const std::string mark = "Compiling entry function '" + kernel_name + "'";
  for (std::size_t i = 0; !kernel_name.empty() && i < lines.size(); ++i) {
    if (lines[i].find(mark) == std::string_view::npos) continue;
    from = i;
    for (to = i + 1; to < lines.size() && lines[to].find("Compiling entry function '") == std::string_view::npos; ++to) {}
    break;
  }
  ResourceUsage u;
  auto first = [&](int& field, int value) {
    if (field < 0 && value >= 0) field = value;
  };
  for (std::size_t i = from; i < to; ++i) {
    const std::string_view l = lines[i];
    if (l.find("bytes stack frame") != std::string_view::npos) {
      first(u.stack_bytes, int_before(l, " bytes stack frame"));
      first(u.spill_stores, int_before(l, " bytes spill stores"));
      first(u.spill_loads, int_before(l, " bytes spill loads"));
    }
    if (l.find("Used ") != std::string_view::npos) {
      first(u.registers, int_before(l, " registers"));
      first(u.shared_bytes, int_before(l, " bytes smem"));
    }
  }
  // ptxas names shared memory only when a kernel has some.
  if (u.shared_bytes < 0 && u.registers >= 0) u.shared_bytes = 0;
  return u;
}

// An architecture this NVRTC does not compile for (an --arch too old or
// too new for the toolkit) is the caller's mistake, said with the ones it
// compiles for; NVRTC itself would only call the option invalid.
void check_supported_arch(const NvrtcApi& api, const std::string& arch) {
  const int cc = arch_capability(arch);
  int n = 0;
  if (cc == 0 || api.nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0) return;
  std::vector<int> archs(static_cast<std::size_t>(n));
  if (api.nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return;
  if (std::find(archs.begin(), archs.end(), cc) != archs.end()) return;
  int major = 0, minor = 0;
  api.nvrtcVersion(&major, &minor);
  std::vector<std::string> names;
  for (const int a : archs) names.push_back(fmt::format("sm_{}", a));
  throw UsageError(fmt::format("NVRTC {}.{} does not compile for {} (the --arch given, else this GPU's): it compiles for {}", major, minor, arch,
                               fmt::join(names, ", ")));
}

CompiledKernel compile_with_nvrtc(const Program& program, const std::string& arch) {
  // Printed first: a unit that cannot be printed fails as itself, before
  // NVRTC is opened, and compile_ms is NVRTC's time alone.
  const std::string source = program.source ? program.source() : std::string();
  const HeaderList headers = program.headers ? program.headers() : HeaderList{};
  const auto t0 = std::chrono::steady_clock::now();
  const NvrtcApi& api = nvrtc();
  check_supported_arch(api, arch);
  ++compiles;
  const std::string& name = program.name;
  std::vector<const char*> names, texts;
  for (const auto& [n, t] : headers) {
    names.push_back(n.c_str());
    texts.push_back(t.c_str());
  }
  const std::string doing = fmt::format("spec '{}', {}", program.label, name);
  check_includes(source, name, headers);
  for (const auto& [n, t] : headers) check_includes(t, n, headers);
  nvrtcProgram prog = nullptr;
  check(api.nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), static_cast<int>(headers.size()),
                               texts.data(), names.data()),
        "nvrtcCreateProgram", doing);
  struct Guard {
    const NvrtcApi& api;
    nvrtcProgram& p;
    ~Guard() { api.nvrtcDestroyProgram(&p); }
  } guard{api, prog};

  CompiledKernel out;
  out.kernel_name = program.kernel_name;
  out.arch = arch;
  out.options = nvrtc_options(arch);
  std::vector<const char*> opts;
  for (const auto& o : out.options) opts.push_back(o.c_str());
  const nvrtcResult r = api.nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
  std::size_t log_size = 0;
  api.nvrtcGetProgramLogSize(prog, &log_size);
  out.log.resize(log_size);
  if (log_size) api.nvrtcGetProgramLog(prog, out.log.data());
  while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();
  if (r != NVRTC_SUCCESS) {
    throw CompileError(fmt::format("NVRTC could not compile {} ({}): {}\n{}\n{}", name, doing, api.nvrtcGetErrorString(r),
                                   out.log, source_context(name, source, out.log)),
                       out.log, out.options);
  }
  std::size_t n = 0;
  check(api.nvrtcGetCUBINSize(prog, &n), "nvrtcGetCUBINSize", doing);
  out.cubin.resize(n);
  check(api.nvrtcGetCUBIN(prog, out.cubin.data()), "nvrtcGetCUBIN", doing);
  check(api.nvrtcGetPTXSize(prog, &n), "nvrtcGetPTXSize", doing);
  out.ptx.resize(n);
  check(api.nvrtcGetPTX(prog, out.ptx.data()), "nvrtcGetPTX", doing);
  out.usage = parse_ptxas_usage(out.log, program.kernel_name);
  out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace gpen
