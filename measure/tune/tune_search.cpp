#include "gpen/measure/tune/tune_search.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "gpen/generator/family.hpp"
#include "gpen/generator/tunables.hpp"

#include "gpen/families/common/host_array.hpp"
#include "gpen/generator/constraints.hpp"
#include "gpen/generator/diagnostics.hpp"

namespace gpen {
namespace {

std::size_t index_of(const std::vector<GridPoint>& points, const GridPoint& p) {
  const auto it = std::lower_bound(points.begin(), points.end(), p);
  return it != points.end() && *it == p ? static_cast<std::size_t>(it - points.begin()) : points.size();
}

// A twin of a choice (Family::plain_twin), and whether it makes the same
// unit (a twin at no shape) or only the same kernel launched alike at the
// space's shape.
struct Twin {
  TunableChoice choice;
  bool same_unit;
};

// The spec's family's twins of c: at `shape` where there is one, then at
// none (a space whose axes lack the first may hold the second); those that
// exist, differing.
std::vector<Twin> plain_twins_of(const Spec& spec, const TunableChoice& c, const std::optional<std::array<long long, 3>>& shape) {
  const Family& f = family_of(spec);
  std::vector<Twin> twins;
  if (!f.plain_twin) return twins;
  auto plain = f.plain_twin(spec, c, nullptr);
  if (shape)
    if (auto t = f.plain_twin(spec, c, &*shape)) twins.push_back({*t, plain && *t == *plain});
  if (plain && (twins.empty() || !twins.front().same_unit)) twins.push_back({std::move(*plain), true});
  return twins;
}

}  // namespace

SearchSpace::SearchSpace(const Spec& spec, const std::vector<std::string>& fixed, DeviceLimits limits, std::optional<std::array<long long, 3>> shape,
                         unsigned threads)
    : axes_(spec.tunables), shape_(shape) {
  for (std::size_t a = 0; a < axes_.size(); ++a)
    if (axes_[a].name == "strategy") strata_axis_ = a;
  const TunableChoice pinned = spec.choose(fixed, false);  // validates names and values
  // A tunable of some strategies (block on block's cell_block) takes its plain
  // value under the others, as the plan requires. Where its own values lack
  // that value, it joins the axis, so that the other strategies are searched
  // (the plans refuse it under the tunable's own strategy:
  // check_strategy_tunables).
  auto plain_only = [](const TunableDecl& t) {
    return !t.only_with_strategy.empty() && !std::count(t.values.begin(), t.values.end(), t.plain);
  };
  for (const auto& t : axes_) {
    const bool is_fixed = overrides_tunable(fixed, t.name);
    values_.push_back(is_fixed ? std::vector<TunableValue>{pinned.at(t.name)} : t.values);
    if (!is_fixed && plain_only(t)) values_.back().push_back(t.plain);
    sizes_.push_back(static_cast<int>(values_.back().size()));
  }
  const bool has_strategy = strata_axis_ < axes_.size() && axes_[strata_axis_].name == "strategy";
  // Another strategy's tunable off its plain value: refused before any plan
  // is made (each tunable of one strategy doubles the space or more), by a
  // table of reasons made once: most of a space's millions of points fall
  // here, and need neither a choice nor a message of their own.
  // off_plain[s][a][v]: why value v of axis a cannot go with strategy s.
  std::vector<std::vector<std::vector<std::optional<std::string>>>> off_plain;
  if (has_strategy)
    for (const TunableValue& sv : values_[strata_axis_]) {
      const std::string strategy = to_string(sv);
      auto& by_axis = off_plain.emplace_back(axes_.size());
      for (std::size_t a = 0; a < axes_.size(); ++a) {
        const TunableDecl& t = axes_[a];
        for (const TunableValue& v : values_[a]) by_axis[a].push_back(off_strategy(t, v, strategy));
      }
    }
  // A choice whose kernel a twin makes (Family::plain_twin), where the
  // space holds the twin (its values on the axes, the spec's constraints
  // kept): why it is left to the twin, naming the tunables the twin
  // changes ("xz_queue=0").
  auto plain_twin_in = [&](const TunableChoice& c) -> std::optional<std::string> {
    for (const Twin& twin : plain_twins_of(spec, c, shape_)) {
      std::string changed;
      bool held = true;
      for (std::size_t a = 0; a < axes_.size() && held; ++a) {
        const TunableValue& v = twin.choice.at(axes_[a].name);
        held = std::count(values_[a].begin(), values_[a].end(), v) > 0;
        if (v != c.at(axes_[a].name)) changed += (changed.empty() ? "" : " ") + axes_[a].name + "=" + to_string(v);
      }
      if (!held || first_broken(spec, twin.choice)) continue;
      if (twin.same_unit) return fmt::format("the unit of {} (the same kernel; timed once)", changed);
      return fmt::format("the kernel of {}, launched alike at this size (timed once)", changed);
    }
    return std::nullopt;
  };
  enumerate([&](const GridPoint& p) -> std::optional<std::string> {
    if (has_strategy)
      for (std::size_t a = 0; a < axes_.size(); ++a)
        if (const auto& why = off_plain[p[strata_axis_]][a][p[a]]) return why;
    TunableChoice c;
    for (std::size_t a = 0; a < axes_.size(); ++a) c[axes_[a].name] = values_[a][p[a]];
    const CountingOnly messages_only;  // a refusal's line and column would cost a scan of the spec's text
    try {
      const UnitResources r = family_of(spec).resources(spec, c);
      const int threads = r.threads;
      const std::size_t shared = r.shared_bytes, dynamic_shared = r.dynamic_shared_bytes;
      if (const ConstraintDecl* k = first_broken(spec, c)) return fmt::format("breaks the spec's constraint \"{}\"", k->text);
      if (auto twin = plain_twin_in(c)) return twin;
      if (threads > limits.max_threads_per_block)
        return fmt::format("more threads a block than the device allows ({})", limits.max_threads_per_block);
      if (static_cast<long long>(shared) > limits.max_shared_per_block)
        return fmt::format("more shared memory a block than the device allows ({} bytes)", limits.max_shared_per_block);
      if (static_cast<long long>(dynamic_shared) > limits.max_dynamic_shared_per_block)
        return fmt::format("more dynamic shared memory a block than the device allows ({} bytes)", limits.max_dynamic_shared_per_block);
    } catch (const SpecError& e) {
      return e.detail().message;
    }
    return std::nullopt;
  }, threads ? threads : std::max(1u, std::thread::hardware_concurrency()));  // a heavy spec's many stage points take seconds on one core
}

SearchSpace::SearchSpace(std::vector<int> axis_sizes, const std::function<std::optional<std::string>(const GridPoint&)>& why_invalid, unsigned threads)
    : sizes_(std::move(axis_sizes)) {
  enumerate(why_invalid, threads);
}

namespace {

// The points of one run of the odometer (last axis fastest) and the reasons
// of those refused, in the order first met.
struct Stretch {
  std::vector<GridPoint> valid;
  std::vector<std::string> order;
  std::map<std::string, std::size_t> reasons;
};

}  // namespace

void SearchSpace::enumerate(const std::function<std::optional<std::string>(const GridPoint&)>& why_invalid, unsigned threads) {
  if (std::any_of(sizes_.begin(), sizes_.end(), [](int n) { return n <= 0; })) return;
  std::size_t total = 1;
  for (int n : sizes_) total *= static_cast<std::size_t>(n);
  // Stretches of the odometer taken by threads in turn, then joined in
  // their order: the points come out sorted, and the reasons in the order
  // one thread would have met them.
  const std::size_t stretches = threads > 1 ? std::min<std::size_t>(total, 64 * std::size_t{threads}) : 1;
  std::vector<Stretch> parts(stretches);
  // A stretch that throws keeps its error, and those after it are left
  // undone: the lowest that threw holds the error one thread would have met
  // first.
  std::vector<std::exception_ptr> errors(stretches);
  std::atomic<std::size_t> first_error{stretches};
  parallel_for(static_cast<long long>(stretches), [&](long long s) {
    const std::size_t k = static_cast<std::size_t>(s);
    if (k > first_error) return;
    try {
      const std::size_t begin = total * k / stretches, end = total * (k + 1) / stretches;
      GridPoint p(sizes_.size());
      for (std::size_t a = sizes_.size(), rest = begin; a-- > 0; rest /= static_cast<std::size_t>(sizes_[a]))
        p[a] = static_cast<int>(rest % static_cast<std::size_t>(sizes_[a]));
      Stretch& part = parts[k];
      auto last = part.reasons.end();  // neighbours are mostly refused alike: one comparison, not a search
      for (std::size_t n = begin; n < end; ++n) {
        if (auto why = why_invalid(p)) {
          if (last == part.reasons.end() || last->first != *why) {
            last = part.reasons.find(*why);
            if (last == part.reasons.end()) {
              part.order.push_back(*why);
              last = part.reasons.emplace(std::move(*why), 0).first;
            }
          }
          ++last->second;
        } else {
          part.valid.push_back(p);
        }
        for (int a = static_cast<int>(p.size()) - 1; a >= 0 && ++p[a] == sizes_[a]; --a) p[a] = 0;
      }
    } catch (...) {
      errors[k] = std::current_exception();
      for (std::size_t seen = first_error; k < seen && !first_error.compare_exchange_weak(seen, k);) {
      }
    }
  }, threads);
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  total_ = total;
  std::map<std::string, std::size_t> reasons;
  std::vector<std::string> order;
  for (Stretch& part : parts) {
    points_.insert(points_.end(), std::make_move_iterator(part.valid.begin()), std::make_move_iterator(part.valid.end()));
    for (const std::string& r : part.order) {
      if (!reasons.count(r)) order.push_back(r);
      reasons[r] += part.reasons[r];
    }
  }
  for (const auto& r : order) rejected_.push_back({r, reasons[r]});
  std::stable_sort(rejected_.begin(), rejected_.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
}

std::optional<std::size_t> SearchSpace::find(const GridPoint& p) const {
  const std::size_t i = index_of(points_, p);
  if (i == points_.size()) return std::nullopt;
  return i;
}

std::vector<std::size_t> SearchSpace::neighbours(std::size_t i) const {
  std::vector<std::size_t> out;
  for (std::size_t a = 0; a < sizes_.size(); ++a)
    for (int d : {-1, 1}) {
      GridPoint q = points_.at(i);
      q[a] += d;
      if (q[a] < 0 || q[a] >= sizes_[a]) continue;
      if (auto j = find(q)) out.push_back(*j);
    }
  return out;
}

int SearchSpace::stratum(std::size_t i) const { return sizes_.empty() ? 0 : points_.at(i)[strata_axis_]; }

TunableChoice SearchSpace::choice(std::size_t i) const {
  TunableChoice c;
  for (std::size_t a = 0; a < axes_.size(); ++a) c[axes_[a].name] = values_[a][points_.at(i)[a]];
  return c;
}

std::optional<std::size_t> SearchSpace::find(const TunableChoice& c) const {
  GridPoint p;
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    const auto it = c.find(axes_[a].name);
    if (it == c.end()) return std::nullopt;
    const auto v = std::find(values_[a].begin(), values_[a].end(), it->second);
    if (v == values_[a].end()) return std::nullopt;
    p.push_back(static_cast<int>(v - values_[a].begin()));
  }
  return find(p);
}

SearchStrategy parse_search_strategy(const std::string& s) {
  if (s == "exhaustive") return SearchStrategy::Exhaustive;
  if (s == "random") return SearchStrategy::Random;
  if (s == "local") return SearchStrategy::Local;
  throw std::invalid_argument(fmt::format("unknown search strategy '{}' (exhaustive, random or local)", s));
}

const char* to_string(SearchStrategy s) {
  switch (s) {
    case SearchStrategy::Exhaustive: return "exhaustive";
    case SearchStrategy::Random: return "random";
    case SearchStrategy::Local: return "local";
  }
  return "?";
}

const char* to_string(SearchStop s) {
  switch (s) {
    case SearchStop::Done: return "done";
    case SearchStop::Budget: return "budget";
    case SearchStop::Time: return "time";
    case SearchStop::Interrupted: return "interrupted";
  }
  return "?";
}

namespace {

// The points not yet seen, shuffled within each stratum, then dealt round
// robin over the strata: any prefix samples every strategy alike.
std::vector<std::size_t> spread_order(const SearchSpace& space, const std::vector<char>& seen, std::mt19937_64& rng) {
  std::vector<std::vector<std::size_t>> groups(static_cast<std::size_t>(space.strata()));
  for (std::size_t i = 0; i < space.points().size(); ++i)
    if (!seen[i]) groups[static_cast<std::size_t>(space.stratum(i))].push_back(i);
  for (auto& g : groups) std::shuffle(g.begin(), g.end(), rng);
  std::vector<std::size_t> order;
  for (std::size_t k = 0;; ++k) {
    bool any = false;
    for (const auto& g : groups)
      if (k < g.size()) {
        order.push_back(g[k]);
        any = true;
      }
    if (!any) return order;
  }
}

}  // namespace

SearchResult search(const SearchSpace& space, Objective& objective, const SearchOptions& opt) {
  const std::size_t n = space.points().size();
  SearchResult res;
  const std::size_t budget = opt.budget ? std::min(opt.budget, n) : (opt.strategy == SearchStrategy::Local ? std::max<std::size_t>(1, n / 4) : n);
  res.budget = budget;
  auto deadline = opt.deadline;
  if (opt.time_limit_s > 0)
    deadline = std::min(deadline, std::chrono::steady_clock::now() +
                                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(opt.time_limit_s)));
  // Why to stop now, if at all.
  auto stop_now = [&]() -> std::optional<SearchStop> {
    if (opt.should_stop)
      if (const auto why = opt.should_stop()) return why;
    if (std::chrono::steady_clock::now() >= deadline) return SearchStop::Time;
    if (res.evaluations.size() >= budget) return SearchStop::Budget;
    return std::nullopt;
  };
  std::mt19937_64 rng(opt.seed);
  std::vector<Evaluation>& done = res.evaluations;
  std::vector<char> seen(n, 0);
  for (const Evaluation& e : opt.already)
    if (e.point < n && !seen[e.point] && done.size() < budget) {
      seen[e.point] = 1;
      done.push_back(e);
      if (opt.on_evaluation) opt.on_evaluation(done.back(), done.size(), budget);
    }
  const std::size_t batch_max = std::max<std::size_t>(1, opt.batch);
  // Evaluates `batch` (at most batch_max of its unseen points); false when the search must end.
  auto take = [&](std::vector<std::size_t> batch, const std::vector<std::size_t>& upcoming) {
    if (const auto why = stop_now()) {
      res.stop = *why;
      return false;
    }
    batch.erase(std::remove_if(batch.begin(), batch.end(), [&](std::size_t i) { return i >= n || seen[i]; }), batch.end());
    batch.resize(std::min({batch.size(), budget - done.size(), batch_max}));
    if (batch.empty()) return true;
    for (std::size_t i : batch) seen[i] = 1;
    objective.evaluate(batch, upcoming, [&](const Evaluation& e) {
      done.push_back(e);
      if (opt.on_evaluation) opt.on_evaluation(done.back(), done.size(), budget);
    });
    return true;
  };
  // Deals `points` out in batches; false when the search must end.
  auto take_all = [&](const std::vector<std::size_t>& points) {
    for (std::size_t at = 0; at < points.size(); at += batch_max) {
      const auto end = std::min(points.size(), at + batch_max);
      const auto next_end = std::min(points.size(), end + batch_max);
      if (!take({points.begin() + at, points.begin() + end}, {points.begin() + end, points.begin() + next_end})) return false;
    }
    return true;
  };
  auto finish = [&] {
    if (res.stop == SearchStop::Done && done.size() >= budget && budget < n) res.stop = SearchStop::Budget;
    if (res.stop == SearchStop::Budget && done.size() >= n) res.stop = SearchStop::Done;
    return res;
  };
  if (!take_all(opt.first)) return finish();

  // Exhaustive: every point, spread. Random: a shuffled order.
  if (opt.strategy != SearchStrategy::Local) {
    std::vector<std::size_t> order;
    if (opt.strategy == SearchStrategy::Exhaustive) {
      order = spread_order(space, seen, rng);
    } else {
      for (std::size_t i = 0; i < n; ++i)
        if (!seen[i]) order.push_back(i);
      std::shuffle(order.begin(), order.end(), rng);
    }
    take_all(order);
    return finish();
  }

  // Local: a few random starts spread over the strategies, then always
  // expand the unexplored neighbourhood of the best point found so far
  // (falling back to the next best); fresh random points when every
  // evaluated point's neighbourhood is exhausted.
  auto random_unseen = [&](std::size_t count) {
    std::vector<std::size_t> pool = spread_order(space, seen, rng);
    if (pool.size() > count) pool.resize(count);
    return pool;
  };
  const std::size_t starts = std::clamp<std::size_t>(budget / 8, 2, 3 * batch_max);
  if (!take_all(random_unseen(starts))) return finish();
  while (done.size() < budget) {
    std::vector<const Evaluation*> ranked;
    for (const auto& e : done)
      if (e.ms) ranked.push_back(&e);
    std::sort(ranked.begin(), ranked.end(), [](const Evaluation* a, const Evaluation* b) { return *a->ms < *b->ms; });
    std::vector<std::size_t> next;
    for (const Evaluation* e : ranked) {
      for (std::size_t j : space.neighbours(e->point))
        if (!seen[j]) next.push_back(j);
      if (!next.empty()) break;
    }
    if (next.empty()) next = random_unseen(2);
    if (next.empty()) break;
    std::shuffle(next.begin(), next.end(), rng);
    if (!take_all(next)) break;
  }
  return finish();
}

std::vector<Evaluation> run_search(const SearchSpace& space, Objective& objective, const SearchOptions& opt) {
  return search(space, objective, opt).evaluations;
}

std::optional<std::size_t> find_unit(const SearchSpace& space, const Spec& spec, const TunableChoice& c) {
  if (const auto i = space.find(c)) return i;
  for (const Twin& twin : plain_twins_of(spec, c, space.shape()))
    if (const auto i = space.find(twin.choice)) return i;
  return std::nullopt;
}

}  // namespace gpen
