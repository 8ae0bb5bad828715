// The local transport of a decomposed run (issue 30): P ranks as P threads
// of one process on one GPU, each driving its subdomain's loop on a stream
// of its own, as P processes on P GPUs would through NCCL. An exchange
// packs every rank's slabs, meets the other ranks at a barrier, copies its
// neighbours' slabs in after their packs (stream events), unpacks, and
// meets them again before a later pack may overwrite what they copy. So
// the loop that runs under mpirun runs here, its results checked bitwise
// against the undecomposed run without several GPUs.
#pragma once

#include <array>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "halo_gpu.hpp"
#include "rank_links.hpp"

namespace gpen::sim {

// Another rank failed: this one stopped at its next meeting instead of
// waiting there for ever.
struct RankAborted : std::runtime_error {
  RankAborted() : std::runtime_error("another rank failed: this one stopped") {}
};

class LocalRanks {
 public:
  // The ranks of d (of p's grid) on ctx's GPU, their exchange buffers allocated.
  LocalRanks(const Program& p, const Decomposition& d, const Context& ctx);
  ~LocalRanks();
  LocalRanks(const LocalRanks&) = delete;

  const Decomposition& decomposition() const { return d_; }
  const Context& context() const { return ctx_; }
  // Rank r's links (GpuOptions::links), each taken once; they refer to this
  // group, which must outlive them.
  std::shared_ptr<RankLinks> links(int rank);
  // fn(rank) on a thread a rank, ctx current in each, until all return.
  // Where one throws, the others stop at their next meeting (RankAborted)
  // and the first failure is rethrown here; the ranks cannot meet again.
  void run(const std::function<void(int)>& fn);

 private:
  class Links;
  struct Rank;
  // Rank r's stream waits, from here on, for what every rank queued before
  // this meeting (every rank calls it in the same order).
  void meet(int rank, CUstream stream);
  void barrier();

  const Program& p_;
  Decomposition d_;
  const Context& ctx_;
  std::vector<std::unique_ptr<Rank>> ranks_;
  Module module_;  // the time-loop unit's max_of_ranks
  CUfunction max_real_ = nullptr, max_f64_ = nullptr;
  HaloCopier copier_;
  std::mutex m_;
  std::condition_variable cv_;
  int waiting_ = 0;
  long long generation_ = 0;
  bool broken_ = false;
  std::vector<std::vector<double>> gathered_;  // per rank: gather()'s values
  std::vector<CUdeviceptr> published_;         // per rank: max_in_place's values
};

}  // namespace gpen::sim
