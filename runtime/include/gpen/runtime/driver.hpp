// The CUDA driver API, opened at run time with dlopen("libcuda.so.1") so that
// gpen starts, checks, generates and compiles on machines without a driver;
// only launching needs one. Types come from the toolkit's cuda.h; nothing
// links against libcuda.
#pragma once

#include <stdexcept>
#include <string>

#include <cuda.h>

namespace gpen {

// No driver library, or no usable GPU: says which, and why.
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A driver call failed: the call, the error's name and what gpen was doing.
class CudaError : public std::runtime_error {
 public:
  CudaError(const std::string& call, CUresult code, const std::string& name, const std::string& doing);
  CUresult code() const { return code_; }

 private:
  CUresult code_;
};

// Function table filled by dlsym; symbol names carry their _v2 suffixes.
struct DriverApi {
#define GPEN_DRIVER_FN(name) decltype(&::name) name = nullptr;
#include "gpen/runtime/driver_functions.inc"
#undef GPEN_DRIVER_FN
};

// The process-wide driver table, initialised (cuInit) on first use.
// Throws NoDeviceError when there is no driver or no device.
const DriverApi& driver();

// True if driver() would succeed; `why` receives the reason when not.
bool driver_available(std::string* why = nullptr);

// Throws CudaError unless r == CUDA_SUCCESS.
void cu_check(CUresult r, const char* call, const std::string& doing);

// `doing` is evaluated only when the call fails: a launch formats no
// message on its way (a Python launch's budget is a few microseconds).
#define GPEN_CU(call, doing)                                            \
  do {                                                                  \
    const CUresult gpen_cu_result_ = ::gpen::driver().call;             \
    if (gpen_cu_result_ != CUDA_SUCCESS) ::gpen::cu_check(gpen_cu_result_, #call, doing); \
  } while (0)

}  // namespace gpen
