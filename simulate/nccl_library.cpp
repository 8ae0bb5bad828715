#include "nccl_library.hpp"

#include <dlfcn.h>

#include <stdexcept>

#include <fmt/format.h>

namespace gpen::sim {

namespace {
NcclApi open_nccl() {
  std::string tried;
  for (const char* name : {"libnccl.so.2", "libnccl.so"}) {
    void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      tried += fmt::format("\n  {}: {}", name, why ? why : "not found");
      continue;
    }
    NcclApi api;
#define GPEN_NCCL_FN(fn)                                                                                  \
  api.fn = reinterpret_cast<decltype(&::fn)>(dlsym(lib, #fn));                                            \
  if (!api.fn) throw std::runtime_error(fmt::format("NCCL: {} lacks {} (gpen needs NCCL 2.7 or later)", name, #fn));
#include "nccl_functions.inc"
#undef GPEN_NCCL_FN
    return api;
  }
  throw std::runtime_error("NCCL: the library could not be opened (several GPUs need it):" + tried);
}
}  // namespace

const NcclApi& nccl() {
  static const NcclApi api = open_nccl();
  return api;
}

void nccl_check(ncclResult_t r, const std::string& doing) {
  if (r == ncclSuccess) return;
  const char* what = nccl().ncclGetErrorString ? nccl().ncclGetErrorString(r) : "unknown";
  throw std::runtime_error(fmt::format("NCCL: {} failed: {} ({})", doing, what, static_cast<int>(r)));
}

}  // namespace gpen::sim
