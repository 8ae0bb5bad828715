// The GPU's half of the ghost-zone exchange between subdomains (issue 30):
// a face's slab (halo.hpp's boxes) packed into a contiguous device buffer
// and unpacked from one (the time-loop unit's halo kernels), and the
// transport of one process (HaloFaces::copy_from_peers: the slabs of
// subdomains on one GPU delivered by device copies, as local_links.hpp's
// ranks exchange). Its results are the host model's, exchange_halos, bit
// for bit.
#pragma once

#include <array>
#include <functional>
#include <vector>

#include "gpen/families/common/device_buffer.hpp"
#include "gpen/runtime/device.hpp"
#include "gpen/runtime/kernel_cache.hpp"
#include "halo.hpp"

namespace gpen::sim {

// The time-loop unit (families/common/device/time_loop.cuh) of `dtype`,
// through the cache, and the stem of its kernels' names (stem + "_halo_pack").
Module time_loop_module(Dtype dtype, const Context& ctx, KernelCache& cache = process_cache());
std::string time_loop_stem(Dtype dtype);

class HaloCopier {
 public:
  HaloCopier(Dtype dtype, const Context& ctx, KernelCache& cache = process_cache());
  // `box` of `a` (its interior coordinates) into `buffer` (box.points()
  // values of a's dtype, x fastest), and back.
  void pack(const DeviceBuffer& a, const HaloBox& box, CUdeviceptr buffer, CUstream stream) const;
  void unpack(const DeviceBuffer& a, const HaloBox& box, CUdeviceptr buffer, CUstream stream) const;

 private:
  void launch(CUfunction f, const DeviceBuffer& a, const HaloBox& box, CUdeviceptr buffer, CUstream stream, const char* doing) const;
  Dtype dtype_;
  Module module_;
  CUfunction pack_ = nullptr, unpack_ = nullptr;
  int blocks_;
};

// One rank's faces of field f: per axis and side the rank across it (its
// neighbour, periodic faces wrapped; -1: none, a global face whose
// condition is the boundary kernel's), the slab sent there and the one
// received from there, and a device buffer of each.
struct HaloFaces {
  HaloFaces(const ProgramField& f, const Decomposition& d, int rank, Dtype dtype);
  struct Face {
    int peer = -1;
    HaloBox send, receive;
    DeviceMemory sent, received;
  };
  std::array<std::array<Face, 2>, 3> face;  // [axis][side]
  // The slabs of `axis` that have a peer: packed from `part`, or unpacked into it.
  void pack(int axis, const HaloCopier& copier, const DeviceBuffer& part, CUstream stream) const;
  void unpack(int axis, const HaloCopier& copier, const DeviceBuffer& part, CUstream stream) const;
  // The received buffers of `axis` filled by device copies of what each
  // peer packed for this rank (faces_of(rank): that rank's faces of the
  // same field, on this GPU): the transports of one process.
  void copy_from_peers(int axis, const std::function<const HaloFaces&(int rank)>& faces_of, Dtype dtype, CUstream stream) const;
};

// BindingError unless `b` is rank `rank`'s array of f: d's subdomain's
// shape, f's ghost width, `dtype`.
void check_halo_part(const ProgramField& f, const Decomposition& d, int rank, const DeviceBuffer* b, Dtype dtype);

}  // namespace gpen::sim
