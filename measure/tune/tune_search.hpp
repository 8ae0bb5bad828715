// The search half of JIT-tuning, with no GPU in it: the space of a spec's
// tunables (every combination of allowed values, minus those the plan, the
// spec's constraints or the device's limits refuse, each with its reason),
// and the strategies that pick which points to evaluate: exhaustive, random,
// and a best-first local search from random starts. An Objective does the
// evaluating, so tests drive the strategies with a synthetic landscape.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpen/generator/gpu_limits.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

// One index per axis (tunable), into that axis's values.
using GridPoint = std::vector<int>;

struct DeviceLimits {
  int max_threads_per_block = 1024;
  long long max_shared_per_block = 48 * 1024;
  long long max_dynamic_shared_per_block = kMaxDynamicShared;  // opted in; without a device, the most any GPU allows
};

class SearchSpace {
 public:
  // Tunables named in `fixed` ("name=value") take that value only. With
  // `shape`, the arrays the search times on: choices that launch another's
  // kernel alike there (Family::plain_twin) leave the space to it.
  // Its points are planned on `threads` threads (0: every core).
  SearchSpace(const Spec& spec, const std::vector<std::string>& fixed = {}, DeviceLimits limits = {},
              std::optional<std::array<long long, 3>> shape = std::nullopt, unsigned threads = 0);
  // A synthetic space: axes of the given sizes, `why_invalid` deciding each
  // point (from `threads` threads at once).
  SearchSpace(std::vector<int> axis_sizes, const std::function<std::optional<std::string>(const GridPoint&)>& why_invalid, unsigned threads = 1);

  const std::vector<GridPoint>& points() const { return points_; }  // the valid ones, in enumeration order
  std::size_t total() const { return total_; }                        // valid + rejected
  // Reasons for rejected points and how many each rejected.
  const std::vector<std::pair<std::string, std::size_t>>& rejected() const { return rejected_; }
  // Valid points that differ from points()[i] by one step along one axis.
  std::vector<std::size_t> neighbours(std::size_t i) const;
  std::optional<std::size_t> find(const GridPoint& p) const;
  // For spec spaces: the tunable choice of a point, and the point of a choice.
  TunableChoice choice(std::size_t i) const;
  std::optional<std::size_t> find(const TunableChoice& c) const;
  // The index of point i's value along the axis that groups the space for a
  // spread order: the tunable "strategy" when there is one, else the first.
  int stratum(std::size_t i) const;
  int strata() const { return sizes_.empty() ? 1 : sizes_[strata_axis_]; }
  // The arrays the space was made for, if any (the constructor's `shape`).
  const std::optional<std::array<long long, 3>>& shape() const { return shape_; }

 private:
  // Every point through why_invalid, called from `threads` threads at once.
  void enumerate(const std::function<std::optional<std::string>(const GridPoint&)>& why_invalid, unsigned threads = 1);
  std::vector<int> sizes_;
  std::size_t strata_axis_ = 0;
  std::vector<TunableDecl> axes_;  // empty for synthetic spaces
  std::vector<std::vector<TunableValue>> values_;
  std::vector<GridPoint> points_;
  std::size_t total_ = 0;
  std::vector<std::pair<std::string, std::size_t>> rejected_;
  std::optional<std::array<long long, 3>> shape_;
};

// The point that times the unit of choice c: c itself, or the twin
// (Family::plain_twin, at the space's shape or at none) that the space
// holds in its place.
std::optional<std::size_t> find_unit(const SearchSpace& space, const Spec& spec, const TunableChoice& c);

enum class SearchStrategy { Exhaustive, Random, Local };
SearchStrategy parse_search_strategy(const std::string& s);  // throws invalid_argument
const char* to_string(SearchStrategy s);

struct Evaluation {
  std::size_t point;          // index into SearchSpace::points()
  std::optional<double> ms;   // empty: failed (reason says why)
  std::string reason;
};

// Evaluates a batch of points (the tuner compiles a batch in parallel, then
// times it); `upcoming` lists points the strategy will ask for next, so that
// their compilation can start early. Each Evaluation goes to `done` as soon
// as it is made (progress and logs see it at once, a stop lands between two
// measurements), in batch order; past the deadline an objective may stop
// early, having passed on a prefix of the batch.
using EvaluationSink = std::function<void(const Evaluation&)>;
struct Objective {
  virtual ~Objective() = default;
  virtual void evaluate(const std::vector<std::size_t>& batch, const std::vector<std::size_t>& upcoming, const EvaluationSink& done) = 0;
};

// Why a search ended.
enum class SearchStop {
  Done,         // every point of the space, or the strategy ran out of points
  Budget,       // the evaluation budget
  Time,         // the deadline
  Interrupted,  // should_stop() said so (Ctrl-C)
};
const char* to_string(SearchStop s);

struct SearchOptions {
  SearchStrategy strategy = SearchStrategy::Exhaustive;
  std::size_t budget = 0;     // evaluations; 0: every point (exhaustive, random), a quarter of them (local)
  double time_limit_s = 0;    // 0: none; counted from the call
  // None: max(). The earlier of this and time_limit_s holds. Checked before
  // every batch; an objective that sees it pass may return a short batch.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Polled like the deadline: Interrupted (Ctrl-C), or Time when the
  // objective knows that nothing more fits before it.
  std::function<std::optional<SearchStop>()> should_stop;
  std::uint64_t seed = 1;
  std::size_t batch = 16;     // points handed to the objective at once, at most
  std::vector<std::size_t> first;  // evaluated before anything else (the default variant)
  // Evaluations of an earlier search (--resume): never asked again, counted
  // in the budget, returned (and passed to on_evaluation) first; the local
  // search starts from them.
  std::vector<Evaluation> already;
  std::function<void(const Evaluation&, std::size_t done, std::size_t budget)> on_evaluation;
};

struct SearchResult {
  std::vector<Evaluation> evaluations;  // in order, `already` first
  std::size_t budget = 0;               // evaluations the search would have made
  SearchStop stop = SearchStop::Done;
};

// Exhaustive visits every point, in an order spread over the space (round
// robin over the strategies, shuffled within each), so that a search cut
// short by its deadline leaves a fair sample, not the first strategy only.
// Random visits a shuffled order. Local starts from random points spread over
// the strategies and expands the neighbourhood of the best. Every batch is at
// most `batch` points. Never evaluates a point twice.
SearchResult search(const SearchSpace& space, Objective& objective, const SearchOptions& options);
// search(...).evaluations
std::vector<Evaluation> run_search(const SearchSpace& space, Objective& objective, const SearchOptions& options);

}  // namespace gpen
