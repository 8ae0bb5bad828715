#include "gpen/runtime/driver.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

namespace gpen {
namespace {

// cuda.h's macros turn cuMemAlloc into cuMemAlloc_v2 and so on; stringizing
// after expansion gives the symbol the library exports.
#define GPEN_STR2(x) #x
#define GPEN_STR(x) GPEN_STR2(x)

struct Loaded {
  DriverApi api;
  std::string error;  // empty when usable
};

Loaded load() {
  Loaded l;
  if (const char* off = std::getenv("GPEN_DISABLE_DRIVER"); off && *off && std::string(off) != "0") {
    l.error = "no CUDA driver: disabled by GPEN_DISABLE_DRIVER";
    return l;
  }
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    l.error = fmt::format("no CUDA driver: dlopen(libcuda.so.1) failed: {}", dlerror());
    return l;
  }
#define GPEN_DRIVER_FN(name)                                                             \
  l.api.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, GPEN_STR(name)));          \
  if (!l.api.name) {                                                                     \
    l.error = fmt::format("no usable CUDA driver: libcuda.so.1 lacks {}", GPEN_STR(name)); \
    return l;                                                                            \
  }
#include "gpen/runtime/driver_functions.inc"
#undef GPEN_DRIVER_FN
  const CUresult r = l.api.cuInit(0);
  int count = 0;
  if (r == CUDA_SUCCESS) l.api.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0) {
    const char* name = nullptr;
    if (l.api.cuGetErrorName(r, &name) != CUDA_SUCCESS) name = "unknown";
    l.error = r == CUDA_SUCCESS ? "no GPU found: the CUDA driver reports 0 devices"
                                : fmt::format("no GPU found: cuInit failed with {}", name);
  }
  return l;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

}  // namespace

CudaError::CudaError(const std::string& call, CUresult code, const std::string& name, const std::string& doing)
    : std::runtime_error(fmt::format("{} failed with {} while {}", call, name, doing)), code_(code) {}

const DriverApi& driver() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw NoDeviceError(l.error);
  return l.api;
}

bool driver_available(std::string* why) {
  const Loaded& l = loaded();
  if (why) *why = l.error;
  return l.error.empty();
}

void cu_check(CUresult r, const char* call, const std::string& doing) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  if (driver().cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) name = "an unknown error";
  const std::string fn = call;
  throw CudaError(fn.substr(0, fn.find('(')), r, name, doing);
}

}  // namespace gpen
