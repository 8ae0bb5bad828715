// The ghost-zone exchange through NCCL between processes, one a GPU,
// started by Open MPI (issue 30): every rank's padded array after the
// exchange against the host model of the whole decomposition (halo.hpp),
// bit for bit, both dtypes, periodic faces and faces of kind "none"; and
// the maximum over the ranks (the CFL speed's all-reduce) on every rank.
//
//   mpirun -np P gpen_mpi_halo_test PXxPYxPZ [NXxNYxNZ [--time]]
//
// With --time, in place of the checks: one float64 field of ghost width 3 with
// periodic faces, exchanged 20 times after 3, the slowest rank's mean time
// an exchange and the bytes a rank sends.
// Exits 0 when every rank matched, 1 when one did not, 77 without a GPU.
// A rank that fails otherwise aborts them all (ncclCommAbort, MPI_Abort).
#include <mpi.h>

#include <cstdio>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "gpen/runtime/driver.hpp"
#include "gpen/simulate/boundaries.hpp"
#include "gpen/simulate/halo_nccl.hpp"
#include "simulate/halo_support.hpp"

using namespace gpen;
using namespace gpen::sim;

namespace {

std::array<long long, 3> parse_size(const std::string& text) {
  std::array<long long, 3> n{1, 1, 1};
  std::size_t at = 0;
  for (int ax = 0; ax < 3 && at <= text.size(); ++ax) {
    const std::size_t x = text.find('x', at);
    n[ax] = std::stoll(text.substr(at, x - at));
    if (x == std::string::npos) break;
    at = x + 1;
  }
  return n;
}

// Differences of this rank's array from the host model's, for field kinds
// `z` on the z faces (periodic elsewhere).
long long check(const Decomposition& d, int rank, Dtype dt, int g, BoundaryKind z, ncclComm_t comm, const Context& ctx) {
  const ProgramField f = test::periodic_but_z(g, z);
  HostArray global(3, d.size(), g);
  fill_random(global, 11, dt);  // the same on every rank
  std::vector<HostArray> model;
  for (int r = 0; r < d.count(); ++r) {
    HostArray w = subdomain_window(global, d.subdomain(r));
    if (z == BoundaryKind::Periodic) fill_ghosts_nan(w);
    model.push_back(w);
  }
  DeviceBuffer mine(dt, 3, d.subdomain(rank).extent, g);
  mine.upload(model[static_cast<std::size_t>(rank)].data);
  exchange_halos(f, d, model);
  const NcclHaloExchange exchange(f, d, rank, mine, comm, ctx);
  exchange.exchange(nullptr);
  ctx.synchronize();
  return test::differing_values(mine.download(), model[static_cast<std::size_t>(rank)].data);
}

// The mean seconds of an exchange of a float64 periodic field on this
// rank's subdomain (NaN ghosts: only the timing counts), and the bytes it sends.
std::pair<double, double> time_exchange(const Decomposition& d, int rank, ncclComm_t comm, const Context& ctx) {
  ProgramField f;
  f.name = "u";
  f.ghost = 3;
  DeviceBuffer mine(Dtype::Float64, 3, d.subdomain(rank).extent, 3);
  const NcclHaloExchange exchange(f, d, rank, mine, comm, ctx);
  double bytes = 0;
  for (int ax = 0; ax < 3; ++ax)
    for (int side = 0; side < 2; ++side)
      if (d.neighbour(rank, ax, side, true) >= 0) bytes += 8.0 * static_cast<double>(send_box(3, d.subdomain(rank).extent, 3, ax, side).points());
  for (int i = 0; i < 3; ++i) exchange.exchange(nullptr);
  ctx.synchronize();
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = std::chrono::steady_clock::now();
  constexpr int kRepeat = 20;
  for (int i = 0; i < kRepeat; ++i) exchange.exchange(nullptr);
  ctx.synchronize();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kRepeat;
  return {s, bytes};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ncclComm_t comm = nullptr;
  try {
    if (std::string why; !driver_available(&why)) {
      if (rank == 0) std::printf("[SKIP] no GPU: %s\n", why.c_str());
      MPI_Finalize();
      return 77;
    }
    int devices = 0;
    GPEN_CU(cuDeviceGetCount(&devices), "counting GPUs");
    if (size > devices) throw std::runtime_error(fmt::format("{} ranks and {} GPUs on this machine: one rank a GPU", size, devices));
    const RankGrid grid = parse_ranks(argc > 1 ? argv[1] : std::to_string(size), 3);
    if (grid.count() != size) throw std::runtime_error(fmt::format("--ranks {}: {} ranks, but mpirun started {}", argv[1], grid.count(), size));
    const std::array<long long, 3> n = parse_size(argc > 2 ? argv[2] : "37x21x19");
    const Context ctx(rank);
    ctx.make_current();
    ncclUniqueId id;
    if (rank == 0) nccl_check(nccl().ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    nccl_check(nccl().ncclCommInitRank(&comm, size, id, rank), "ncclCommInitRank");
    const Decomposition d(n, 3, grid, 3);
    const bool timing = argc > 3 && std::strcmp(argv[3], "--time") == 0;
    long long bad = 0;
    for (Dtype dt : timing ? std::vector<Dtype>{} : std::vector<Dtype>{Dtype::Float64, Dtype::Float32})
      for (BoundaryKind z : {BoundaryKind::Periodic, BoundaryKind::None}) {
        long long mine = check(d, rank, dt, 3, z, comm, ctx), all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0)
          std::printf("%s %s, z faces %s, %s ranks, %lldx%lldx%lld: %lld values differ from the host model\n", all == 0 ? "PASS" : "FAIL", to_string(dt),
                      to_string(z), argv[1] ? argv[1] : "", n[0], n[1], n[2], all);
        bad += all;
      }
    if (!timing) {
      // The CFL speed's maximum over the ranks, in place on the device.
      for (Dtype dt : {Dtype::Float64, Dtype::Float32}) {
        const std::vector<double> mine{1.5 + rank, -2.0 * rank, 0.25 * ((rank * 7) % 5)};
        DeviceBuffer v(dt, 1, {3, 1, 1}, 0);
        v.upload(mine);
        all_ranks_max(v.get(), 3, dt, comm, nullptr);
        ctx.synchronize();
        const std::vector<double> got = v.download();
        double want[3] = {-1e300, -1e300, -1e300};
        for (int r = 0; r < size; ++r) {
          want[0] = std::max(want[0], 1.5 + r);
          want[1] = std::max(want[1], -2.0 * r);
          want[2] = std::max(want[2], 0.25 * ((r * 7) % 5));
        }
        long long wrong = 0, all = 0;
        for (int i = 0; i < 3; ++i) wrong += got[static_cast<std::size_t>(i)] != want[i];
        MPI_Allreduce(&wrong, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0) std::printf("%s %s: the maximum over %d ranks on every rank: %lld values wrong\n", all == 0 ? "PASS" : "FAIL", to_string(dt), size, all);
        bad += all;
      }
    }
    if (timing) {
      const auto [mine, bytes] = time_exchange(d, rank, comm, ctx);
      double slowest = 0;
      MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (rank == 0)
        std::printf("TIME float64 ghost 3, every face periodic, %s ranks, %lldx%lldx%lld: %.3f ms an exchange (slowest rank), %.1f MB sent by rank 0\n",
                    argv[1], n[0], n[1], n[2], slowest * 1e3, bytes / 1e6);
    }
    nccl_check(nccl().ncclCommDestroy(comm), "ncclCommDestroy");
    MPI_Finalize();
    return bad == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    if (comm) nccl().ncclCommAbort(comm);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 1;
}
