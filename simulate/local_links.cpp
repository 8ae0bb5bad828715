#include "local_links.hpp"

#include <thread>

#include <fmt/format.h>

#include "gpen/families/common/kernel.hpp"
#include "gpen/runtime/driver.hpp"

namespace gpen::sim {

namespace {
// max_in_place's values a rank at most (the CFL speed is one).
constexpr std::size_t kMaxValues = 8;
}  // namespace

struct LocalRanks::Rank {
  std::vector<HaloFaces> faces;                          // per field
  std::vector<std::vector<const DeviceBuffer*>> states;  // attached: [state][field]
  std::array<Event, 2> met;                              // recorded at meetings, alternately
  long long meetings = 0;
  DeviceMemory slots;  // max_in_place: every rank's values, rank after rank
  bool taken = false;  // its links handed out
};

class LocalRanks::Links : public RankLinks {
 public:
  Links(LocalRanks& g, int rank) : g_(g), rank_(rank) {}
  const Decomposition& decomposition() const override { return g_.d_; }
  int rank() const override { return rank_; }

  void attach(const std::vector<std::vector<const DeviceBuffer*>>& states, CUstream stream) override {
    for (const auto& arrays : states) {
      if (arrays.size() != g_.p_.fields.size())
        throw BindingError(fmt::format("rank {}: {} arrays for the program's {} fields", rank_, arrays.size(), g_.p_.fields.size()));
      for (std::size_t f = 0; f < arrays.size(); ++f) check_halo_part(g_.p_.fields[f], g_.d_, rank_, arrays[f], g_.p_.dtype);
    }
    (void)stream;  // gather() meets on the host: each rank's own calls wait for its stream where they need to
    me().states = states;
  }

  void exchange_axis(int axis, int state, CUstream stream) override {
    Rank& me = this->me();
    if (state < 0 || static_cast<std::size_t>(state) >= me.states.size())
      throw std::logic_error(fmt::format("rank {}: an exchange of state {}, {} attached", rank_, state, me.states.size()));
    const auto& arrays = me.states[static_cast<std::size_t>(state)];
    for (std::size_t f = 0; f < arrays.size(); ++f) me.faces[f].pack(axis, g_.copier_, *arrays[f], stream);
    g_.meet(rank_, stream);
    for (std::size_t f = 0; f < arrays.size(); ++f) {
      me.faces[f].copy_from_peers(axis, [&](int peer) -> const HaloFaces& { return g_.ranks_[static_cast<std::size_t>(peer)]->faces[f]; }, g_.p_.dtype,
                                  stream);
      me.faces[f].unpack(axis, g_.copier_, *arrays[f], stream);
    }
    g_.meet(rank_, stream);  // before any rank packs over what a neighbour copies
  }

  void max_in_place(CUdeviceptr values, std::size_t count, Dtype dtype, CUstream stream) override {
    if (count > kMaxValues) throw std::logic_error(fmt::format("max over local ranks: {} values, at most {}", count, kMaxValues));
    if (dtype != Dtype::Float64 && dtype != g_.p_.dtype)
      throw BindingError(fmt::format("max over local ranks: {} values in a {} program", to_string(dtype), to_string(g_.p_.dtype)));
    const std::size_t bytes = count * size_of(dtype);
    g_.published_[static_cast<std::size_t>(rank_)] = values;
    g_.meet(rank_, stream);
    for (int s = 0; s < g_.d_.count(); ++s)
      GPEN_CU(cuMemcpyDtoDAsync(me().slots.get() + static_cast<CUdeviceptr>(s) * bytes, g_.published_[static_cast<std::size_t>(s)], bytes, stream),
              "copying a rank's values for their maximum");
    g_.meet(rank_, stream);  // every rank has copied mine before I overwrite them
    CUdeviceptr slots = me().slots.get();
    int ranks = g_.d_.count(), n = static_cast<int>(count);
    void* args[] = {&slots, &ranks, &n, &values};
    GPEN_CU(cuLaunchKernel(dtype == Dtype::Float64 ? g_.max_f64_ : g_.max_real_, 1, 1, 1, 32, 1, 1, 0, stream, args, nullptr),
            "launching the maximum over local ranks");
  }

  std::vector<double> gather(const std::vector<double>& mine) override {
    g_.gathered_[static_cast<std::size_t>(rank_)] = mine;
    g_.barrier();
    std::vector<double> all;
    for (const auto& v : g_.gathered_) {
      if (v.size() != mine.size()) throw std::logic_error("gather over local ranks: the ranks gave different counts");
      all.insert(all.end(), v.begin(), v.end());
    }
    g_.barrier();  // before any rank gathers again over these
    return all;
  }

 private:
  Rank& me() { return *g_.ranks_[static_cast<std::size_t>(rank_)]; }
  LocalRanks& g_;
  int rank_;
};

LocalRanks::LocalRanks(const Program& p, const Decomposition& d, const Context& ctx)
    : p_(p),
      d_(d),
      ctx_(ctx),
      module_(time_loop_module(p.dtype, ctx)),
      copier_(p.dtype, ctx),
      gathered_(static_cast<std::size_t>(d.count())),
      published_(static_cast<std::size_t>(d.count()), 0) {
  max_real_ = module_.function(time_loop_stem(p.dtype) + "_max_of_ranks");
  max_f64_ = module_.function(time_loop_stem(p.dtype) + "_max_of_ranks_f64");
  for (int r = 0; r < d_.count(); ++r) {
    auto rank = std::make_unique<Rank>();
    for (const ProgramField& f : p.fields) rank->faces.emplace_back(f, d_, r, p.dtype);
    rank->slots = DeviceMemory(static_cast<std::size_t>(d_.count()) * kMaxValues * sizeof(double));
    ranks_.push_back(std::move(rank));
  }
}

LocalRanks::~LocalRanks() = default;

std::shared_ptr<RankLinks> LocalRanks::links(int rank) {
  Rank& r = *ranks_.at(static_cast<std::size_t>(rank));
  if (r.taken) throw std::logic_error(fmt::format("LocalRanks::links: rank {}'s links were taken already", rank));
  r.taken = true;
  return std::make_shared<Links>(*this, rank);
}

namespace {
// Whether this thread is a rank's of LocalRanks::run: a meeting elsewhere
// would wait for ever for ranks that are not running.
thread_local bool in_run = false;
}  // namespace

void LocalRanks::barrier() {
  if (!in_run) throw std::logic_error("LocalRanks: a meeting of the ranks outside LocalRanks::run (every rank must be running to meet)");
  std::unique_lock<std::mutex> lock(m_);
  if (broken_) throw RankAborted();
  const long long generation = generation_;
  if (++waiting_ == d_.count()) {
    waiting_ = 0;
    ++generation_;
    cv_.notify_all();
    return;
  }
  cv_.wait(lock, [&] { return generation_ != generation || broken_; });
  if (generation_ == generation) throw RankAborted();
}

void LocalRanks::meet(int rank, CUstream stream) {
  Rank& me = *ranks_[static_cast<std::size_t>(rank)];
  // Two events a rank, alternately: a rank records one again only two
  // meetings on, when every other rank has queued its wait on it.
  const auto parity = static_cast<std::size_t>(me.meetings++ & 1);
  me.met[parity].record(stream);
  barrier();
  for (int s = 0; s < d_.count(); ++s)
    if (s != rank) ranks_[static_cast<std::size_t>(s)]->met[parity].make_wait(stream);
}

void LocalRanks::run(const std::function<void(int)>& fn) {
  std::exception_ptr failure;
  bool failed = false;  // a rank's own failure (not a RankAborted) is in `failure`
  std::mutex m;
  auto fail = [&](bool own) {
    {
      std::lock_guard<std::mutex> lock(m);
      if (!failed) {
        failure = std::current_exception();
        failed = own;
      }
    }
    std::lock_guard<std::mutex> lock(m_);
    broken_ = true;
    cv_.notify_all();
  };
  std::vector<std::thread> threads;
  for (int r = 0; r < d_.count(); ++r)
    threads.emplace_back([&, r] {
      in_run = true;
      try {
        ctx_.make_current();
        fn(r);
      } catch (const RankAborted&) {
        fail(false);
      } catch (...) {
        fail(true);
      }
    });
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace gpen::sim
