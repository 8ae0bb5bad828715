#include "gpen/runtime/nvrtc_library.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <atomic>
#include <climits>
#include <cstdlib>

#include <fmt/format.h>

// Set by runtime/CMakeLists.txt from the toolkit CMake found.
#ifndef GPEN_NVRTC_PATH
#error "GPEN_NVRTC_PATH: the build-time path of libnvrtc"
#endif
#ifndef GPEN_NVRTC_SONAME
#error "GPEN_NVRTC_SONAME: libnvrtc's soname"
#endif
#ifndef GPEN_CUDA_VERSION_MAJOR
#error "GPEN_CUDA_VERSION_MAJOR, GPEN_CUDA_VERSION_MINOR: the toolkit's version"
#endif

namespace gpen {
namespace {

std::atomic<bool> opened{false};

// "<path> -> <resolved>, <size> bytes, mtime <s>.<ns>", or "" when there
// is no file at `path`.
std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  char resolved[PATH_MAX];
  const std::string real = ::realpath(path.c_str(), resolved) ? resolved : path;
  return fmt::format("{} -> {}, {} bytes, mtime {}.{:09}", path, real, static_cast<long long>(st.st_size),
                     static_cast<long long>(st.st_mtim.tv_sec), static_cast<long>(st.st_mtim.tv_nsec));
}

}  // namespace

std::vector<std::string> nvrtc_candidates() { return {GPEN_NVRTC_PATH, GPEN_NVRTC_SONAME}; }

std::pair<int, int> nvrtc_build_version() { return {GPEN_CUDA_VERSION_MAJOR, GPEN_CUDA_VERSION_MINOR}; }

NvrtcApi open_nvrtc(const std::vector<std::string>& candidates) {
  std::string tried;
  for (const std::string& c : candidates) {
    void* lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      tried += fmt::format("\n  {}: {}", c, why ? why : "not found");
      continue;
    }
    NvrtcApi api;
    std::string missing;
#define GPEN_NVRTC_FN(name)                                                        \
  api.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name));               \
  if (!api.name && missing.empty()) missing = #name;
#include "gpen/runtime/nvrtc_functions.inc"
#undef GPEN_NVRTC_FN
    if (missing.empty()) return api;  // the handle stays open for the process
    tried += fmt::format("\n  {}: has no {}", c, missing);
    dlclose(lib);
  }
  throw NvrtcUnavailable(fmt::format("cannot compile kernels: no usable NVRTC library (tried, in order:{})\n"
                                     "install the CUDA toolkit's NVRTC (gpen was built against CUDA {}.{})",
                                     tried, GPEN_CUDA_VERSION_MAJOR, GPEN_CUDA_VERSION_MINOR));
}

const NvrtcApi& nvrtc() {
  static const NvrtcApi api = [] {
    NvrtcApi a = open_nvrtc(nvrtc_candidates());
    opened = true;
    return a;
  }();
  return api;
}

bool nvrtc_loaded() { return opened.load(); }

const std::string& nvrtc_identity() {
  static const std::string id = [] {
    std::string file = file_identity(GPEN_NVRTC_PATH);
    if (file.empty()) {
      // Not where the build found it: the loader's choice, which only
      // opening it reveals.
      try {
        Dl_info info{};
        if (dladdr(reinterpret_cast<void*>(nvrtc().nvrtcVersion), &info) && info.dli_fname) file = file_identity(info.dli_fname);
      } catch (const NvrtcUnavailable&) {
        // No NVRTC at all: no entry can be known to fit; the compile says why.
      }
      if (file.empty()) file = fmt::format("{} (not found)", GPEN_NVRTC_SONAME);
    }
    return fmt::format("cuda {}.{}; {}", GPEN_CUDA_VERSION_MAJOR, GPEN_CUDA_VERSION_MINOR, file);
  }();
  return id;
}

}  // namespace gpen
