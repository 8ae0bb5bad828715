#include "mpi_ranks.hpp"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <mpi.h>

#include "gpen/generator/error.hpp"
#include "gpen/runtime/driver.hpp"
#include "gpen/simulate/nccl_library.hpp"

namespace gpen::cli {

void MpiRanks::abort_communicator() {
  if (comm_) sim::nccl().ncclCommAbort(comm_);
  comm_ = nullptr;
}

MpiRanks::MpiRanks() {
  MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
  if (rank_ != 0) {
    // One voice: rank 0's. The others keep their stderr for a failure.
    stderr_ = dup(2);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 2);
      close(null);
    }
  }
  try {
    if (std::string why; !driver_available(&why))
      throw NoDeviceError(fmt::format("no GPU for gpen simulate on rank {} ({}); --device cpu runs the CPU reference", rank_, why));
    int devices = 0;
    GPEN_CU(cuDeviceGetCount(&devices), "counting GPUs");
    if (local_size_ > devices)
      throw UsageError(fmt::format("mpirun started {} ranks on this machine, which has {} GPU{}: one rank a GPU (mpirun -np {} at most here)", local_size_,
                                   devices, devices == 1 ? "" : "s", devices));
    ctx_ = std::make_unique<Context>(local_rank_);
    ctx_->make_current();
    const sim::NcclApi& n = sim::nccl();
    ncclUniqueId id;
    if (rank_ == 0) sim::nccl_check(n.ncclGetUniqueId(&id), "making the NCCL communicator's unique id");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    sim::nccl_check(n.ncclCommInitRank(&comm_, size_, id, rank_), "joining the NCCL communicator of every rank");
  } catch (const UsageError& e) {
    abort(e.what(), 2);
  } catch (const NoDeviceError& e) {
    abort(e.what(), 3);
  } catch (const std::exception& e) {
    abort(e.what(), 1);
  }
}

MpiRanks::~MpiRanks() {
  if (comm_) sim::nccl().ncclCommDestroy(comm_);
  ctx_.reset();
  MPI_Finalize();
}

void MpiRanks::abort(const std::string& message, int code) {
  const std::string line = fmt::format("gpen simulate: rank {} of {}: {}\n", rank_, size_, message);
  const int fd = stderr_ >= 0 ? stderr_ : 2;
  if (write(fd, line.data(), line.size()) < 0) {
  }
  abort_communicator();
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace gpen::cli
