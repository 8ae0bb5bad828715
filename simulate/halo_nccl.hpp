// The ghost-zone exchange of one rank's subdomain with the others through
// NCCL (issue 30): a process a GPU, its communicator's rank the
// decomposition's. Per axis, x first: both slabs packed, every send and
// receive of the axis in one NCCL group, then unpacked, all on the
// caller's stream. The sends go lower face first and the receives upper
// first, so that two ranks that are each other's lower and upper
// neighbour (two ranks along a periodic axis), or one rank that is its
// own, match each slab with the ghosts it belongs to (NCCL pairs one
// peer's sends and receives in the order they are posted).
#pragma once

#include <vector>

#include "halo_gpu.hpp"
#include "nccl_library.hpp"
#include "rank_links.hpp"

namespace gpen::sim {

class NcclHaloExchange {
 public:
  // `part`: this rank's array of f (check_halo_part); `comm`: a
  // communicator of d.count() ranks in which this one is `rank`.
  NcclHaloExchange(const ProgramField& f, const Decomposition& d, int rank, const DeviceBuffer& part, ncclComm_t comm, const Context& ctx);
  void exchange(CUstream stream) const;
  void exchange_axis(int axis, CUstream stream) const;

 private:
  const DeviceBuffer& part_;
  int dims_, ghost_;
  ncclComm_t comm_;
  HaloFaces faces_;
  HaloCopier copier_;
};

// One process's rank of a decomposed run through NCCL (GpuOptions::links):
// every field's slabs of an axis in one NCCL group (sends and receives
// ordered as NcclHaloExchange's, field after field), the maximum by
// all_ranks_max, host values gathered by an all-gather.
class NcclRankLinks : public RankLinks {
 public:
  // `comm`: a communicator of d.count() ranks in which this one is `rank`;
  // the caller owns it and keeps it while these links live.
  NcclRankLinks(const Program& p, const Decomposition& d, int rank, ncclComm_t comm, const Context& ctx);
  const Decomposition& decomposition() const override { return d_; }
  int rank() const override { return rank_; }
  void attach(const std::vector<std::vector<const DeviceBuffer*>>& states, CUstream stream) override;
  void exchange_axis(int axis, int state, CUstream stream) override;
  void max_in_place(CUdeviceptr values, std::size_t count, Dtype dtype, CUstream stream) override;
  std::vector<double> gather(const std::vector<double>& mine) override;

 private:
  const Program& p_;
  Decomposition d_;
  int rank_;
  ncclComm_t comm_;
  std::vector<HaloFaces> faces_;  // per field
  HaloCopier copier_;
  std::vector<std::vector<const DeviceBuffer*>> states_;
  CUstream stream_ = nullptr;  // the loop's: gather's all-gather follows its work on the communicator
  DeviceMemory values_;        // gather's: every rank's, kGatherValues each
};

// `count` values of `dtype` at `values` on every rank replaced, in place
// and in `stream`'s order, by their maximum over the ranks (ncclMax: the
// same bits on every rank, whatever the order): the CFL condition's
// largest speed of a decomposed run, before its time step.
void all_ranks_max(CUdeviceptr values, std::size_t count, Dtype dtype, ncclComm_t comm, CUstream stream);

}  // namespace gpen::sim
