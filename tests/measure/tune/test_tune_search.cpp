// JIT-tuning without a GPU: the search space of a spec (enumeration, the
// plan's refusals, the spec's constraints, device limits), constraint
// errors, and the search strategies on synthetic landscapes.
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpen/families/stencil/stencil_plan.hpp"
#include "gpen/generator/constraints.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/measure/tune/tune_search.hpp"
#include "test_support.hpp"

using namespace gpen;

namespace {

Spec o8() { return load_spec(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o8.json"); }

// Costs from a table; counts evaluations and refuses repeats.
struct Landscape : Objective {
  std::function<double(const GridPoint&)> cost;
  const SearchSpace& space;
  std::multiset<std::size_t> asked;
  std::size_t largest_batch = 0;
  Landscape(const SearchSpace& s, std::function<double(const GridPoint&)> c) : cost(std::move(c)), space(s) {}
  void evaluate(const std::vector<std::size_t>& batch, const std::vector<std::size_t>&, const EvaluationSink& done) override {
    largest_batch = std::max(largest_batch, batch.size());
    for (std::size_t i : batch) {
      asked.insert(i);
      done({i, cost(space.points()[i]), ""});
    }
  }
};

// A synthetic space's check that refuses nothing.
std::optional<std::string> all_valid(const GridPoint&) { return std::nullopt; }

double best_of(const std::vector<Evaluation>& ev) {
  double b = 1e300;
  for (const auto& e : ev)
    if (e.ms) b = std::min(b, *e.ms);
  return b;
}

}  // namespace

TEST_CASE("search space of a spec: every combination, minus what the plan refuses, with reasons") {
  const Spec s = o8();
  const SearchSpace space(s);
  std::size_t product = 1;
  for (const auto& t : s.tunables) product *= t.values.size();
  CHECK(space.total() == product);
  CHECK(space.points().size() < product);
  CHECK(!space.points().empty());
  std::size_t rejected = 0;
  bool march_only = false;
  for (const auto& [why, n] : space.rejected()) {
    rejected += n;
    march_only = march_only || why.find("only the march strategy has it") != std::string::npos;
  }
  CHECK(rejected + space.points().size() == product);
  CHECK(march_only);
  // every valid point plans, and the spec's default is one of them
  for (std::size_t i = 0; i < space.points().size(); i += 97) CHECK_NOTHROW(plan_stencil(s, space.choice(i)));
  REQUIRE(space.find(s.choose()));
  CHECK(space.choice(*space.find(s.choose())) == s.choose());
}

TEST_CASE("fixed tunables and device limits shrink the space") {
  const Spec s = o8();
  const SearchSpace all(s);
  const SearchSpace march(s, {"strategy=march", "points_per_thread=8"});
  CHECK(march.points().size() < all.points().size());
  for (std::size_t i = 0; i < march.points().size(); ++i) {
    CHECK(std::get<std::string>(march.choice(i).at("strategy")) == "march");
    CHECK(std::get<long long>(march.choice(i).at("points_per_thread")) == 8);
  }
  DeviceLimits tight;
  tight.max_shared_per_block = 4096;  // too little for most tiles
  tight.max_threads_per_block = 256;
  tight.max_dynamic_shared_per_block = 64 * 1024;  // less than the o8 default's ring (96768 bytes)
  const SearchSpace small(s, {}, tight);
  CHECK(small.points().size() < all.points().size());
  CHECK_FALSE(small.find(s.choose()));
  bool shared = false, threads = false, ring = false;
  for (const auto& [why, n] : small.rejected()) {
    shared = shared || why.find("shared memory a block than the device allows (4096") != std::string::npos;
    threads = threads || why.find("more threads a block than the device allows (256)") != std::string::npos;
    ring = ring || why.find("more dynamic shared memory a block than the device allows (65536 bytes)") != std::string::npos;
  }
  CHECK(shared);
  CHECK(threads);
  CHECK(ring);
}

TEST_CASE("a choice that makes another's unit is searched once: xz_queue under mixed_passes 1") {
  const Spec m = load_spec(gpen::test::source_dir() + "/specs/stencil/momentum_visc3d.json");
  const std::vector<std::string> fixed = {"strategy=stage", "block_x=32", "block_y=4", "points_per_thread=32", "rows_y=1", "ring_ahead=1",
                                          "stream_stores=1", "shared_pitches=1", "vector_x=1", "unroll_z=0", "min_blocks=0", "ring_behind=1"};
  const SearchSpace space(m, fixed);
  // mixed_passes x z_queue x xz_queue: 8 choices, 2 of them the units of xz_queue 0.
  CHECK(space.total() == 8);
  CHECK(space.points().size() == 6);
  for (std::size_t i = 0; i < space.points().size(); ++i) {
    const auto c = space.choice(i);
    CHECK_FALSE((tunable_int(c, "mixed_passes") == 1 && tunable_int(c, "xz_queue") == 1));
  }
  REQUIRE(space.rejected().size() == 1);
  CHECK(space.rejected().front().first == "the unit of xz_queue=0 (the same kernel; timed once)");
  CHECK(space.rejected().front().second == 2);
  // The default (xz_queue 1) under mixed_passes 1 is not a point; its twin
  // is, and times its unit.
  std::vector<std::string> one = fixed;
  one.push_back("mixed_passes=1");
  CHECK_FALSE(space.find(m.choose(one)));
  REQUIRE(find_unit(space, m, m.choose(one)));
  CHECK(tunable_int(space.choice(*find_unit(space, m, m.choose(one))), "xz_queue") == 0);
  // Where the space has no twin (xz_queue fixed to 1), the choice stays:
  // mixed_passes 1 is still searched.
  std::vector<std::string> xz1 = fixed;
  xz1.push_back("xz_queue=1");
  const SearchSpace pinned(m, xz1);
  CHECK(pinned.points().size() == 4);
  CHECK(pinned.find(m.choose(one)));
  one.push_back("xz_queue=1");
  CHECK(SearchSpace(m, one).points().size() == 2);
}

TEST_CASE("at the search's size, stage choices whose points_per_thread make the same grid are searched once") {
  // The twin rule holds only while the stage kernel takes its planes from
  // the grid: its template reads no kPointsPerThread outside comments.
  std::istringstream stage(gpen::test::read_file(gpen::test::source_dir() + "/families/stencil/device/stencil_stage.cuh"));
  REQUIRE(stage.str().size() > 1000);
  for (std::string line; std::getline(stage, line);) CHECK(line.substr(0, line.find("//")).find("kPointsPerThread") == std::string::npos);

  const Spec m = load_spec(gpen::test::source_dir() + "/specs/stencil/momentum_visc3d.json");
  std::vector<std::string> fixed = {"strategy=stage", "block_x=32", "block_y=5", "rows_y=1", "ring_ahead=1", "stream_stores=1", "shared_pitches=1",
                                    "vector_x=1", "unroll_z=0", "min_blocks=0", "mixed_passes=2", "z_queue=0", "xz_queue=1", "point_registers=0",
                                    "ring_behind=1"};
  auto grid_z = [&](const TunableChoice& c, const std::array<long long, 3>& shape) { return plan_stencil(m, c).launch(shape).grid[2]; };
  CHECK(SearchSpace(m, fixed).points().size() == 9);  // points_per_thread 1 .. 256
  for (const std::array<long long, 3> shape : {std::array<long long, 3>{512, 512, 512}, {256, 256, 256}, {37, 21, 19}}) {
    CAPTURE(shape[0]);
    const SearchSpace space(m, fixed, {}, shape);
    // One point a grid, each the first value that makes it.
    std::map<unsigned, long long> first;
    for (const TunableValue& v : m.find_tunable("points_per_thread")->values) {
      TunableChoice c = space.choice(0);
      c["points_per_thread"] = v;
      first.emplace(grid_z(c, shape), std::get<long long>(v));
    }
    REQUIRE(space.points().size() == first.size());
    for (std::size_t i = 0; i < space.points().size(); ++i) {
      const TunableChoice c = space.choice(i);
      CHECK(first.at(grid_z(c, shape)) == tunable_int(c, "points_per_thread"));
    }
  }
  // 512^3: 32, 64 and 128 walk 128 planes a block (4 x 32, 2 x 64, 128).
  const SearchSpace space(m, fixed, {}, std::array<long long, 3>{512, 512, 512});
  CHECK(space.points().size() == 7);
  REQUIRE(space.rejected().size() == 1);
  CHECK(space.rejected().front().first == "the kernel of points_per_thread=32, launched alike at this size (timed once)");
  CHECK(space.rejected().front().second == 2);
  std::vector<std::string> p128 = fixed;
  p128.push_back("points_per_thread=128");
  REQUIRE(find_unit(space, m, m.choose(p128)));
  CHECK(tunable_int(space.choice(*find_unit(space, m, m.choose(p128))), "points_per_thread") == 32);
  // Other strategies read points_per_thread in their code: all 9 stay.
  const SearchSpace rolling(m, {"strategy=rolling", "block_x=32", "block_y=4"}, {}, std::array<long long, 3>{512, 512, 512});
  std::set<long long> walks;
  for (std::size_t i = 0; i < rolling.points().size(); ++i) walks.insert(tunable_int(rolling.choice(i), "points_per_thread"));
  CHECK(walks.size() == 9);
  // A space without the first value keeps the choice, and the twin at no
  // shape still serves: points_per_thread 128 fixed, xz_queue under one pass.
  std::vector<std::string> passes = p128;
  passes.erase(std::find(passes.begin(), passes.end(), "mixed_passes=2"));
  passes.erase(std::find(passes.begin(), passes.end(), "xz_queue=1"));
  const SearchSpace pinned(m, passes, {}, std::array<long long, 3>{512, 512, 512});
  CHECK(pinned.points().size() == 3);  // mixed_passes 1 with xz_queue 0, 2 with both
  REQUIRE(pinned.rejected().size() == 1);
  CHECK(pinned.rejected().front().first == "the unit of xz_queue=0 (the same kernel; timed once)");
  // A twin the spec's constraints refuse is no twin: 64 and 128 both stay
  // where 32 breaks the constraint (the grid of 64 is still timed).
  std::string js = gpen::test::read_file(gpen::test::source_dir() + "/specs/stencil/momentum_visc3d.json");
  js = gpen::test::with(js, "\"tunables\": {", "\"constraints\": [\"points_per_thread >= 64\"],\n  \"tunables\": {\n    \"points_per_thread\": {\"default\": 64},");
  const Spec bounded = load_spec_string(js);
  const SearchSpace walks64(bounded, fixed, {}, std::array<long long, 3>{512, 512, 512});
  CHECK(walks64.points().size() == 3);  // 64, 128, 256
  std::vector<std::string> p64 = fixed;
  p64.push_back("points_per_thread=64");
  CHECK(walks64.find(bounded.choose(p64)));
}

TEST_CASE("constraints in the spec remove points before anything compiles") {
  const std::string t = "  \"constraints\": [\"block_x * block_y * vector_x <= 128\", \"points_per_thread >= 4\"],\n";
  std::string js = gpen::test::minimal_spec("D2(u, x) + D2(u, y)", t + "  \"tunables\": {\"vector_x\": {\"default\": 1}},\n");
  js = gpen::test::with(js, "\"dims\": 2", "\"dims\": 3");  // (defaults that keep the constraints: 32 x 4 x 1)
  const Spec s = load_spec_string(js);
  REQUIRE(s.constraints.size() == 2);
  const SearchSpace space(s);
  for (std::size_t i = 0; i < space.points().size(); ++i) {
    const auto c = space.choice(i);
    CHECK(std::get<long long>(c.at("block_x")) * std::get<long long>(c.at("block_y")) * std::get<long long>(c.at("vector_x")) <= 128);
    CHECK(std::get<long long>(c.at("points_per_thread")) >= 4);
  }
  // the bounds themselves are allowed
  CHECK(space.find(s.choose({"strategy=march", "block_x=32", "block_y=4", "vector_x=1", "rows_y=1", "points_per_thread=4"})));
  CHECK(!space.find(s.choose({"strategy=march", "block_x=32", "block_y=8", "vector_x=1", "rows_y=1", "points_per_thread=4"}, false)));
  bool named = false;
  for (const auto& [why, n] : space.rejected()) named = named || why == "breaks the spec's constraint \"points_per_thread >= 4\"";
  CHECK(named);
}

TEST_CASE("constraint errors name the JSON path, line and column") {
  auto err = [](const std::string& c) {
    return gpen::test::spec_error_of(gpen::test::minimal_spec("D2(u, x)", "  \"constraints\": [" + c + "],\n")).detail();
  };
  const auto unknown = err("\"block_x * blok_y <= 512\"");
  CHECK(unknown.pointer == "/constraints/0");
  CHECK(unknown.message == "'blok_y' is not an integer tunable; did you mean 'block_y'?");
  CHECK(unknown.where.line == 9);
  CHECK(unknown.where.column == 30);  // the b of blok_y inside the string
  CHECK(err("\"strategy <= 2\"").message == "'strategy' is not an integer tunable");
  CHECK(err("\"block_x + 1\"").message == "no comparison in the constraint");
  CHECK(err("\"block_x <= max(1, 2)\"").message == "function call 'max' in a constraint");
  CHECK(err("\"block_x <= (2\"").pointer == "/constraints/0");
  CHECK(err("3").message == "found a non-string");
  // A constraint the defaults break: never meant, or never true.
  const auto never = err("\"block_x < 0\"");
  CHECK(never.pointer == "/constraints/0");
  CHECK(never.message.rfind("the spec's default variant breaks this constraint (block_x = ", 0) == 0);
  CHECK(err("\"block_x / 0 == 1\"").message.rfind("the spec's default variant breaks this constraint (block_x = ", 0) == 0);
}

TEST_CASE("a space enumerated by several threads is the one a thread makes: points in order, reasons in the order first met, counted") {
  // Reasons that change along every axis, the first met late in the odometer.
  auto why = [](const GridPoint& p) -> std::optional<std::string> {
    if ((p[0] * 7 + p[1] * 3 + p[2]) % 5 == 0) return std::nullopt;
    return fmt::format("reason {}", (p[2] * 11 + p[1] + p[0] * 5) % 9);
  };
  const std::vector<int> sizes{3, 17, 29};
  const SearchSpace one(sizes, why), many(sizes, why, 7);
  CHECK(one.total() == 3 * 17 * 29);
  CHECK(many.total() == one.total());
  CHECK(many.points() == one.points());
  CHECK(many.rejected() == one.rejected());
  CHECK(std::is_sorted(many.points().begin(), many.points().end()));
  std::size_t refused = 0;
  for (const auto& [reason, n] : many.rejected()) refused += n;
  CHECK(refused + many.points().size() == many.total());
  // A point that throws: the first in the odometer's order is what the
  // caller sees, however the threads met them.
  auto throws = [](const GridPoint& p) -> std::optional<std::string> {
    const int n = p[0] * 1000 + p[1];
    if (n == 70 || n == 80 || n == 39000) throw std::runtime_error(fmt::format("at {}", n));
    return std::nullopt;
  };
  for (int run = 0; run < 5; ++run) CHECK_THROWS_WITH(SearchSpace({40, 1000}, throws, 8), "at 70");
  // A spec's space planned on one thread and on eight.
  const Spec mom = load_spec(gpen::test::source_dir() + "/specs/stencil/mhd_iso3d.json");
  const SearchSpace spec_one(mom, {}, {}, std::array<long long, 3>{67, 45, 33}, 1), spec_many(mom, {}, {}, std::array<long long, 3>{67, 45, 33}, 8);
  CHECK(spec_one.points().size() > 1000);
  CHECK(spec_many.total() == spec_one.total());
  CHECK(spec_many.points() == spec_one.points());
  CHECK(spec_many.rejected() == spec_one.rejected());
  // An empty axis makes an empty space; no axis, one point.
  CHECK(SearchSpace({3, 0, 2}, why, 4).total() == 0);
  CHECK(SearchSpace({}, [](const GridPoint&) { return std::optional<std::string>(); }, 4).points().size() == 1);
}

TEST_CASE("exhaustive and random strategies evaluate each valid point once, within the budget") {
  const SearchSpace space({4, 5, 3}, [](const GridPoint& p) -> std::optional<std::string> {
    if (p[0] == 3 && p[1] == 4) return std::string("corner refused");
    return std::nullopt;
  });
  CHECK(space.total() == 60);
  CHECK(space.points().size() == 57);
  REQUIRE(space.rejected().size() == 1);
  CHECK(space.rejected()[0].second == 3);
  auto cost = [](const GridPoint& p) { return 1.0 + p[0] + p[1] + p[2]; };
  {
    Landscape l(space, cost);
    SearchOptions o;
    o.batch = 7;
    const auto ev = run_search(space, l, o);
    CHECK(ev.size() == 57);
    CHECK(std::set<std::size_t>(l.asked.begin(), l.asked.end()).size() == 57);
    CHECK(best_of(ev) == 1.0);
  }
  {
    Landscape l(space, cost);
    SearchOptions o;
    o.strategy = SearchStrategy::Random;
    o.budget = 20;
    o.first = {5};
    const auto ev = run_search(space, l, o);
    CHECK(ev.size() == 20);
    CHECK(ev.front().point == 5);  // the default goes first
    CHECK(std::set<std::size_t>(l.asked.begin(), l.asked.end()).size() == 20);
  }
}

TEST_CASE("local search finds the optimum of a known landscape with a quarter of the evaluations") {
  // A 6-axis space like a stencil's (7 x 5 x 5 x 7 x 3 x 3 = 11025 points)
  // with one optimum and a smooth, tilted bowl around it, plus a ridge of
  // refused points; many seeds so that luck cannot pass the test.
  const std::vector<int> sizes = {7, 5, 5, 7, 3, 3};
  const GridPoint opt = {2, 3, 1, 5, 1, 2};
  const SearchSpace space(sizes, [](const GridPoint& p) -> std::optional<std::string> {
    if (p[0] + p[1] == 9) return std::string("ridge");
    return std::nullopt;
  });
  auto cost = [&](const GridPoint& p) {
    double c = 1.0;
    for (std::size_t a = 0; a < p.size(); ++a) c += (a + 1) * 0.1 * std::abs(p[a] - opt[a]) + 0.01 * (p[a] - opt[a]) * (p[a] - opt[a]);
    return c;
  };
  // Best cost a local search of `budget` evaluations finds with `seed`.
  auto local_best = [&](std::size_t budget, std::uint64_t seed) {
    Landscape l(space, cost);
    SearchOptions o;
    o.strategy = SearchStrategy::Local;
    o.seed = seed;
    o.budget = budget;
    const auto ev = run_search(space, l, o);
    CHECK(ev.size() <= budget);
    CHECK(std::set<std::size_t>(l.asked.begin(), l.asked.end()).size() == l.asked.size());  // never twice
    return best_of(ev);
  };
  int found = 0, quick = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    found += local_best(space.points().size() / 4, seed) == 1.0;
    quick += local_best(300, seed) == 1.0;  // far fewer than a quarter
  }
  CHECK(found == 10);
  CHECK(quick >= 8);
}

TEST_CASE("a time limit stops the search between batches") {
  const SearchSpace space({50, 50}, all_valid);
  struct Slow : Objective {
    void evaluate(const std::vector<std::size_t>& b, const std::vector<std::size_t>&, const EvaluationSink& done) override {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      for (auto i : b) done({i, 1.0, ""});
    }
  } slow;
  SearchOptions o;
  o.time_limit_s = 0.1;
  o.batch = 10;
  const auto ev = run_search(space, slow, o);
  CHECK(ev.size() < 200);
  CHECK(ev.size() >= 10);
}

TEST_CASE("every strategy hands out batches of at most `batch` points, the local search's starts included") {
  // The space of a stencil at full size: a local search's budget is a
  // quarter of it; its random starts must still come 16 at a time.
  const SearchSpace space({4, 7, 5, 5, 7, 3, 3}, all_valid);
  for (SearchStrategy strategy : {SearchStrategy::Exhaustive, SearchStrategy::Random, SearchStrategy::Local}) {
    INFO(to_string(strategy));
    Landscape l(space, [](const GridPoint& p) { return 1.0 + p[1] + p[3]; });
    SearchOptions o;
    o.strategy = strategy;
    o.budget = 400;
    const SearchResult r = search(space, l, o);
    CHECK(r.evaluations.size() == 400);
    CHECK(r.stop == SearchStop::Budget);
    CHECK(l.largest_batch <= 16);
    CHECK(l.largest_batch >= 2);
  }
}

TEST_CASE("an exhaustive search cut short has sampled every strategy alike") {
  // Strategy 0 has 200 points, 1 and 2 have 10 each: in enumeration order a
  // budget of 30 would see strategy 0 only.
  const SearchSpace space({3, 200}, [](const GridPoint& p) -> std::optional<std::string> {
    if (p[0] > 0 && p[1] >= 10) return std::string("no such variant");
    return std::nullopt;
  });
  REQUIRE(space.points().size() == 220);
  Landscape l(space, [](const GridPoint&) { return 1.0; });
  SearchOptions o;
  o.budget = 30;
  const SearchResult r = search(space, l, o);
  std::map<int, int> per_stratum;
  for (const auto& e : r.evaluations) ++per_stratum[space.stratum(e.point)];
  CHECK(per_stratum[0] == 10);
  CHECK(per_stratum[1] == 10);
  CHECK(per_stratum[2] == 10);
  // Without a limit it still visits every point once.
  Landscape all(space, [](const GridPoint&) { return 1.0; });
  const SearchResult whole = search(space, all, SearchOptions{});
  CHECK(whole.evaluations.size() == 220);
  CHECK(whole.stop == SearchStop::Done);
  CHECK(std::set<std::size_t>(all.asked.begin(), all.asked.end()).size() == 220);
}

TEST_CASE("a search says why it stopped: deadline, interrupt, budget or done") {
  const SearchSpace space({40, 40}, all_valid);
  // Evaluates until the deadline, then returns the batch cut short, as the
  // tuner's objective does when compiles are abandoned.
  struct Clocked : Objective {
    std::chrono::steady_clock::time_point deadline;
    void evaluate(const std::vector<std::size_t>& b, const std::vector<std::size_t>&, const EvaluationSink& done) override {
      for (auto i : b) {
        if (std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        done({i, 1.0, ""});
      }
    }
  } clocked;
  for (SearchStrategy strategy : {SearchStrategy::Exhaustive, SearchStrategy::Local}) {
    INFO(to_string(strategy));
    SearchOptions o;
    o.strategy = strategy;
    o.deadline = clocked.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(150);
    const SearchResult r = search(space, clocked, o);
    CHECK(r.stop == SearchStop::Time);
    CHECK(r.evaluations.size() > 5);
    CHECK(r.evaluations.size() < 100);  // 150 ms of 2 ms evaluations: the cut batch was not finished
    CHECK(std::chrono::steady_clock::now() < o.deadline + std::chrono::milliseconds(100));
  }
  {
    Landscape l(space, [](const GridPoint&) { return 1.0; });
    SearchOptions o;
    int polls = 0;
    o.should_stop = [&]() -> std::optional<SearchStop> {  // Ctrl-C after three batches
      if (++polls > 3) return SearchStop::Interrupted;
      return std::nullopt;
    };
    const SearchResult r = search(space, l, o);
    CHECK(r.stop == SearchStop::Interrupted);
    CHECK(r.evaluations.size() == 3 * 16);
  }
  {
    Landscape l(space, [](const GridPoint&) { return 1.0; });
    SearchOptions o;
    o.strategy = SearchStrategy::Random;
    o.budget = 1600;
    CHECK(search(space, l, o).stop == SearchStop::Done);  // the budget is the whole space
  }
}

TEST_CASE("evaluations of an earlier search are not asked again and count in the budget") {
  const SearchSpace space({10, 10}, all_valid);
  for (SearchStrategy strategy : {SearchStrategy::Exhaustive, SearchStrategy::Random, SearchStrategy::Local}) {
    INFO(to_string(strategy));
    Landscape l(space, [](const GridPoint& p) { return 1.0 + p[0] + p[1]; });
    SearchOptions o;
    o.strategy = strategy;
    o.budget = 30;
    o.already = {{0, 1.0, ""}, {57, std::nullopt, "does not compile"}, {99, 19.0, ""}};
    std::vector<std::size_t> reported;
    o.on_evaluation = [&](const Evaluation& e, std::size_t done, std::size_t budget) {
      reported.push_back(e.point);
      CHECK(done == reported.size());
      CHECK(budget == 30);
    };
    const SearchResult r = search(space, l, o);
    REQUIRE(r.evaluations.size() == 30);
    CHECK(l.asked.size() == 27);
    CHECK(!l.asked.count(0));
    CHECK(!l.asked.count(57));
    CHECK(!l.asked.count(99));
    CHECK(r.evaluations[1].reason == "does not compile");
    REQUIRE(reported.size() == 30);  // in the order returned, the earlier ones first
    for (std::size_t k = 0; k < 30; ++k) CHECK(reported[k] == r.evaluations[k].point);
  }
}

TEST_CASE("search strategy names") {
  CHECK(parse_search_strategy("local") == SearchStrategy::Local);
  CHECK(std::string(to_string(SearchStrategy::Random)) == "random");
  CHECK_THROWS_AS(parse_search_strategy("annealing"), std::invalid_argument);
}

TEST_CASE("every shipped spec's default variant is a point of its search space, each strategy searched") {
  namespace fs = std::filesystem;
  // The schema that editors check specs against names every tunable a spec may narrow.
  std::ifstream schema_file(gpen::test::source_dir() + "/specs/spec.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(schema_file);
  const nlohmann::json& schema_tunables = schema.at("properties").at("tunables").at("properties");
  int specs = 0;
  for (const auto& e : fs::recursive_directory_iterator(gpen::test::source_dir() + "/specs")) {
    // Programs (specs/programs/) are no kernels: they have no search space.
    if (e.path().extension() != ".json" || e.path().filename() == "spec.schema.json" || e.path().filename() == "program.schema.json" ||
        e.path().parent_path().filename() == "programs")
      continue;
    const Spec s = load_spec(e.path().string());
    INFO(e.path().string());
    ++specs;
    for (const auto& t : s.tunables) CHECK_MESSAGE(schema_tunables.contains(t.name), "the schema lacks tunable " << t.name);
    const SearchSpace space(s);
    const auto d = space.find(s.choose());
    REQUIRE(d);
    CHECK(space.choice(*d) == s.choose());
    // A strategy's own tunable holds one of its values under that strategy
    // and its plain value under the others (the plain value is added to its
    // axis for them, and must not leak into its own strategy's points).
    for (std::size_t i = 0; i < space.points().size(); ++i) {
      const TunableChoice c = space.choice(i);
      for (const auto& t : s.tunables) {
        if (t.only_with_strategy.empty()) continue;
        if (t.belongs_to(to_string(c.at("strategy")))) CHECK(std::count(t.values.begin(), t.values.end(), c.at(t.name)) == 1);
        else CHECK(c.at(t.name) == t.plain);
      }
    }
    // Strategies whose own tunables have no plain value among their
    // values (block on block's cell_block) must still be searched, and so
    // must the others.
    if (const TunableDecl* st = s.find_tunable("strategy"))
      for (const auto& v : st->values) {
        bool found = false;
        for (std::size_t i = 0; i < space.points().size() && !found; ++i) found = space.choice(i).at("strategy") == v;
        CHECK_MESSAGE(found, "strategy " << to_string(v) << " has no point");
      }
  }
  CHECK(specs >= 20);
}

TEST_CASE("search space of a spec limited to one strategy: a grid's block on block alone, particles' refused at load") {
  const std::string dir = gpen::test::source_dir() + "/specs/pairwise/";
  const std::string blocks_only = "\"tunables\": {\"strategy\": {\"values\": [\"blocks\"]}},\n  \"outputs\": [";
  const Spec g = load_spec_string(gpen::test::with(gpen::test::read_file(dir + "radiation_grid.json"), "\"outputs\": [", blocks_only));
  const SearchSpace space(g);
  REQUIRE(!space.points().empty());
  for (std::size_t i = 0; i < space.points().size(); ++i) {
    const TunableChoice c = space.choice(i);
    CHECK(to_string(c.at("strategy")) == "blocks");
    CHECK(std::get<long long>(c.at("cell_block")) > 0);  // its own values, never the tile's plain 0
  }
  CHECK(space.find(g.choose()));
  // Particles have no block on block: the spec is refused where it says so,
  // rather than a space of variants that all end in map::at.
  const std::string particles = gpen::test::with(gpen::test::read_file(dir + "softened_potential.json"), "\"outputs\": [", blocks_only);
  CHECK(gpen::test::spec_error_of(particles).pointer() == "/tunables/strategy/values/0");
}
