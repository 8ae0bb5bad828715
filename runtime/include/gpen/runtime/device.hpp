// RAII owners of driver objects: the primary context of a device, streams,
// events, loaded modules and device memory. Move-only.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gpen/runtime/driver.hpp"

namespace gpen {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int clock_khz = 0;
  std::size_t total_memory = 0;
  int driver_version = 0;
  int l2_bytes = 0;
  int max_threads_per_block = 1024;
  int max_shared_per_block = 48 * 1024;  // without opting in to more
  int max_shared_per_block_optin = 48 * 1024;  // dynamic shared memory, opted in (cuFuncSetAttribute)
  int max_regs_per_block = 65536;
  std::string arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
};

// A device's context: its primary one (retained, made current on
// construction; the CUDA runtime's), or one the caller made and keeps.
class Context {
 public:
  explicit Context(int ordinal = 0);
  // The context current on this thread (one the caller made with
  // cuCtxCreate, or a primary one), not retained: the caller keeps it alive
  // while gpen's kernels, buffers and streams made under it live. Throws
  // when none is current.
  static Context current();
  ~Context();
  Context(Context&& o) noexcept;
  Context& operator=(Context&&) = delete;
  Context(const Context&) = delete;

  const DeviceInfo& info() const { return info_; }
  // Bytes of device memory free now (cuMemGetInfo), of info().total_memory.
  std::size_t free_memory() const;
  void make_current() const;
  void synchronize() const;

 private:
  struct Adopted {};
  explicit Context(Adopted) {}
  // info_ of dev_, asked of the driver.
  void describe_device(const std::string& doing);
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  bool primary_ = true;  // retained here, released on destruction
  DeviceInfo info_;
};

class Stream {
 public:
  Stream();
  // A stream whose blocks the GPU schedules before those of streams made
  // by Stream() (the context's greatest priority): work that others wait
  // for, such as a subdomain's shell whose exchange hides behind its core.
  static Stream high_priority();
  ~Stream();
  Stream(Stream&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
  Stream(const Stream&) = delete;
  CUstream get() const { return s_; }
  void synchronize() const;

 private:
  explicit Stream(CUstream s) : s_(s) {}
  CUstream s_ = nullptr;
};

class Event {
 public:
  Event();
  ~Event();
  Event(Event&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  Event(const Event&) = delete;
  void record(CUstream s) const;
  // Work queued on `s` after this call waits until the event has happened.
  void make_wait(CUstream s) const;
  // Waits until the event has happened.
  void synchronize() const;
  // Milliseconds from `start` to this event (both recorded; waits for this one).
  float since(const Event& start) const;

 private:
  CUevent e_ = nullptr;
};

// A loaded CUBIN and one function of it.
class Module {
 public:
  Module(const std::string& cubin, const std::string& kernel_name, const std::string& doing);
  ~Module();
  Module(Module&& o) noexcept : m_(o.m_), f_(o.f_) { o.m_ = nullptr; }
  Module(const Module&) = delete;
  CUfunction function() const { return f_; }
  // Another kernel of the same module.
  CUfunction function(const std::string& kernel_name) const;
  // The device address of the module's global variable `name`.
  CUdeviceptr global(const std::string& name) const;

 private:
  CUmodule m_ = nullptr;
  CUfunction f_ = nullptr;
};

// A device address as the pointer a kernel's argument block holds
// (families/<kind>/device/<kind>_args.h): never dereferenced on the host.
template <class T = void>
T* device_pointer(CUdeviceptr p) {
  return reinterpret_cast<T*>(static_cast<std::uintptr_t>(p));
}

// Device memory of `bytes` bytes.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(std::size_t bytes);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = 0; o.bytes_ = 0; }
  DeviceMemory& operator=(DeviceMemory&& o) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;

  CUdeviceptr get() const { return p_; }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host, std::size_t bytes);
  void download(void* host, std::size_t bytes) const;

  // How many allocations this process has made (tests: a launch path that
  // allocates nothing).
  static std::size_t allocations();

 private:
  CUdeviceptr p_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace gpen
