#include "gpen/families/common/device_buffer.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace gpen {

DeviceBuffer::DeviceBuffer(Dtype dtype, int dims, std::array<long long, 3> shape, int ghost)
    : dtype_(dtype), dims_(dims), shape_(shape), ghost_(ghost) {
  mem_ = DeviceMemory(bytes());
  ptr_ = mem_.get();
  pitch_ = packed_pitch();
}

DeviceBuffer::DeviceBuffer(CUdeviceptr ptr, Dtype dtype, int dims, std::array<long long, 3> shape, int ghost, Pitch pitch)
    : dtype_(dtype), dims_(dims), shape_(shape), ghost_(ghost), pitch_(pitch), ptr_(ptr) {
  const Pitch packed = packed_pitch();
  if (pitch_.row == 0) pitch_.row = packed.row;
  if (pitch_.plane == 0) pitch_.plane = packed.plane;
}

DeviceBuffer DeviceBuffer::view(CUdeviceptr ptr, Dtype dtype, int dims, std::array<long long, 3> shape, int ghost, Pitch pitch) {
  return DeviceBuffer(ptr, dtype, dims, shape, ghost, pitch);
}

std::array<long long, 3> DeviceBuffer::padded() const {
  std::array<long long, 3> p = shape_;
  for (int ax = 0; ax < dims_; ++ax) p[ax] += 2 * ghost_;
  return p;
}

Pitch DeviceBuffer::packed_pitch() const {
  const auto p = padded();
  return {p[0], p[0] * p[1]};
}

std::size_t DeviceBuffer::elements() const {
  const auto p = padded();
  return static_cast<std::size_t>(p[0] * p[1] * p[2]);
}

void DeviceBuffer::check_packed(const char* doing) const {
  const Pitch packed = packed_pitch();
  if (pitch_.row != packed.row || (dims_ == 3 && pitch_.plane != packed.plane))
    throw std::invalid_argument(fmt::format("{} a view with a row pitch of {} and a plane pitch of {} elements: only packed arrays (row pitch {}, plane "
                                            "pitch {}) are copied whole",
                                            doing, pitch_.row, pitch_.plane, packed.row, packed.plane));
}

void DeviceBuffer::upload(const std::vector<double>& host) {
  check_packed("upload into");
  if (host.size() != elements()) throw std::invalid_argument(fmt::format("upload of {} values into a buffer of {}", host.size(), elements()));
  const std::string doing = fmt::format("copying {} bytes to the GPU", bytes());
  if (dtype_ == Dtype::Float64) {
    GPEN_CU(cuMemcpyHtoD(ptr_, host.data(), bytes()), doing);
  } else {
    std::vector<float> f(host.begin(), host.end());
    GPEN_CU(cuMemcpyHtoD(ptr_, f.data(), bytes()), doing);
  }
  // From pageable memory the copy may still be on its way to the GPU when
  // cuMemcpyHtoD returns, and a stream created non-blocking does not wait
  // for the legacy stream: done here, before any launch can read it.
  GPEN_CU(cuStreamSynchronize(nullptr), doing);
}

std::vector<double> DeviceBuffer::download() const {
  check_packed("download from");
  std::vector<double> out(elements());
  const std::string doing = fmt::format("copying {} bytes from the GPU", bytes());
  if (dtype_ == Dtype::Float64) {
    GPEN_CU(cuMemcpyDtoH(out.data(), ptr_, bytes()), doing);
  } else {
    std::vector<float> f(elements());
    GPEN_CU(cuMemcpyDtoH(f.data(), ptr_, bytes()), doing);
    out.assign(f.begin(), f.end());
  }
  return out;
}

void DeviceBuffer::copy_to_host_async(void* host, CUstream stream) const {
  check_packed("copy from");
  GPEN_CU(cuMemcpyDtoHAsync(host, ptr_, bytes(), stream), fmt::format("copying {} bytes to the host", bytes()));
}

}  // namespace gpen
