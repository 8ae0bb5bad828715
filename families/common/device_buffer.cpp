#include "gpen/families/common/device_buffer.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace gpen {

DeviceBuffer::DeviceBuffer(Dtype dtype, int dims, std::array<long long, 3> shape, int ghost)
    : dtype_(dtype), dims_(dims), shape_(shape), ghost_(ghost) {
  mem_ = DeviceMemory(bytes());
}

std::array<long long, 3> DeviceBuffer::padded() const {
  std::array<long long, 3> p = shape_;
  for (int ax = 0; ax < dims_; ++ax) p[ax] += 2 * ghost_;
  return p;
}

std::size_t DeviceBuffer::elements() const {
  const auto p = padded();
  return static_cast<std::size_t>(p[0] * p[1] * p[2]);
}

void DeviceBuffer::upload(const std::vector<double>& host) {
  if (host.size() != elements()) throw std::invalid_argument(fmt::format("upload of {} values into a buffer of {}", host.size(), elements()));
  if (dtype_ == Dtype::Float64) return mem_.upload(host.data(), bytes());
  std::vector<float> f(host.begin(), host.end());
  mem_.upload(f.data(), bytes());
}

std::vector<double> DeviceBuffer::download() const {
  std::vector<double> out(elements());
  if (dtype_ == Dtype::Float64) {
    mem_.download(out.data(), bytes());
  } else {
    std::vector<float> f(elements());
    mem_.download(f.data(), bytes());
    out.assign(f.begin(), f.end());
  }
  return out;
}

void DeviceBuffer::copy_to_host_async(void* host, CUstream stream) const {
  GPEN_CU(cuMemcpyDtoHAsync(host, mem_.get(), bytes(), stream), fmt::format("copying {} bytes to the host", bytes()));
}

}  // namespace gpen
