#include "gpen/runtime/device.hpp"

#include <atomic>
#include <stdexcept>

#include <fmt/format.h>

namespace gpen {

void Context::describe_device(const std::string& doing) {
  const DriverApi& d = driver();
  char name[256] = {};
  cu_check(d.cuDeviceGetName(name, sizeof name, dev_), "cuDeviceGetName", doing);
  info_.name = name;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    cu_check(d.cuDeviceGetAttribute(&v, a, dev_), "cuDeviceGetAttribute", doing);
    return v;
  };
  info_.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info_.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info_.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info_.clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  info_.l2_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info_.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info_.max_shared_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  info_.max_shared_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info_.max_regs_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  cu_check(d.cuDeviceTotalMem(&info_.total_memory, dev_), "cuDeviceTotalMem", doing);
  cu_check(d.cuDriverGetVersion(&info_.driver_version), "cuDriverGetVersion", doing);
}

Context::Context(int ordinal) {
  const DriverApi& d = driver();
  info_.ordinal = ordinal;
  const std::string doing = fmt::format("opening GPU {}", ordinal);
  cu_check(d.cuDeviceGet(&dev_, ordinal), "cuDeviceGet", doing);
  describe_device(doing);
  cu_check(d.cuDevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain", doing);
  make_current();
}

Context Context::current() {
  const DriverApi& d = driver();
  const std::string doing = "adopting the current context";
  Context c{Adopted{}};
  c.primary_ = false;
  cu_check(d.cuCtxGetCurrent(&c.ctx_), "cuCtxGetCurrent", doing);
  if (!c.ctx_) throw std::runtime_error("adopting the current context: no context is current on this thread (cuCtxCreate or cuCtxSetCurrent first)");
  cu_check(d.cuCtxGetDevice(&c.dev_), "cuCtxGetDevice", doing);
  int count = 0;
  cu_check(d.cuDeviceGetCount(&count), "cuDeviceGetCount", doing);
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    if (d.cuDeviceGet(&dev, i) == CUDA_SUCCESS && dev == c.dev_) c.info_.ordinal = i;
  }
  c.describe_device(doing);
  return c;
}

Context::~Context() {
  if (ctx_ && primary_) driver().cuDevicePrimaryCtxRelease(dev_);
}

Context::Context(Context&& o) noexcept : dev_(o.dev_), ctx_(o.ctx_), primary_(o.primary_), info_(o.info_) { o.ctx_ = nullptr; }

void Context::make_current() const { GPEN_CU(cuCtxSetCurrent(ctx_), "making the context current"); }
void Context::synchronize() const { GPEN_CU(cuCtxSynchronize(), "waiting for the GPU"); }
std::size_t Context::free_memory() const {
  std::size_t free = 0, total = 0;
  GPEN_CU(cuMemGetInfo(&free, &total), "asking for the GPU's free memory");
  return free;
}

Stream::Stream() { GPEN_CU(cuStreamCreate(&s_, CU_STREAM_NON_BLOCKING), "creating a stream"); }
Stream Stream::high_priority() {
  int least = 0, greatest = 0;
  GPEN_CU(cuCtxGetStreamPriorityRange(&least, &greatest), "asking for the context's stream priorities");
  CUstream s = nullptr;
  GPEN_CU(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, greatest), "creating a high-priority stream");
  return Stream(s);
}
Stream::~Stream() {
  if (s_) driver().cuStreamDestroy(s_);
}
void Stream::synchronize() const { GPEN_CU(cuStreamSynchronize(s_), "waiting for a stream"); }

Event::Event() { GPEN_CU(cuEventCreate(&e_, CU_EVENT_DEFAULT), "creating an event"); }
Event::~Event() {
  if (e_) driver().cuEventDestroy(e_);
}
void Event::record(CUstream s) const { GPEN_CU(cuEventRecord(e_, s), "recording an event"); }
void Event::make_wait(CUstream s) const { GPEN_CU(cuStreamWaitEvent(s, e_, 0), "making a stream wait for an event"); }
void Event::synchronize() const { GPEN_CU(cuEventSynchronize(e_), "waiting for an event"); }
float Event::since(const Event& start) const {
  GPEN_CU(cuEventSynchronize(e_), "waiting for an event");
  float ms = 0;
  GPEN_CU(cuEventElapsedTime(&ms, start.e_, e_), "reading an event's time");
  return ms;
}

Module::Module(const std::string& cubin, const std::string& kernel_name, const std::string& doing) {
  GPEN_CU(cuModuleLoadData(&m_, cubin.data()), "loading the CUBIN of " + doing);
  GPEN_CU(cuModuleGetFunction(&f_, m_, kernel_name.c_str()), "finding kernel " + kernel_name + " of " + doing);
}
CUfunction Module::function(const std::string& kernel_name) const {
  CUfunction f = nullptr;
  GPEN_CU(cuModuleGetFunction(&f, m_, kernel_name.c_str()), "finding kernel " + kernel_name);
  return f;
}
CUdeviceptr Module::global(const std::string& name) const {
  CUdeviceptr p = 0;
  size_t bytes = 0;
  GPEN_CU(cuModuleGetGlobal(&p, &bytes, m_, name.c_str()), "finding the module's global " + name);
  return p;
}

Module::~Module() {
  if (m_) driver().cuModuleUnload(m_);
}

namespace {
std::atomic<std::size_t> g_allocations{0};
}  // namespace

DeviceMemory::DeviceMemory(std::size_t bytes) : bytes_(bytes) {
  GPEN_CU(cuMemAlloc(&p_, bytes ? bytes : 1), fmt::format("allocating {} bytes", bytes));
  ++g_allocations;
}
std::size_t DeviceMemory::allocations() { return g_allocations.load(); }
DeviceMemory::~DeviceMemory() {
  if (p_) driver().cuMemFree(p_);
}
DeviceMemory& DeviceMemory::operator=(DeviceMemory&& o) noexcept {
  if (this != &o) {
    if (p_) driver().cuMemFree(p_);
    p_ = o.p_;
    bytes_ = o.bytes_;
    o.p_ = 0;
    o.bytes_ = 0;
  }
  return *this;
}
void DeviceMemory::upload(const void* host, std::size_t bytes) {
  GPEN_CU(cuMemcpyHtoD(p_, host, bytes), fmt::format("copying {} bytes to the GPU", bytes));
  // As DeviceBuffer::upload: from pageable memory the copy may still be on
  // its way when cuMemcpyHtoD returns, and a non-blocking stream does not
  // wait for the legacy stream.
  GPEN_CU(cuStreamSynchronize(nullptr), fmt::format("copying {} bytes to the GPU", bytes));
}
void DeviceMemory::download(void* host, std::size_t bytes) const {
  GPEN_CU(cuMemcpyDtoH(host, p_, bytes), fmt::format("copying {} bytes from the GPU", bytes));
}

}  // namespace gpen
