// The processes mpirun started for one run over several GPUs (issue 30):
// MPI starts them and carries the NCCL communicator's unique id from rank
// 0; a process a GPU, the one its rank on its machine numbers. Ranks other
// than 0 print nothing but their failure; a failure on any rank aborts
// them all (ncclCommAbort, MPI_Abort) rather than leaving the others
// waiting in an exchange.
#pragma once

#include <memory>
#include <string>

#include <nccl.h>

#include "gpen/runtime/device.hpp"

namespace gpen::cli {

class MpiRanks {
 public:
  // MPI_Init, then the GPU (refused where the machine has fewer GPUs than
  // ranks on it) and the NCCL communicator of every rank.
  MpiRanks();
  ~MpiRanks();
  MpiRanks(const MpiRanks&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const Context& context() const { return *ctx_; }
  ncclComm_t comm() const { return comm_; }
  // Says `message` (with the rank) on the process's own stderr, and ends
  // every rank with exit code `code`.
  [[noreturn]] void abort(const std::string& message, int code);
  // The communicator ended now (ncclCommAbort): what this rank queued on it
  // returns, so that a failing rank unwinds without waiting for the others.
  void abort_communicator();

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  int stderr_ = -1;  // the process's stderr where ranks other than 0 silence theirs
  std::unique_ptr<Context> ctx_;
  ncclComm_t comm_ = nullptr;
};

}  // namespace gpen::cli
