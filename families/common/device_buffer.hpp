// A spec's field on the device: device memory (runtime/device.hpp) with the
// dtype, shape and ghost width a launch checks its bindings against; gpen's
// own (allocated) or the caller's (a view of memory it owns).
#pragma once

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include "gpen/generator/spec.hpp"
#include "gpen/runtime/device.hpp"

namespace gpen {

// Distances in elements between the starts of two rows (y) and two planes
// (z) of an array, ghosts included; 0 means packed (the padded row's length,
// the padded plane's size).
struct Pitch {
  long long row = 0, plane = 0;
};
// Its bytes are an argument block's [row, plane] pair (in_pitch, out_pitch).
static_assert(sizeof(Pitch) == 2 * sizeof(long long), "Pitch is two long longs");

// A field on the device: a padded 1-3-D array with its dtype, interior
// shape (x, y, z; unused axes 1) and ghost width on each axis it has.
class DeviceBuffer {
 public:
  // Allocates the padded array (cuMemAlloc); freed with the buffer.
  DeviceBuffer(Dtype dtype, int dims, std::array<long long, 3> shape, int ghost);
  // A view of memory the caller owns and keeps alive while launches use it:
  // `ptr` is the first element of the padded array (ghosts included), in
  // the current context. Nothing is allocated or copied; launches check it
  // as they check gpen's buffers (dtype, dims, shape, ghost width), and its
  // alignment and pitch (check_bindings). `pitch` gives rows (2-D, 3-D) and
  // planes (3-D) padded by the caller, in elements; 0 is packed. Rows and
  // planes must not overlap (row >= the padded row, plane >= row times the
  // padded column), and a 1-D array has neither: std::invalid_argument
  // otherwise. The kinds "stencil", "sbp" and "reduce" launch on pitched
  // views, the others refuse them in words. The memory must belong to the
  // context gpen launches in (a Context: the device's primary context, the
  // CUDA runtime's). A DeviceBuffer moves but does not copy; make another
  // view of the same pointer instead.
  static DeviceBuffer view(CUdeviceptr ptr, Dtype dtype, int dims, std::array<long long, 3> shape, int ghost, Pitch pitch = {});

  Dtype dtype() const { return dtype_; }
  int dims() const { return dims_; }
  const std::array<long long, 3>& shape() const { return shape_; }
  int ghost() const { return ghost_; }
  // Padded extent per axis: shape + 2 ghost on the axes the array has.
  std::array<long long, 3> padded() const;
  // The pitch as given (a view's) or packed (gpen's), in elements.
  Pitch pitch() const { return pitch_; }
  // The packed pitch of this padded array.
  Pitch packed_pitch() const;
  // Whether the array is packed: its pitch is packed_pitch() along the axes it has.
  bool packed() const;
  bool owned() const { return mem_.get() != 0; }
  std::size_t elements() const;
  std::size_t bytes() const { return elements() * size_of(dtype_); }
  CUdeviceptr get() const { return ptr_; }
  // The bytes from the first element to one past the last, pitches
  // included: a pitched view's gaps between rows count as its own.
  std::pair<CUdeviceptr, CUdeviceptr> byte_range() const;

  // Whole padded array as doubles (converted from float32 if needed);
  // both wait for the copy. A pitched view is refused (std::invalid_argument).
  void upload(const std::vector<double>& host);
  std::vector<double> download() const;
  // The interior alone (shape's points, x fastest) as doubles, the ghosts
  // set to 0 on the way up: what a field's values and snapshots hold. The
  // host's copy is built in the dtype, row by row on every core when
  // large, so a 1024^3 field costs one staging array, not a padded double
  // array and a converted one. Both wait; a pitched view is refused.
  void upload_interior(const std::vector<double>& interior);
  std::vector<double> download_interior() const;
  // The whole padded array's bytes (dtype as it is) into `host`, which holds
  // bytes(), in `stream`: nothing else waits. The copy is done when the
  // stream is (cuStreamSynchronize, or an event); page-locked `host` memory
  // makes it asynchronous to the host too. A reduction's result this way
  // costs the caller no device-wide synchronisation.
  void copy_to_host_async(void* host, CUstream stream) const;

 private:
  DeviceBuffer(CUdeviceptr ptr, Dtype dtype, int dims, std::array<long long, 3> shape, int ghost, Pitch pitch);
  void check_packed(const char* doing) const;
  Dtype dtype_;
  int dims_;
  std::array<long long, 3> shape_;
  int ghost_;
  Pitch pitch_;
  DeviceMemory mem_;     // empty for a view
  CUdeviceptr ptr_ = 0;  // mem_'s, or the view's
};

// Whether the byte ranges of `a` and `b` meet (byte_range): two views of
// one array's disjoint parts may meet where their rows interleave.
bool overlap(const DeviceBuffer& a, const DeviceBuffer& b);

// Whether `a` and `b` are the same array seen the same way: the same first
// element, dtype, dims, shape, ghost width and pitches.
bool same_view(const DeviceBuffer& a, const DeviceBuffer& b);

}  // namespace gpen
