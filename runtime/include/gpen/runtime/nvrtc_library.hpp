// NVRTC, opened at run time with dlopen on the first compile (as the driver
// is, driver.hpp), so that a process whose kernels all come from the cache
// never maps the 100 MB library. Types come from the toolkit's nvrtc.h;
// nothing links against libnvrtc.
//
// The library tried first is the one gpen was built against (its path as
// CMake found it, with the soname: /usr/local/cuda/lib64/libnvrtc.so.13),
// then the soname alone, through the dynamic loader's search path.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <nvrtc.h>

namespace gpen {

// No NVRTC library could be opened: what() names each file tried and why not.
class NvrtcUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Function table filled by dlsym.
struct NvrtcApi {
#define GPEN_NVRTC_FN(name) decltype(&::name) name = nullptr;
#include "gpen/runtime/nvrtc_functions.inc"
#undef GPEN_NVRTC_FN
};

// The process-wide table, opened on first use. Throws NvrtcUnavailable.
const NvrtcApi& nvrtc();
// Whether this process has opened NVRTC (tests: a warm start must not).
bool nvrtc_loaded();

// The files nvrtc() tries, in order: the build-time path, then the soname.
std::vector<std::string> nvrtc_candidates();
// The first of `candidates` that dlopen takes and that has every function
// of the table (the handle is kept for the process). Throws
// NvrtcUnavailable naming every candidate and dlerror()'s answer for it.
NvrtcApi open_nvrtc(const std::vector<std::string>& candidates);

// What NVRTC this process compiles with, known without opening it, for
// the kernel cache key: the CUDA version gpen was built with, and the
// path, resolved path, size and modification time of the build-time
// library ("cuda 13.0; /usr/local/cuda/lib64/libnvrtc.so.13 ->
// /usr/local/cuda/targets/.../libnvrtc.so.13.0.48, 109338064 bytes,
// mtime 1729000000.123456789"). A toolkit installed over it changes it. Only
// when that file is missing is the library opened to be identified, the
// same way, by the file the loader found. Computed once per process.
const std::string& nvrtc_identity();

// The CUDA version gpen was built with, as (major, minor): what the
// build-time library is, and so what the options in a cache key assume.
std::pair<int, int> nvrtc_build_version();

}  // namespace gpen
