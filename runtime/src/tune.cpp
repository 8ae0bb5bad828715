#include "gpen/runtime/tune.hpp"

#include <condition_variable>
#include <ctime>
#include <deque>
#include <future>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "gpen/generator/tunables.hpp"
#include "gpen/runtime/pairwise_run.hpp"
#include "gpen/runtime/stencil_run.hpp"

namespace gpen {
namespace {

// Threads that compile candidates into the process cache; NVRTC programs
// are independent, so compiles run side by side while the GPU times others.
class CompilePool {
 public:
  explicit CompilePool(unsigned n) {
    for (unsigned i = 0; i < std::max(1u, n); ++i) threads_.emplace_back([this] { work(); });
  }
  ~CompilePool() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  std::shared_future<void> submit(std::function<void()> job) {
    std::packaged_task<void()> task(std::move(job));
    std::shared_future<void> f = task.get_future().share();
    {
      std::lock_guard<std::mutex> l(mu_);
      queue_.push_back(std::move(task));
    }
    cv_.notify_one();
    return f;
  }

 private:
  void work() {
    while (true) {
      std::packaged_task<void()> task;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<void()>> queue_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

// A variant's record, with any exception of `run` recorded as its failure.
template <class Run>
TunedVariant guarded(const Spec& spec, const TunableChoice& c, Run run) {
  TunedVariant v;
  v.choice = c;
  v.variant = describe(spec.tunables, c);
  try {
    run(v);
  } catch (const CompileError& e) {
    v.reason = "does not compile: " + std::string(e.what()).substr(0, 300);
  } catch (const std::exception& e) {
    v.reason = std::string("does not run: ") + e.what();
  }
  return v;
}

TunedVariant measure(const Context& ctx, Workload& w, const TunableChoice& c, MeasureOptions::Check check, const TuneOptions& o) {
  return guarded(w.spec(), c, [&](TunedVariant& v) {
    MeasureOptions mo;
    mo.warmup = o.warmup;
    mo.repeat = o.repeat;
    mo.check = check;
    const RunReport r = measure_variant(ctx, w, c, mo);
    v.registers = r.usage.registers;
    v.check = r.check;
    if (r.check && !r.check->pass) {
      v.reason = "wrong result: " + r.check->summary();
    } else {
      v.ms = r.median_ms;
      v.teff_gbs = r.teff_gbs;
    }
  });
}

// A pairwise variant is checked twice: against the CPU reference at the
// workload's sample of targets (every target for the NaN poison), and,
// unless it is the default, at every target against the default's output.
TunedVariant measure_pair(const Context& ctx, PairWorkload& w, const TunableChoice& c, bool is_default, const TuneOptions& o) {
  return guarded(w.spec(), c, [&](TunedVariant& v) {
    const PairRunReport r = measure_pairwise(ctx, w, c, o.warmup, o.repeat, true);
    v.registers = r.usage.registers;
    v.check = r.check;
    if (!r.check->pass) {
      v.reason = "wrong result: " + r.check->summary();
      return;
    }
    if (!is_default) {
      v.check = w.compare_to_reference();
      if (!v.check->pass) {
        v.reason = "differs from the default's output: " + v.check->summary();
        return;
      }
    }
    v.ms = r.median_ms;
    v.pairs_per_s = r.pairs_per_s;
  });
}

using MeasureFn = std::function<TunedVariant(const TunableChoice&)>;

class GpuObjective : public Objective {
 public:
  GpuObjective(const Context& ctx, const Spec& spec, const SearchSpace& space, MeasureFn measure, const TuneOptions& o)
      : ctx_(ctx), spec_(spec), space_(space), measure_(std::move(measure)),
        pool_(o.compile_threads ? o.compile_threads : std::max(1u, std::thread::hardware_concurrency())) {}

  std::vector<Evaluation> evaluate(const std::vector<std::size_t>& batch, const std::vector<std::size_t>& upcoming) override {
    for (std::size_t i : batch) schedule(i);
    for (std::size_t i : upcoming) schedule(i);
    std::vector<Evaluation> out;
    for (std::size_t i : batch) {
      // A failed compile is not cached, so measure_ meets it again and
      // records it like any other failure.
      compiles_.at(i).wait();
      const TunedVariant v = measure_(space_.choice(i));
      const Evaluation e{i, v.ms, v.reason};
      variants_[i] = v;
      out.push_back(e);
    }
    return out;
  }
  const TunedVariant& variant(std::size_t i) const { return variants_.at(i); }

 private:
  void schedule(std::size_t i) {
    if (compiles_.count(i)) return;
    const TunableChoice c = space_.choice(i);
    const std::string arch = ctx_.info().arch();
    const Spec& spec = spec_;
    compiles_[i] = pool_.submit([&spec, c, arch] { process_cache().get(generate(spec, c), arch, spec.name); });
  }
  const Context& ctx_;
  const Spec& spec_;
  const SearchSpace& space_;
  MeasureFn measure_;
  CompilePool pool_;
  std::map<std::size_t, std::shared_future<void>> compiles_;
  std::map<std::size_t, TunedVariant> variants_;
};

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

SearchSpace space_of(const Context& ctx, const Spec& spec, const TuneOptions& o, TuneResult& res) {
  const DeviceInfo& d = ctx.info();
  SearchSpace space(spec, o.fixed, DeviceLimits{d.max_threads_per_block, d.max_shared_per_block, d.max_shared_per_block_optin});
  res.space_total = space.total();
  res.space_valid = space.points().size();
  res.rejected = space.rejected();
  return space;
}

// After res.reference is measured and kept: the search, the best variant,
// and its record in the tuning database.
void search_and_save(const Context& ctx, const Spec& spec, const SearchSpace& space, MeasureFn measure, const std::string& size,
                     const TuneOptions& o, TuneResult& res) {
  if (!res.reference.ms)
    throw std::runtime_error(fmt::format("spec '{}': the default variant ({}) cannot serve as the tuning reference: {}", spec.name,
                                         res.reference.variant, res.reference.reason));
  GpuObjective objective(ctx, spec, space, std::move(measure), o);
  SearchOptions so;
  so.strategy = o.strategy;
  so.budget = o.budget;
  so.time_limit_s = o.time_limit_s;
  so.seed = o.seed;
  // The default is also a point of the search (timed like the others), so
  // that "best" is never worse than what the user had.
  if (auto d0 = space.find(res.reference.choice)) so.first = {*d0};
  if (o.on_progress) so.on_evaluation = [&](const Evaluation&, std::size_t done, std::size_t budget) { o.on_progress(done, budget); };
  for (const Evaluation& e : run_search(space, objective, so)) {
    res.evaluated.push_back(objective.variant(e.point));
    const auto& v = res.evaluated.back();
    if (v.ms && (!res.best || *v.ms < *res.evaluated[*res.best].ms)) res.best = res.evaluated.size() - 1;
  }
  if (o.save && res.best) {
    const TunedVariant& keep = res.evaluated[*res.best];
    TuningRecord r;
    r.spec = spec.name;
    r.size = size;
    r.strategy = to_string(o.strategy);
    r.date = today();
    r.choice = keep.choice;
    r.ms = *keep.ms;
    r.teff_gbs = keep.teff_gbs;
    r.copy_gbs = res.copy_gbs;
    r.pairs_per_s = keep.pairs_per_s;
    r.evaluations = static_cast<int>(res.evaluated.size());
    TuningDb(o.db_path).store(res.key, r);
    res.saved = true;
  }
}

}  // namespace

TuneResult tune(const Context& ctx, const Spec& spec, const std::array<long long, 3>& size, const TuneOptions& o) {
  if (spec.is_pairwise())
    throw std::invalid_argument(fmt::format("spec '{}' is pairwise: tune it with tune_pairwise and its PairSizes", spec.name));
  TuneResult res;
  const SearchSpace space = space_of(ctx, spec, o, res);
  res.key = tuning_key(spec, size, ctx.info());
  res.copy_gbs = measure_copy_gbs(ctx, std::size_t(1) << 30);
  Workload w(ctx, spec, size);
  // The default variant is the reference: checked against the CPU in
  // double precision, then its output is what every other variant must match.
  res.reference = measure(ctx, w, spec.choose(o.fixed), MeasureOptions::Check::Cpu, o);
  if (res.reference.ms) w.keep_as_reference();
  search_and_save(ctx, spec, space, [&](const TunableChoice& c) { return measure(ctx, w, c, MeasureOptions::Check::Reference, o); },
                  fmt::format("{}x{}x{}", size[0], size[1], size[2]), o, res);
  return res;
}

TuneResult tune_pairwise(const Context& ctx, const Spec& spec, const PairSizes& sizes, const TuneOptions& o) {
  if (!spec.is_pairwise()) throw std::invalid_argument(fmt::format("spec '{}' is not pairwise: tune it with tune()", spec.name));
  TuneResult res;
  const SearchSpace space = space_of(ctx, spec, o, res);
  res.key = pair_tuning_key(spec, sizes, ctx.info());
  res.rsqrt_bound_per_s = rsqrt_bound_per_s(ctx.info());
  PairWorkload w(ctx, spec, sizes);
  res.reference = measure_pair(ctx, w, spec.choose(o.fixed), true, o);
  if (res.reference.ms) w.keep_as_reference();
  const std::string size = spec.pairwise.grid ? fmt::format("{}x{}x{}", sizes.grid[0], sizes.grid[1], sizes.grid[2])
                           : spec.pairwise.same_set ? std::to_string(sizes.targets)
                                                    : fmt::format("{}x{}", sizes.targets, sizes.sources);
  search_and_save(ctx, spec, space, [&](const TunableChoice& c) { return measure_pair(ctx, w, c, false, o); }, size, o, res);
  return res;
}

}  // namespace gpen
