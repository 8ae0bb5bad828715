#include "halo_nccl.hpp"

namespace gpen::sim {

NcclHaloExchange::NcclHaloExchange(const ProgramField& f, const Decomposition& d, int rank, const DeviceBuffer& part, ncclComm_t comm, const Context& ctx)
    : part_((check_halo_part(f, d, rank, &part, part.dtype()), part)),
      dims_(d.dims()),
      ghost_(f.ghost),
      comm_(comm),
      faces_(f, d, rank, part.dtype()),
      copier_(part.dtype(), ctx) {}

void NcclHaloExchange::exchange_axis(int ax, CUstream stream) const {
  const auto& faces = faces_.face[static_cast<std::size_t>(ax)];
  const ncclDataType_t type = part_.dtype() == Dtype::Float64 ? ncclFloat64 : ncclFloat32;
  faces_.pack(ax, copier_, part_, stream);
  const NcclApi& n = nccl();
  nccl_check(n.ncclGroupStart(), "starting a ghost-zone exchange's group");
  for (int side = 0; side < 2; ++side) {
    const auto& fc = faces[static_cast<std::size_t>(side)];
    if (fc.peer >= 0)
      nccl_check(n.ncclSend(reinterpret_cast<const void*>(fc.sent.get()), static_cast<std::size_t>(fc.send.points()), type, fc.peer, comm_, stream),
                 "sending a ghost-zone slab");
  }
  for (int side = 1; side >= 0; --side) {
    const auto& fc = faces[static_cast<std::size_t>(side)];
    if (fc.peer >= 0)
      nccl_check(n.ncclRecv(reinterpret_cast<void*>(fc.received.get()), static_cast<std::size_t>(fc.receive.points()), type, fc.peer, comm_, stream),
                 "receiving a ghost-zone slab");
  }
  nccl_check(n.ncclGroupEnd(), "ending a ghost-zone exchange's group");
  faces_.unpack(ax, copier_, part_, stream);
}

void NcclHaloExchange::exchange(CUstream stream) const {
  if (ghost_ == 0) return;
  for (int ax = 0; ax < dims_; ++ax) exchange_axis(ax, stream);
}

void all_ranks_max(CUdeviceptr values, std::size_t count, Dtype dtype, ncclComm_t comm, CUstream stream) {
  void* v = reinterpret_cast<void*>(values);
  nccl_check(nccl().ncclAllReduce(v, v, count, dtype == Dtype::Float64 ? ncclFloat64 : ncclFloat32, ncclMax, comm, stream),
             "the maximum over the ranks (all-reduce)");
}

}  // namespace gpen::sim
