#include "gpen/families/common/device_buffer.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "gpen/families/common/host_array.hpp"

namespace gpen {

namespace {

// A 1-3-D array has extent 1 along the axes it lacks, at least 1 along its own.
void check_shape(int dims, const std::array<long long, 3>& shape, int ghost) {
  const bool ok = dims >= 1 && dims <= 3 && ghost >= 0 && shape[0] >= 1 && shape[1] >= 1 && shape[2] >= 1 && (dims >= 2 || shape[1] == 1) &&
                  (dims >= 3 || shape[2] == 1);
  if (!ok)
    throw std::invalid_argument(fmt::format("an array of {} dimensions, {}x{}x{} points, ghost width {}: expected 1-3 dimensions, at least one point "
                                            "along each axis, one along the axes the array lacks, and a ghost width of 0 or more",
                                            dims, shape[0], shape[1], shape[2], ghost));
}

// The padded array of `b`'s geometry in T with `interior` (x fastest) in
// its interior and 0 in its ghosts, every element written once (the rows
// spread over the cores: the first touch of a large array's pages costs
// as much as the copy).
template <typename T>
std::unique_ptr<T[]> padded_copy(const DeviceBuffer& b, const std::vector<double>& interior) {
  const auto p = b.padded();
  const auto& n = b.shape();
  const long long gy = b.dims() > 1 ? b.ghost() : 0, gz = b.dims() > 2 ? b.ghost() : 0;
  std::unique_ptr<T[]> out(new T[b.elements()]);
  for_rows(p, [&](long long j, long long k) {
    T* row = out.get() + p[0] * (j + p[1] * k);
    const long long y = j - gy, z = k - gz;  // the row's interior coordinates
    if (y < 0 || y >= n[1] || z < 0 || z >= n[2]) {
      std::fill(row, row + p[0], T(0));
      return;
    }
    const auto from = interior.begin() + n[0] * (y + n[1] * z);
    std::fill(row, row + b.ghost(), T(0));
    std::transform(from, from + n[0], row + b.ghost(), [](double v) { return static_cast<T>(v); });
    std::fill(row + b.ghost() + n[0], row + p[0], T(0));
  });
  return out;
}

// The interior of `padded` (b's geometry, in T) as doubles, x fastest.
template <typename T>
std::vector<double> interior_of(const DeviceBuffer& b, const T* padded) {
  const auto& n = b.shape();
  std::vector<double> out(static_cast<std::size_t>(n[0] * n[1] * n[2]));
  for_rows(n, [&](long long y, long long z) {
    const T* row = padded + padded_offset(b.dims(), n, b.ghost(), 0, y, z);
    std::copy(row, row + n[0], out.begin() + n[0] * (y + n[1] * z));
  });
  return out;
}

// The interior of b as doubles, through a host copy in T.
template <typename T>
std::vector<double> download_interior_as(const DeviceBuffer& b) {
  std::unique_ptr<T[]> host(new T[b.elements()]);
  GPEN_CU(cuMemcpyDtoH(host.get(), b.get(), b.bytes()), fmt::format("copying {} bytes from the GPU", b.bytes()));
  return interior_of(b, host.get());
}

}  // namespace

DeviceBuffer::DeviceBuffer(Dtype dtype, int dims, std::array<long long, 3> shape, int ghost)
    : dtype_(dtype), dims_(dims), shape_(shape), ghost_(ghost) {
  check_shape(dims, shape, ghost);
  mem_ = DeviceMemory(bytes());
  ptr_ = mem_.get();
  pitch_ = packed_pitch();
}

DeviceBuffer::DeviceBuffer(CUdeviceptr ptr, Dtype dtype, int dims, std::array<long long, 3> shape, int ghost, Pitch pitch)
    : dtype_(dtype), dims_(dims), shape_(shape), ghost_(ghost), pitch_(pitch), ptr_(ptr) {
  check_shape(dims, shape, ghost);
  const Pitch packed = packed_pitch();
  if (pitch_.row == 0) pitch_.row = packed.row;
  if (pitch_.plane == 0) pitch_.plane = pitch_.row * padded()[1];
}

DeviceBuffer DeviceBuffer::view(CUdeviceptr ptr, Dtype dtype, int dims, std::array<long long, 3> shape, int ghost, Pitch pitch) {
  DeviceBuffer v(ptr, dtype, dims, shape, ghost, pitch);
  const auto p = v.padded();
  const Pitch got = v.pitch();
  const auto refuse = [&](const std::string& why) {
    throw std::invalid_argument(fmt::format("a view of a {}-D array of {}x{}x{} points with ghost width {}, row pitch {} and plane pitch {}: {}", dims,
                                            shape[0], shape[1], shape[2], ghost, pitch.row, pitch.plane, why));
  };
  if (pitch.row < 0 || pitch.plane < 0) refuse("pitches are counts of elements, 0 or more");
  if (dims == 1 && ((pitch.row != 0 && pitch.row != p[0]) || (pitch.plane != 0 && pitch.plane != p[0]))) refuse("a 1-D array has no rows or planes to pitch; give 0 (packed)");
  if (got.row < p[0]) refuse(fmt::format("its rows would overlap: the row pitch must be at least the padded row, {} elements", p[0]));
  if (dims == 2 && pitch.plane != 0 && got.plane < got.row * p[1])
    refuse(fmt::format("a 2-D array has one plane: give plane pitch 0, or at least {}", got.row * p[1]));
  if (dims == 3 && got.plane < got.row * p[1])
    refuse(fmt::format("its planes would overlap: the plane pitch must be at least the row pitch times the padded column, {} elements",
                       got.row * p[1]));
  return v;
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

std::pair<CUdeviceptr, CUdeviceptr> DeviceBuffer::byte_range() const {
  const auto p = padded();
  const long long last = (p[0] - 1) + (dims_ > 1 ? (p[1] - 1) * pitch_.row : 0) + (dims_ > 2 ? (p[2] - 1) * pitch_.plane : 0);
  return {ptr_, ptr_ + static_cast<CUdeviceptr>(last + 1) * size_of(dtype_)};
}

bool overlap(const DeviceBuffer& a, const DeviceBuffer& b) {
  const auto x = a.byte_range(), y = b.byte_range();
  return x.first < y.second && y.first < x.second;
}

bool same_view(const DeviceBuffer& a, const DeviceBuffer& b) {
  return a.get() == b.get() && a.dtype() == b.dtype() && a.dims() == b.dims() && a.shape() == b.shape() && a.ghost() == b.ghost() &&
         a.pitch().row == b.pitch().row && a.pitch().plane == b.pitch().plane;
}

bool DeviceBuffer::packed() const {
  const Pitch p = packed_pitch();
  return dims_ == 1 || (pitch_.row == p.row && (dims_ == 2 || pitch_.plane == p.plane));
}

void DeviceBuffer::check_packed(const char* doing) const {
  const Pitch packed = packed_pitch();
  if (!this->packed())
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

void DeviceBuffer::upload_interior(const std::vector<double>& interior) {
  check_packed("upload into");
  const auto& n = shape_;
  if (static_cast<long long>(interior.size()) != n[0] * n[1] * n[2])
    throw std::invalid_argument(fmt::format("upload of {} values into the interior of {}x{}x{} = {} points", interior.size(), n[0], n[1], n[2],
                                            n[0] * n[1] * n[2]));
  const std::string doing = fmt::format("copying {} bytes to the GPU", bytes());
  if (dtype_ == Dtype::Float64) {
    GPEN_CU(cuMemcpyHtoD(ptr_, padded_copy<double>(*this, interior).get(), bytes()), doing);
  } else {
    GPEN_CU(cuMemcpyHtoD(ptr_, padded_copy<float>(*this, interior).get(), bytes()), doing);
  }
  GPEN_CU(cuStreamSynchronize(nullptr), doing);  // as upload()'s
}

std::vector<double> DeviceBuffer::download_interior() const {
  check_packed("download from");
  return dtype_ == Dtype::Float64 ? download_interior_as<double>(*this) : download_interior_as<float>(*this);
}

void DeviceBuffer::copy_to_host_async(void* host, CUstream stream) const {
  check_packed("copy from");
  GPEN_CU(cuMemcpyDtoHAsync(host, ptr_, bytes(), stream), fmt::format("copying {} bytes to the host", bytes()));
}

}  // namespace gpen
