#include "halo_gpu.hpp"

#include <fmt/format.h>

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/common/spec_program.hpp"
#include "gpen/families/common/utility_units.hpp"
#include "gpen/runtime/driver.hpp"
#include "time_loop_args.hpp"

namespace gpen::sim {

Module time_loop_module(Dtype dtype, const Context& ctx, KernelCache& cache) {
  const Variant unit = generate_time_loop(dtype);
  const KernelCache::Result compiled = cache.get(source_program(unit, "time_loop"), ctx.info().arch());
  return Module(compiled.kernel.cubin, unit.kernel_name, unit.name);
}

std::string time_loop_stem(Dtype dtype) {
  const std::string first = generate_time_loop(dtype).kernel_name;
  return first.substr(0, first.size() - std::string("_boundary_axis").size());
}

HaloCopier::HaloCopier(Dtype dtype, const Context& ctx, KernelCache& cache)
    : dtype_(dtype), module_(time_loop_module(dtype, ctx, cache)), blocks_(ctx.info().sm_count * 8) {
  pack_ = module_.function(time_loop_stem(dtype) + "_halo_pack");
  unpack_ = module_.function(time_loop_stem(dtype) + "_halo_unpack");
}

void HaloCopier::launch(CUfunction f, const DeviceBuffer& a, const HaloBox& box, CUdeviceptr buffer, CUstream stream, const char* doing) const {
  if (a.dtype() != dtype_) throw BindingError(fmt::format("{}: the array is {}, these kernels were built for {}", doing, to_string(a.dtype()), to_string(dtype_)));
  for (int ax = 0; ax < 3; ++ax) {
    const long long g = ax < a.dims() ? a.ghost() : 0;
    if (box.begin[ax] < -g || box.end[ax] > a.shape()[ax] + g || box.end[ax] < box.begin[ax])
      throw BindingError(fmt::format("{}: the box [{}, {}) along axis {} leaves the padded array (-{} .. {})", doing, box.begin[ax], box.end[ax], ax, g,
                                     a.shape()[ax] + g));
  }
  if (box.points() == 0) return;
  CUdeviceptr p = a.get();
  PaddedArray pa = padded_of(a);
  HaloBoxArg b{{box.begin[0], box.begin[1], box.begin[2]}, {box.end[0] - box.begin[0], box.end[1] - box.begin[1], box.end[2] - box.begin[2]}};
  void* params[] = {&p, &pa, &b, &buffer};
  const long long blocks = std::min<long long>(blocks_, (box.points() + 255) / 256);
  GPEN_CU(cuLaunchKernel(f, static_cast<unsigned>(blocks), 1, 1, 256, 1, 1, 0, stream, params, nullptr), doing);
}

void HaloCopier::pack(const DeviceBuffer& a, const HaloBox& box, CUdeviceptr buffer, CUstream stream) const {
  launch(pack_, a, box, buffer, stream, "packing a ghost-zone slab");
}

void HaloCopier::unpack(const DeviceBuffer& a, const HaloBox& box, CUdeviceptr buffer, CUstream stream) const {
  launch(unpack_, a, box, buffer, stream, "unpacking a ghost-zone slab");
}

HaloFaces::HaloFaces(const ProgramField& f, const Decomposition& d, int rank, Dtype dtype) {
  for (int ax = 0; ax < d.dims(); ++ax)
    if ((f.boundary[ax][0].kind == BoundaryKind::Periodic) != (f.boundary[ax][1].kind == BoundaryKind::Periodic))
      throw BindingError(fmt::format("ghost-zone exchange of field '{}': periodic at one face of axis {} only (decompose() refuses it)", f.name, ax));
  if (f.ghost == 0) return;
  const std::size_t real = size_of(dtype);
  const auto& shape = d.subdomain(rank).extent;
  for (int ax = 0; ax < d.dims(); ++ax)
    for (int side = 0; side < 2; ++side) {
      Face& fc = face[static_cast<std::size_t>(ax)][static_cast<std::size_t>(side)];
      fc.peer = d.neighbour(rank, ax, side, f.boundary[ax][side].kind == BoundaryKind::Periodic);
      if (fc.peer < 0) continue;
      fc.send = send_box(d.dims(), shape, f.ghost, ax, side);
      fc.receive = receive_box(d.dims(), shape, f.ghost, ax, side);
      fc.sent = DeviceMemory(static_cast<std::size_t>(fc.send.points()) * real);
      fc.received = DeviceMemory(static_cast<std::size_t>(fc.receive.points()) * real);
    }
}

void HaloFaces::pack(int axis, const HaloCopier& copier, const DeviceBuffer& part, CUstream stream) const {
  for (const Face& fc : face[static_cast<std::size_t>(axis)])
    if (fc.peer >= 0) copier.pack(part, fc.send, fc.sent.get(), stream);
}

void HaloFaces::unpack(int axis, const HaloCopier& copier, const DeviceBuffer& part, CUstream stream) const {
  for (const Face& fc : face[static_cast<std::size_t>(axis)])
    if (fc.peer >= 0) copier.unpack(part, fc.receive, fc.received.get(), stream);
}

void HaloFaces::copy_from_peers(int axis, const std::function<const HaloFaces&(int rank)>& faces_of, Dtype dtype, CUstream stream) const {
  for (int side = 0; side < 2; ++side) {
    const Face& fc = face[static_cast<std::size_t>(axis)][static_cast<std::size_t>(side)];
    if (fc.peer < 0) continue;
    // My lower ghosts are the lower neighbour's upper slab, and back.
    const Face& src = faces_of(fc.peer).face[static_cast<std::size_t>(axis)][static_cast<std::size_t>(1 - side)];
    GPEN_CU(cuMemcpyDtoDAsync(fc.received.get(), src.sent.get(), static_cast<std::size_t>(fc.receive.points()) * size_of(dtype), stream),
            "copying a ghost-zone slab from a neighbour");
  }
}

void check_halo_part(const ProgramField& f, const Decomposition& d, int rank, const DeviceBuffer* b, Dtype dtype) {
  if (!b || b->dims() != d.dims() || b->shape() != d.subdomain(rank).extent || b->ghost() != f.ghost || b->dtype() != dtype)
    throw BindingError(fmt::format("ghost-zone exchange of field '{}': rank {}'s array must be {} {}-D, {} points, ghost {}", f.name, rank, to_string(dtype),
                                   d.dims(), fmt::join(d.subdomain(rank).extent, "x"), f.ghost));
}

}  // namespace gpen::sim
