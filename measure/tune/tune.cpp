#include "gpen/measure/tune/tune.hpp"

#include "gpen/families/common/problem.hpp"
#include "gpen/families/common/spec_program.hpp"

#include <condition_variable>
#include <ctime>
#include <deque>
#include <future>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/host_array.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen {
namespace {

// Threads that compile candidates into the process cache; NVRTC programs
// are independent, so compiles run side by side while the GPU times others.
// A job is not started when the compiles so far say it would end past the
// deadline (its future then reports a broken promise). At a stop, jobs not
// started are dropped; those running are waited for, or left running
// (abandon): their state is shared, so detached threads never touch the
// pool, and each job owns what it compiles.
class CompilePool {
 public:
  CompilePool(unsigned n, bool abandon, std::chrono::steady_clock::time_point deadline)
      : st_(std::make_shared<State>()), abandon_(abandon) {
    st_->deadline = deadline;
    for (unsigned i = 0; i < std::max(1u, n); ++i) threads_.emplace_back(work, st_);
  }
  ~CompilePool() {
    {
      std::lock_guard<std::mutex> l(st_->mu);
      st_->stop = true;
      st_->queue.clear();
    }
    st_->cv.notify_all();
    for (auto& t : threads_) abandon_ ? t.detach() : t.join();
  }
  std::shared_future<void> submit(std::function<void()> job) {
    std::packaged_task<void()> task(std::move(job));
    std::shared_future<void> f = task.get_future().share();
    {
      std::lock_guard<std::mutex> l(st_->mu);
      st_->queue.push_back(std::move(task));
    }
    st_->cv.notify_one();
    return f;
  }
  // Compiles running now.
  std::size_t running() const {
    std::lock_guard<std::mutex> l(st_->mu);
    return st_->running;
  }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::packaged_task<void()>> queue;
    bool stop = false;
    std::size_t running = 0;
    std::chrono::steady_clock::time_point deadline;
    double compile_s = 0;  // the mean of the compiles so far
    std::size_t compiles = 0;
  };
  static void work(std::shared_ptr<State> st) {
    using clock = std::chrono::steady_clock;
    while (true) {
      std::packaged_task<void()> task;
      {
        std::unique_lock<std::mutex> l(st->mu);
        st->cv.wait(l, [&] { return st->stop || !st->queue.empty(); });
        if (st->stop || st->queue.empty()) return;
        task = std::move(st->queue.front());
        st->queue.pop_front();
        const bool in_time = st->deadline == clock::time_point::max() ||
                             clock::now() + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(st->compile_s)) < st->deadline;
        if (!in_time) continue;  // dropped: its future reports a broken promise
        ++st->running;
      }
      const auto t0 = clock::now();
      task();
      const double took = std::chrono::duration<double>(clock::now() - t0).count();
      std::lock_guard<std::mutex> l(st->mu);
      --st->running;
      st->compile_s += (took - st->compile_s) / static_cast<double>(++st->compiles);
    }
  }
  std::shared_ptr<State> st_;
  std::vector<std::thread> threads_;
  bool abandon_;
};

// A variant's record, with any exception of `run` recorded as its failure.
template <class Run>
TunedVariant guarded(const Spec& spec, const TunableChoice& c, Run run) {
  TunedVariant v;
  v.choice = c;
  v.variant = describe(spec.tunables, c);
  try {
    run(v);
  } catch (const Cancelled&) {
    throw;  // the whole command stops (tune: the default's CPU check)
  } catch (const CompileError& e) {
    v.reason = "does not compile: " + std::string(e.what()).substr(0, 300);
  } catch (const std::exception& e) {
    v.reason = std::string("does not run: ") + e.what();
  }
  return v;
}

// Grid kinds are checked against the default's output on the GPU, pairwise
// specs against the CPU at a sample of targets too (Problem::Check).
// `planned` is the variant of c as its compile planned it (null: planned here).
TunedVariant measure(Problem& problem, const TunableChoice& c, const Variant* planned, Problem::Check check, const TuneOptions& o) {
  return guarded(problem.spec(), c, [&](TunedVariant& v) {
    const Measurement m = planned ? problem.measure(*planned, o.repeat, check, o.warmup) : problem.measure(c, o.repeat, check, o.warmup);
    v.registers = m.usage.registers;
    v.spill_bytes = m.usage.spill_stores;
    v.check = m.check;
    if (m.check && !m.check->pass) {
      v.reason = m.mismatch + ": " + m.check->summary();
      return;
    }
    v.ms = m.median_ms;
    const RateScale& k = problem.scale();
    v.rate = k.in_unit(m.rate);
    (k.kind == RateKind::Pairs ? v.pairs_per_s : v.teff_gbs) = v.rate;  // under the name logs and the database keep
  });
}

using MeasureFn = std::function<TunedVariant(const TunableChoice&, const Variant* planned)>;

// Marks v refused, not timed, because it spills (TuneOptions::allow_spills).
void refuse_for_spills(TunedVariant& v, int spill_bytes, int registers) {
  v.ms.reset();
  v.refused = true;
  v.spill_bytes = spill_bytes;
  v.registers = registers;
  v.reason = fmt::format("refused: spills {} B to local memory at {} registers a thread (ptxas); --allow-spills times such variants", spill_bytes,
                         registers);
}

std::chrono::steady_clock::time_point deadline_of(const TuneOptions& o) {
  if (o.time_limit_s <= 0) return std::chrono::steady_clock::time_point::max();
  return o.started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(o.time_limit_s));
}

bool interrupted(const TuneOptions& o) { return o.interrupt && o.interrupt->load(); }

// Whether the search (or the default's check) should stop: Ctrl-C, or the deadline passed.
bool stop_now(const TuneOptions& o, std::chrono::steady_clock::time_point deadline) {
  return interrupted(o) || std::chrono::steady_clock::now() >= deadline;
}

// False when the pool dropped the compile because it would have ended past
// the deadline; a compile that failed counts as started (its error is
// met again when the variant is measured).
bool compile_started(const std::shared_future<void>& f) {
  try {
    f.get();
  } catch (const std::future_error&) {
    return false;
  } catch (...) {
  }
  return true;
}

class GpuObjective : public Objective {
 public:
  GpuObjective(const Context& ctx, const Spec& spec, const SearchSpace& space, MeasureFn measure, const TuneOptions& o,
               std::function<bool()> stop)
      : ctx_(ctx), spec_(std::make_shared<const Spec>(spec)), space_(space), measure_(std::move(measure)), stop_(std::move(stop)),
        pool_(o.compile_threads ? o.compile_threads : std::max(1u, std::thread::hardware_concurrency()), o.abandon_compiles, deadline_of(o)),
        allow_spills_(o.allow_spills) {}

  void evaluate(const std::vector<std::size_t>& batch, const std::vector<std::size_t>& upcoming, const EvaluationSink& done) override {
    for (std::size_t i : batch) schedule(i);
    for (std::size_t i : upcoming) schedule(i);
    for (std::size_t i : batch) {
      // A failed compile is not cached, so measure_ meets it again and
      // records it like any other failure. Past the deadline, what is not
      // measured yet is not waited for.
      const std::shared_future<void>& compiled = compiles_.at(i);
      while (compiled.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready)
        if (stop_()) return;
      if (stop_()) return;
      if (!compile_started(compiled)) {
        out_of_time_ = true;
        return;
      }
      const ResourceUsage& usage = *usage_.at(i);
      const TunedVariant v = usage.spill_stores > 0 && !allow_spills_ && !timed_anyway_.count(i) ? refused(space_.choice(i), usage) : measure_(space_.choice(i), planned_.at(i)->get());
      variants_[i] = v;
      done({i, v.ms, v.reason});
    }
  }
  void know(std::size_t i, const TunedVariant& v) { variants_[i] = v; }
  // Timed even if it spills: the default, which the user has already.
  void time_anyway(std::size_t i) { timed_anyway_.insert(i); }
  const TunedVariant& variant(std::size_t i) const { return variants_.at(i); }
  std::size_t compiling() const { return pool_.running(); }
  // A compile was not started: it would have ended past the deadline.
  bool out_of_time() const { return out_of_time_; }

 private:
  void schedule(std::size_t i) {
    if (compiles_.count(i)) return;
    // The variant is planned here once, then compiled, then measured.
    auto planned = std::make_shared<std::shared_ptr<const Variant>>();
    auto usage = std::make_shared<ResourceUsage>();
    planned_[i] = planned;
    usage_[i] = usage;
    compiles_[i] = pool_.submit([spec = spec_, c = space_.choice(i), arch = ctx_.info().arch(), planned, usage] {
      const auto v = std::make_shared<const Variant>(plan_unit(*spec, c));
      *planned = v;
      // Kept in memory only: the variants that lose never reach the disk.
      *usage = process_cache().get(spec_program(*spec, *v), arch, KernelCache::Store::Memory).kernel.usage;
    });
  }
  // A variant that spills, recorded as refused with ptxas' numbers.
  TunedVariant refused(const TunableChoice& c, const ResourceUsage& u) const {
    TunedVariant v;
    v.choice = c;
    v.variant = describe(spec_->tunables, c);
    refuse_for_spills(v, u.spill_stores, u.registers);
    return v;
  }
  const Context& ctx_;
  std::shared_ptr<const Spec> spec_;  // shared with compile jobs that may outlive this
  const SearchSpace& space_;
  MeasureFn measure_;
  std::function<bool()> stop_;
  CompilePool pool_;
  std::map<std::size_t, std::shared_future<void>> compiles_;
  // Each compile's planned variant, set before its future is ready (null
  // when planning failed: measuring plans again and records why).
  std::map<std::size_t, std::shared_ptr<std::shared_ptr<const Variant>>> planned_;
  // Each compile's registers and spills, set before its future is ready.
  std::map<std::size_t, std::shared_ptr<ResourceUsage>> usage_;
  std::map<std::size_t, TunedVariant> variants_;
  std::set<std::size_t> timed_anyway_;
  bool allow_spills_;
  bool out_of_time_ = false;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}


void phase(const TuneOptions& o, const std::string& what) {
  if (o.on_phase) o.on_phase(what);
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

SearchSpace space_of(const Context& ctx, const Problem& problem, const TuneOptions& o, TuneResult& res) {
  const DeviceInfo& d = ctx.info();
  SearchSpace space(problem.spec(), o.fixed, DeviceLimits{d.max_threads_per_block, d.max_shared_per_block, d.max_shared_per_block_optin},
                    problem.grid_shape());
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
  res.setup_s = seconds_since(o.started);
  const auto deadline = deadline_of(o);
  GpuObjective objective(ctx, spec, space, std::move(measure), o, [&] { return stop_now(o, deadline); });
  SearchOptions so;
  so.strategy = o.strategy;
  so.budget = o.budget;
  so.deadline = deadline;
  so.should_stop = [&]() -> std::optional<SearchStop> {
    if (interrupted(o)) return SearchStop::Interrupted;
    if (objective.out_of_time()) return SearchStop::Time;
    return std::nullopt;
  };
  so.seed = o.seed;
  // The default is also a point of the search (timed like the others), so
  // that "best" is never worse than what the user had: its own, or the
  // point of its plain twin, the same kernel.
  const std::optional<std::size_t> d0 = find_unit(space, spec, res.reference.choice);
  if (d0) {
    so.first = {*d0};
    objective.time_anyway(*d0);
  }
  // What an earlier search measured, its last line for a point (a log
  // resumed under --allow-spills has a refused line and then a timed one).
  // Under this search's rule on spills: without --allow-spills a variant
  // timed because it was allowed to spill is refused again; with it, one
  // refused is left to be measured if the search comes to it.
  std::map<std::size_t, TunedVariant> earlier;
  for (const TunedVariant& v : o.resume)
    if (auto i = space.find(v.choice)) earlier[*i] = v;
  for (auto& [i, v] : earlier) {
    if (v.refused && o.allow_spills) continue;
    if (!o.allow_spills && v.ms && v.spill_bytes > 0 && i != d0) refuse_for_spills(v, v.spill_bytes, v.registers);
    v.resumed = true;
    objective.know(i, v);
    so.already.push_back({i, v.ms, v.reason});
  }
  TuneProgress progress;
  progress.scale = &res.scale;
  so.on_evaluation = [&](const Evaluation& e, std::size_t done, std::size_t budget) {
    res.evaluated.push_back(objective.variant(e.point));
    const TunedVariant& v = res.evaluated.back();
    res.resumed += v.resumed;
    if (v.ms && (!res.best || *v.ms < *res.evaluated[*res.best].ms)) res.best = res.evaluated.size() - 1;
    progress.done = done;
    progress.budget = budget;
    progress.failed += !v.ms && !v.refused;
    progress.refused += v.refused;
    progress.best = res.best ? &res.evaluated[*res.best] : nullptr;
    progress.elapsed_s = seconds_since(o.started);
    if (o.on_variant) o.on_variant(v, progress);
  };
  const SearchResult found = search(space, objective, so);
  res.budget = found.budget;
  res.stop = found.stop;
  res.abandoned_compiles = o.abandon_compiles ? objective.compiling() : 0;
  // The winner and the default are what `gpen run` will load: those go to disk.
  const std::string arch = ctx.info().arch();
  if (res.best) process_cache().persist(cache_key(spec_identity(spec, res.evaluated[*res.best].choice), arch));
  process_cache().persist(cache_key(spec_identity(spec, res.reference.choice), arch));
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
    r.copy_gbs = res.scale.kind == RateKind::Bandwidth ? res.scale.bound_value : 0;
    r.pairs_per_s = keep.pairs_per_s;
    r.evaluations = static_cast<int>(res.evaluated.size());
    // A database that cannot be written loses this record, not the search's result.
    try {
      TuningDb(o.db_path).store(res.key, r);
      res.saved = true;
    } catch (const std::exception& e) {
      res.save_error = e.what();
    }
  }
  res.total_s = seconds_since(o.started);
}

}  // namespace

TuneResult tune(const Context& ctx, Problem& problem, const TuneOptions& o) {
  const Spec& spec = problem.spec();
  TuneResult res;
  const SearchSpace space = space_of(ctx, problem, o, res);
  res.key = problem.tuning_key(ctx.info());
  res.scale = problem.scale();
  res.reference_check = problem.reference_check();
  phase(o, "measuring the default variant and checking it against the CPU reference");
  // The default variant is the reference: checked against the CPU in
  // double precision, then its output is what every other variant must match.
  // A heavy spec's CPU reference at 512^3 takes tens of seconds on many
  // cores: Ctrl-C and --time end it too.
  const auto deadline = deadline_of(o);
  const bool spent_before = std::chrono::steady_clock::now() >= deadline;  // by the copy, the inputs and the space
  try {
    const CancelScope scope([&] { return stop_now(o, deadline); });
    res.reference = measure(problem, spec.choose(o.fixed), nullptr, Problem::Check::Cpu, o);
  } catch (const Cancelled&) {
    if (!interrupted(o))
      throw std::runtime_error(fmt::format("spec '{}': {} --time {:g} s (setup included): give more --time, or tune at a smaller --size", spec.name,
                                           spent_before ? fmt::format("measuring the copy and preparing the inputs at {} took all of", problem.size())
                                                        : fmt::format("checking the default variant against the CPU reference at {} took more than", problem.size()),
                                           o.time_limit_s));
    res.stop = SearchStop::Interrupted;
    res.setup_s = res.total_s = seconds_since(o.started);
    return res;
  }
  if (res.reference.ms) problem.keep_as_reference();
  search_and_save(ctx, spec, space, [&](const TunableChoice& c, const Variant* planned) { return measure(problem, c, planned, Problem::Check::Reference, o); }, problem.size(),
                  o, res);
  return res;
}

TuneResult tune(const Context& ctx, const Spec& spec, const std::string& size, const TuneOptions& o) {
  check_problem_size(spec, size);
  phase(o, fmt::format("preparing the problem ({}): the copy bandwidth where it is the bound, random inputs", size));
  const auto problem = make_problem(ctx, spec, size);
  return tune(ctx, *problem, o);
}

}  // namespace gpen
