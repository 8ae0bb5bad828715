#include "gpen/generator/tunables.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/limits.hpp"

namespace gpen {
namespace {

struct Builtin {
  Builtin(std::string name, bool is_string, std::vector<TunableValue> values, TunableValue default_value, long long lo, long long hi,
          std::vector<std::string> strings, std::string only_with_strategy = {}, TunableValue plain = 0LL)
      : name(std::move(name)), is_string(is_string), values(std::move(values)), default_value(std::move(default_value)), lo(lo), hi(hi),
        strings(std::move(strings)), only_with_strategy(std::move(only_with_strategy)), plain(std::move(plain)) {}
  std::string name;
  bool is_string;
  std::vector<TunableValue> values;  // defaults offered when the spec says nothing
  TunableValue default_value;
  long long lo, hi;                  // the range a spec may choose ints from
  std::vector<std::string> strings;  // the set a spec may choose strings from
  std::string only_with_strategy;    // see TunableDecl
  TunableValue plain;
  std::string values_note;           // why `strings` holds more than this spec may take
};

std::vector<Builtin> stencil_builtins(int dims) {
  const bool three = dims == 3;
  std::vector<Builtin> b;
  b.push_back({"strategy", true, {std::string("direct"), std::string("march"), std::string("tile"), std::string("rolling")},
               std::string("march"), 0, 0, {"direct", "march", "tile", "rolling"}});
  b.push_back({"block_x", false, {16LL, 32LL, 64LL, 128LL, 256LL}, 32LL, 1, 1024, {}});
  // y is marched (internally z) for 2-D arrays, so only 3-D kernels have a y block.
  if (three) b.push_back({"block_y", false, {1LL, 2LL, 4LL, 8LL, 16LL}, 4LL, 1, 1024, {}});
  else b.push_back({"block_y", false, {1LL}, 1LL, 1, 1, {}});
  if (dims > 1) b.push_back({"points_per_thread", false, {1LL, 2LL, 4LL, 8LL, 16LL, 32LL, 64LL, 128LL, 256LL}, 8LL, 1, 4096, {}});
  else b.push_back({"points_per_thread", false, {1LL}, 1LL, 1, 1, {}});
  // Register blocking of the march strategy: points a thread owns along x
  // (moved as one vector) and rows along y.
  // Defaults: the best 8th-order Laplacian variants on an H100 (bench/RESULTS.md, "second session").
  b.push_back({"vector_x", false, {1LL, 2LL, 4LL}, 2LL, 1, 4, {}, "march", 1LL});
  if (three) b.push_back({"rows_y", false, {1LL, 2LL, 4LL}, 2LL, 1, 8, {}, "march", 1LL});
  else b.push_back({"rows_y", false, {1LL}, 1LL, 1, 1, {}, "march", 1LL});
  // 1: the march loop along z fully unrolled (points_per_thread steps).
  b.push_back({"unroll_z", false, {0LL, 1LL}, 0LL, 0, 1, {}, "march", 0LL});
  // 1: outputs stored evict-first (st.global.cs), leaving the L2 to the
  // inputs' neighbours: a gain in float64, none in float32 (bench/RESULTS.md,
  // "sixth session"). 0 may suit a time loop whose next kernel reads the
  // output from the L2.
  b.push_back({"stream_stores", false, {0LL, 1LL}, 1LL, 0, 1, {}, "march", 0LL});
  // D > 0: the x-y planes a block reads copied by cp.async D steps ahead
  // into a ring of shared-memory slots, x and y neighbours and the planes
  // ahead read from there (templates/gpen/stencil_ring.cuh); 0: through the L1.
  b.push_back({"ring_ahead", false, {0LL, 1LL, 2LL, 3LL, 4LL}, 0LL, 0, 16, {}, "march", 0LL});
  // N > 0: __launch_bounds__(threads, N), so that ptxas keeps N blocks an SM
  // within the register file (the ring's shared memory may allow no more).
  b.push_back({"min_blocks", false, {0LL, 1LL, 2LL, 3LL, 4LL}, 0LL, 0, 32, {}, "march", 0LL});
  return b;
}

// Scans: the rows layout (contiguous axis) has kBlockY rows a block and
// values a thread along the row, 16-byte accesses by default; the columns
// layout has rows of threads across x, each walking the axis, and kBlockY
// groups of them stacked along it.
std::vector<Builtin> scan_builtins(const Spec& spec) {
  const bool rows = spec.scan.axis == 0;
  const long long vec = spec.dtype == Dtype::Float32 ? 4 : 2;
  std::vector<Builtin> b;
  // Defaults: the fastest variants on an H100. Short rows 128x2 threads,
  // 4 values each; one long row 256 threads, 32 float32 or 16 float64
  // values each, striped (fewer, larger segments to look back over)
  // (bench/RESULTS.md, "third session" and "seventh session"). Columns
  // 32 x 32 threads, 16 values each, 8-byte accesses: a block holds 512
  // steps of 32 columns at once, one block an SM ("tenth session";
  // cumsum_z.json chains layers of 8 steps in 32 x 16 threads instead,
  // "thirteenth session").
  const bool one_row = rows && spec.dims == 1;
  b.push_back({"block_x", false, {32LL, 64LL, 128LL, 256LL, 512LL}, one_row ? 256LL : rows ? 128LL : 32LL, 32, 1024, {}});
  // Rows: rows a block. Columns: groups of threads stacked along the axis
  // (scan_columns.cuh); one row takes no block_y.
  if (rows && spec.dims > 1) b.push_back({"block_y", false, {1LL, 2LL, 4LL, 8LL}, 2LL, 1, 32, {}});
  else if (!rows) b.push_back({"block_y", false, {1LL, 2LL, 4LL, 8LL, 16LL, 32LL}, 32LL, 1, 1024, {}});
  else b.push_back({"block_y", false, {1LL}, 1LL, 1, 1, {}});
  // One row: 128 bytes a thread (32 float32 values; 32 float64 values take
  // too many registers and lose to 16: bench/RESULTS.md, "seventh session").
  const long long row_values = spec.dtype == Dtype::Float32 ? 32 : 16;
  b.push_back({"values_per_thread", false, {1LL, 2LL, 4LL, 8LL, 16LL, 32LL}, one_row ? row_values : rows ? 4LL : 16LL, 1, 64, {}});
  // Columns: 8 bytes an access (float32 x 4 loses along y: bench/RESULTS.md, "tenth session").
  const long long column_vec = spec.dtype == Dtype::Float32 ? 2 : 1;
  b.push_back({"vector_x", false, {1LL, 2LL, 4LL}, rows ? vec : column_vec, 1, 4, {}});
  // A tunable of one layout only; the other has just `off`.
  auto layout_only = [&](bool applies, const char* name, std::vector<TunableValue> values, long long default_value, long long lo, long long hi, long long off) {
    if (applies) b.push_back({name, false, std::move(values), default_value, lo, hi, {}});
    else b.push_back({name, false, {off}, off, off, off, {}});
  };
  auto rows_only = [&](const char* name, std::vector<TunableValue> values, long long default_value, long long hi) {
    layout_only(rows, name, std::move(values), default_value, 0, hi, 0);
  };
  // Rows split into tiles: how many tiles ahead a block prefetches into the
  // L2 (one long row: 128 and 256 alike, 512 and more lose; bench/RESULTS.md,
  // "sixth session" and "seventh session"); columns: none.
  rows_only("prefetch_tiles", {0LL, 128LL, 256LL, 512LL, 1024LL}, one_row ? 256 : 0, 1 << 20);
  // Rows: 1 stripes a warp's accesses across its lanes, each access one
  // contiguous run of lines; 0 gives each thread one run of values. Striped
  // wins on one long row, runs on short rows (bench/RESULTS.md, "seventh session").
  rows_only("striped", {0LL, 1LL}, one_row ? 1 : 0, 1);
  // Rows split into tiles: nanoseconds a block sleeps between publishing its
  // aggregate and its look-back, as CUB does. One long row is fastest at
  // 4000 ns in float32, 2000 in float64 (bench/RESULTS.md, "seventh session").
  const long long row_delay = spec.dtype == Dtype::Float32 ? 4000 : 2000;
  rows_only("lookback_delay", {0LL, 500LL, 1000LL, 2000LL, 4000LL, 8000LL}, one_row ? row_delay : 0, 100000);
  // Columns: the stripes of a plane that consecutive blocks are spread over
  // (runs of 2 KiB of columns, scan_columns.cuh), so that the blocks in
  // flight read every part of a plane at once rather than one window of it;
  // 1 keeps the tiles in order. Spreading lifts z of 512 x 480 x 512 float64
  // and leaves 512^3 as it was (bench/RESULTS.md, "twelfth session").
  layout_only(!rows, "stripes", {1LL, 4LL, 16LL, 64LL}, 16, 1, 1 << 20, 1);
  // Columns: 1 cuts the axis into layers of values_per_thread steps, a block
  // a layer of its columns, the running values handed from layer to layer
  // through the L2 (scan_column_layers.cuh), so that the blocks in flight
  // read a few whole planes, where the carries fit in the L2 (else the unit
  // walks, ScanPlan::geometry). 0: each block walks the whole axis. Chained
  // wins along z and loses along y, hence 0 here and 1 in cumsum_z.json
  // (bench/RESULTS.md, "thirteenth session").
  layout_only(!rows, "chained", {0LL, 1LL}, 0, 0, 1, 0);
  return b;
}

// SBP operators: a thread a point (direct) or pencils staged in shared
// memory (one axis). The pencil's two sides are tunables of their own,
// independent of the block's threads (seed 001's Approach 3).
std::vector<Builtin> sbp_builtins(const Spec& spec) {
  const bool one_axis = spec.sbp.axes.size() == 1;
  const bool along_x = one_axis && spec.sbp.axes[0] == 0;
  // Defaults: the fastest variants of D2 order 4 on an H100 (bench/RESULTS.md, "fourth session"):
  // along y or z, 32x32 pencils for 32x4 threads; along x, long 256-point
  // pencils for 64 threads, except in 3-D, where a thread a point (128x1) wins.
  const bool direct = !one_axis || (along_x && spec.dims == 3);
  // A pencil follows one axis: operators along several axes (a Laplacian) are direct only.
  std::vector<TunableValue> strategies = {std::string("direct")};
  if (one_axis) strategies.push_back(std::string("pencil"));
  std::vector<Builtin> b;
  b.push_back({"strategy", true, strategies, std::string(direct ? "direct" : "pencil"), 0, 0, {"direct", "pencil"}});
  if (!one_axis) b.back().values_note = "a pencil follows one axis, and this operator is along several";
  b.push_back({"block_x", false, {32LL, 64LL, 128LL, 256LL}, along_x ? (spec.dims == 3 ? 128LL : 64LL) : 32LL, 1, 1024, {}});
  if (spec.dims > 1) b.push_back({"block_y", false, {1LL, 2LL, 4LL, 8LL, 16LL}, along_x ? 1LL : 4LL, 1, 1024, {}});
  else b.push_back({"block_y", false, {1LL}, 1LL, 1, 1, {}});
  const long long along = along_x ? 256 : 32, across = spec.dims == 1 || along_x ? 1 : 32;
  b.push_back({"pencil_along", false, {8LL, 16LL, 32LL, 64LL, 128LL, 256LL}, along, 1, 4096, {}, "pencil", along});
  if (spec.dims > 1) b.push_back({"pencil_across", false, {1LL, 2LL, 4LL, 8LL, 16LL, 32LL, 64LL}, across, 1, 1024, {}, "pencil", across});
  else b.push_back({"pencil_across", false, {1LL}, 1LL, 1, 1, {}, "pencil", 1LL});
  return b;
}

// Pairwise: threads a block (= sources a shared-memory tile), targets a
// thread, the unrolling of the source loop; cell blocks and streams for the
// block-on-block schedule on grids.
std::vector<Builtin> pairwise_builtins(const Spec& spec) {
  const PairwiseDecl& d = spec.pairwise;
  std::vector<TunableValue> strategies;
  if (d.grouped) strategies.push_back(std::string("grouped"));
  else strategies.push_back(std::string("tile"));
  if (d.grid && !d.grouped) strategies.push_back(std::string("blocks"));
  std::vector<Builtin> b;
  b.push_back({"strategy", true, strategies, strategies.front(), 0, 0, {"tile", "grouped", "blocks"}});
  b.back().values_note = d.grouped ? "the kernel of \"pairs\": \"grouped\" walks its interaction lists (grouped)"
                         : d.grid  ? "grouped needs \"pairs\": \"grouped\""
                                   : "block on block (blocks) needs \"domain\": \"grid\", and grouped needs \"pairs\": \"grouped\"";
  // Defaults (bench/RESULTS.md, "fifth session"): block 256, 2 targets a
  // thread, unroll 8: close to the best variant for the softened potential at
  // N = 2^20 (512 x 8), whose 4096-target blocks leave SMs idle below N = 2^19.
  // On grids 128: close to 256 for the tile on 64^3, the fastest for block on
  // block, whose float64 kernel spills at 256 threads. Grouped: 64 threads, a
  // target each: 256 x 2's threads mostly sit idle in a small group.
  const long long block = d.grouped ? 64 : d.grid ? 128 : 256;
  b.push_back({"block_x", false, {64LL, 128LL, 256LL, 512LL}, block, 32, 1024, {}});
  b.push_back({"targets_per_thread", false, {1LL, 2LL, 4LL, 8LL}, d.grouped ? 1LL : 2LL, 1, 16, {}});
  b.push_back({"unroll", false, {1LL, 4LL, 8LL, 16LL, 32LL}, 8LL, 1, 1024, {}});
  if (strategies.size() > 1) {  // block-on-block is possible
    b.push_back({"cell_block", false, {4LL, 8LL, 16LL}, 8LL, 1, 64, {}, "blocks", 0LL});
    b.push_back({"streams", false, {1LL, 2LL, 3LL, 4LL}, 3LL, 1, 16, {}, "blocks", 0LL});
  }
  return b;
}

TunableValue read_value(const Builtin& b, const nlohmann::json& j, const std::string& ptr, const JsonSource& src) {
  if (b.is_string) {
    if (!j.is_string() || !std::count(b.strings.begin(), b.strings.end(), j.get<std::string>()))
      src.fail(ptr, fmt::format("{} is not a {}{}", j.dump(), b.name, j.is_string() ? did_you_mean(j.get<std::string>(), b.strings) : ""),
               fmt::format("one of: {}", fmt::join(b.strings, ", ")));
    // A value of the kind that this spec's shape cannot take: block on block
    // (pairwise "blocks") for particles, a pencil along several axes. Its
    // plan would find none of the tunables it needs.
    if (!std::count(b.values.begin(), b.values.end(), TunableValue(j.get<std::string>()))) {
      std::vector<std::string> offered;
      for (const auto& v : b.values) offered.push_back(to_string(v));
      src.fail(ptr, fmt::format("{} is not a {} of this spec{}", j.dump(), b.name, b.values_note.empty() ? "" : ": " + b.values_note),
               fmt::format("one of: {}", fmt::join(offered, ", ")));
    }
    return j.get<std::string>();
  }
  if (!j.is_number_integer() || j.get<long long>() < b.lo || j.get<long long>() > b.hi)
    src.fail(ptr, fmt::format("{} is not a valid {}", j.dump(), b.name), fmt::format("an integer in [{}, {}]", b.lo, b.hi));
  return j.get<long long>();
}

}  // namespace

std::vector<TunableDecl> parse_tunables(const Spec& spec, const nlohmann::json* node, const JsonSource& src, Diagnostics& diag) {
  const auto builtins = spec.is_scan()       ? scan_builtins(spec)
                        : spec.is_sbp()      ? sbp_builtins(spec)
                        : spec.is_pairwise() ? pairwise_builtins(spec)
                                             : stencil_builtins(spec.dims);
  std::vector<TunableDecl> out;
  std::vector<std::string> names;
  for (const auto& b : builtins) {
    out.push_back({b.name, b.values, b.default_value, "/tunables", b.only_with_strategy, b.plain});
    names.push_back(b.name);
  }
  if (!node) return out;
  if (!node->is_object()) {
    diag.unit([&] { src.fail("/tunables", "found a non-object", "an object of tunable names"); });
    return out;
  }
  // Each tunable on its own: a wrong one does not hide the next.
  for (auto it = node->begin(); it != node->end(); ++it) {
    const std::string ptr = json_pointer_join("/tunables", it.key());
    auto bi = std::find_if(builtins.begin(), builtins.end(), [&](const Builtin& b) { return b.name == it.key(); });
    if (bi == builtins.end() && diag.full()) {
      diag.count_one();
      continue;
    }
    diag.unit([&] {
      if (bi == builtins.end())
        src.fail(ptr, fmt::format("unknown tunable '{}' for kind '{}'{}", it.key(), spec.kind, did_you_mean(it.key(), names)),
                 fmt::format("one of: {}", fmt::join(names, ", ")), true);
      TunableDecl& d = out[bi - builtins.begin()];
      d.pointer = ptr;
      const auto& j = it.value();
      if (!j.is_object()) src.fail(ptr, "found a non-object", "an object with \"values\" and/or \"default\"");
      record_unknown_keys(j, ptr, {"values", "default"}, src, diag);
      if (j.contains("values")) {
        const auto& v = j["values"];
        if (!v.is_array() || v.empty()) src.fail(ptr + "/values", "not a non-empty array", "an array of allowed values");
        src.check_count(ptr + "/values", v.size(), kMaxTunableValues);
        d.values.clear();
        for (std::size_t i = 0; i < v.size(); ++i) d.values.push_back(read_value(*bi, v[i], json_pointer_join(ptr + "/values", i), src));
        if (!j.contains("default") && !std::count(d.values.begin(), d.values.end(), d.default_value)) d.default_value = d.values.front();
      }
      if (j.contains("default")) {
        d.default_value = read_value(*bi, j["default"], ptr + "/default", src);
        if (!std::count(d.values.begin(), d.values.end(), d.default_value))
          src.fail(ptr + "/default", fmt::format("default {} is not among the allowed values", to_string(d.default_value)),
                   "a default listed in \"values\"");
      }
    });
  }
  return out;
}

bool overrides_tunable(const std::vector<std::string>& overrides, const std::string& name) {
  return std::any_of(overrides.begin(), overrides.end(), [&](const std::string& o) { return o.substr(0, o.find('=')) == name; });
}

TunableChoice Spec::choose(const std::vector<std::string>& overrides) const {
  TunableChoice c;
  for (const auto& t : tunables) c[t.name] = t.default_value;
  std::vector<std::string> names;
  for (const auto& t : tunables) names.push_back(t.name);
  // The override that set each tunable, as the user wrote it.
  std::map<std::string, std::string> set_by;
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    const std::string name = o.substr(0, eq);
    if (eq == std::string::npos)
      throw UsageError(fmt::format("--set {}: not name=value (tunables: {})", o, fmt::join(names, ", ")));
    const TunableDecl* t = find_tunable(name);
    if (!t)
      throw UsageError(fmt::format("--set {}: '{}' names no tunable (tunables: {}){}", o, name, fmt::join(names, ", "), did_you_mean(name, names)));
    const std::string text = o.substr(eq + 1);
    auto match = std::find_if(t->values.begin(), t->values.end(), [&](const TunableValue& v) { return to_string(v) == text; });
    if (match == t->values.end()) {
      std::vector<std::string> vals;
      for (const auto& v : t->values) vals.push_back(to_string(v));
      // A misspelt strategy gets a suggestion; numbers close in spelling are not close.
      const std::string hint = std::holds_alternative<std::string>(t->default_value) ? did_you_mean(text, vals) : "";
      throw UsageError(fmt::format("--set {}: {} is not an allowed value of {}; allowed: {}{}", o, text, name, fmt::join(vals, ", "), hint));
    }
    c[name] = *match;
    set_by[name] = o;
  }
  // Tunables of another strategy than the chosen one fall back to their
  // plain value; one the user set to anything else is refused here, naming
  // the --set, rather than by the plan at the spec's "tunables".
  for (const auto& t : tunables) {
    if (t.only_with_strategy.empty() || !c.count("strategy")) continue;
    const std::string strategy = to_string(c.at("strategy"));
    if (strategy == t.only_with_strategy) continue;
    const auto by = set_by.find(t.name);
    if (by == set_by.end()) c[t.name] = t.plain;
    else if (c.at(t.name) != t.plain)
      throw UsageError(fmt::format("--set {}: only the {} strategy has {}, and the strategy is {}{}; expected {} = {}, or strategy {}", by->second,
                                   t.only_with_strategy, t.name, strategy, set_by.count("strategy") ? " (--set " + set_by.at("strategy") + ")" : " (the spec's default)",
                                   t.name, to_string(t.plain), t.only_with_strategy));
  }
  return c;
}

void check_strategy_tunables(const Spec& spec, const TunableChoice& choice) {
  const auto st = choice.find("strategy");
  if (st == choice.end()) return;
  const std::string strategy = to_string(st->second);
  for (const auto& t : spec.tunables) {
    const auto v = choice.find(t.name);
    if (t.only_with_strategy.empty() || v == choice.end()) continue;
    if (strategy != t.only_with_strategy && v->second != t.plain)
      spec.source->fail(t.pointer,
                        fmt::format("{} = {} with strategy {}: only the {} strategy has it", t.name, to_string(v->second), strategy, t.only_with_strategy),
                        fmt::format("{} = {}, or strategy {}", t.name, to_string(t.plain), t.only_with_strategy));
    if (strategy == t.only_with_strategy && !std::count(t.values.begin(), t.values.end(), v->second)) {
      std::vector<std::string> vals;
      for (const auto& x : t.values) vals.push_back(to_string(x));
      spec.source->fail(t.pointer, fmt::format("{} = {} with strategy {}: not one of its values", t.name, to_string(v->second), strategy),
                        fmt::format("one of: {}", fmt::join(vals, ", ")));
    }
  }
}

long long tunable_int(const TunableChoice& c, const std::string& name) { return std::get<long long>(c.at(name)); }
const std::string& tunable_string(const TunableChoice& c, const std::string& name) { return std::get<std::string>(c.at(name)); }

std::string describe(const std::vector<TunableDecl>& decls, const TunableChoice& c) {
  std::string s;
  for (const auto& d : decls) s += (s.empty() ? "" : " ") + d.name + "=" + to_string(c.at(d.name));
  return s;
}

}  // namespace gpen
