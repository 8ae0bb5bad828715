// A communicator of one rank for the GPU tests of the NCCL paths (issue
// 30): what a single GPU can check of them (several GPUs: tests/mpi/).
#pragma once

#include "gpen/runtime/device.hpp"
#include "gpen/simulate/nccl_library.hpp"

namespace gpen::test {

struct OneRankComm {
  ncclComm_t comm = nullptr;
  explicit OneRankComm(const Context& ctx) {
    const sim::NcclApi& n = sim::nccl();
    ncclUniqueId id;
    sim::nccl_check(n.ncclGetUniqueId(&id), "ncclGetUniqueId");
    ctx.make_current();
    sim::nccl_check(n.ncclCommInitRank(&comm, 1, id, 0), "ncclCommInitRank");
  }
  ~OneRankComm() { sim::nccl().ncclCommDestroy(comm); }
  OneRankComm(const OneRankComm&) = delete;
};

}  // namespace gpen::test
