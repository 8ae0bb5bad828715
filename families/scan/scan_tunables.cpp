// The scan family's tunables: its table and what a scan of given axis,
// dimensions and dtype may choose. The rows layout (contiguous axis) has
// block_y rows a block and values a thread along the row; the columns
// layout has rows of threads across x, each walking the axis, and block_y
// groups of them stacked along it.
#include "gpen/families/common/tunable_offer.hpp"
#include "gpen/families/scan/scan_plan.hpp"

namespace gpen {

const std::vector<TunableRow<ScanPlan>>& scan_tunable_rows() {
  static const std::vector<TunableRow<ScanPlan>> rows = {
      {"block_x", "rows: threads along a row (whole warps); columns: threads across x", "kBlockX", "", &ScanPlan::block_x},
      {"block_y", "rows: rows a block; columns: groups of threads stacked along the axis", "kBlockY", "", &ScanPlan::block_y},
      {"values_per_thread", "values a thread scans along the axis", "kValuesPerThread", "", &ScanPlan::values_per_thread},
      {"vector_x", "values an access moves (rows: along the row; columns: adjacent columns)", "kVectorX", "", &ScanPlan::vector_x},
      {"prefetch_tiles", "rows split into tiles: tiles ahead a block prefetches into the L2", "kPrefetchTiles", "", &ScanPlan::prefetch_tiles},
      {"striped", "rows: 1 stripes a warp's accesses across its lanes, 0 gives a thread one run", "kStriped", "", &ScanPlan::striped},
      {"lookback_delay", "rows split into tiles: ns a block sleeps between its aggregate and its look-back", "kLookbackDelay", "",
       &ScanPlan::lookback_delay},
      {"stripes", "columns: parts of a plane that consecutive blocks are spread over (1: in order)", "", "", &ScanPlan::stripes},
      {"chained", "columns: 1 cuts the axis into layers, carries handed from layer to layer through the L2", "kChained", "", &ScanPlan::chained},
  };
  return rows;
}

std::vector<TunableOffer> scan_offers(const Spec& spec) {
  const auto& t = scan_tunable_rows();
  const bool rows = spec.scan().axis == 0;
  const long long vec = spec.dtype == Dtype::Float32 ? 4 : 2;
  std::vector<TunableOffer> b;
  // Defaults: the fastest variants on an H100. Short rows 128x2 threads,
  // 4 values each; one long row 256 threads, 32 float32 or 16 float64
  // values each, striped (fewer, larger segments to look back over)
  // (bench/RESULTS.md, "third session" and "seventh session"). Columns
  // 32 x 32 threads, 16 values each, 8-byte accesses: a block holds 512
  // steps of 32 columns at once, one block an SM ("tenth session";
  // cumsum_z.json chains layers of 8 steps in 32 x 16 threads instead,
  // "thirteenth session").
  const bool one_row = rows && spec.dims == 1;
  b.push_back(offer(row_of(t, &ScanPlan::block_x), {32LL, 64LL, 128LL, 256LL, 512LL}, one_row ? 256 : rows ? 128 : 32, 32, 1024));
  // One row takes no block_y.
  if (rows && spec.dims > 1) b.push_back(offer(row_of(t, &ScanPlan::block_y), {1LL, 2LL, 4LL, 8LL}, 2, 1, 32));
  else if (!rows) b.push_back(offer(row_of(t, &ScanPlan::block_y), {1LL, 2LL, 4LL, 8LL, 16LL, 32LL}, 32, 1, 1024));
  else b.push_back(offer(row_of(t, &ScanPlan::block_y), {1LL}, 1, 1, 1));
  // One row: 128 bytes a thread (32 float32 values; 32 float64 values take
  // too many registers and lose to 16: bench/RESULTS.md, "seventh session").
  const long long row_values = spec.dtype == Dtype::Float32 ? 32 : 16;
  b.push_back(offer(row_of(t, &ScanPlan::values_per_thread), {1LL, 2LL, 4LL, 8LL, 16LL, 32LL}, one_row ? row_values : rows ? 4 : 16, 1, 64));
  // Columns: 8 bytes an access (float32 x 4 loses along y: bench/RESULTS.md, "tenth session").
  const long long column_vec = spec.dtype == Dtype::Float32 ? 2 : 1;
  b.push_back(offer(row_of(t, &ScanPlan::vector_x), {1LL, 2LL, 4LL}, rows ? vec : column_vec, 1, 4));
  // A tunable of one layout only; the other has just `off`.
  auto layout_only = [&](bool applies, const TunableRow<ScanPlan>& r, std::vector<TunableValue> values, long long default_value, long long lo,
                         long long hi, long long off) {
    if (applies) b.push_back(offer(r, std::move(values), default_value, lo, hi));
    else b.push_back(offer(r, {off}, off, off, off));
  };
  // One long row: 128 and 256 alike, 512 and more lose (bench/RESULTS.md,
  // "sixth session" and "seventh session").
  layout_only(rows, row_of(t, &ScanPlan::prefetch_tiles), {0LL, 128LL, 256LL, 512LL, 1024LL}, one_row ? 256 : 0, 0, 1 << 20, 0);
  // Striped wins on one long row, runs on short rows (bench/RESULTS.md, "seventh session").
  layout_only(rows, row_of(t, &ScanPlan::striped), {0LL, 1LL}, one_row ? 1 : 0, 0, 1, 0);
  // As CUB does. One long row is fastest at 4000 ns in float32, 2000 in
  // float64 (bench/RESULTS.md, "seventh session").
  const long long row_delay = spec.dtype == Dtype::Float32 ? 4000 : 2000;
  layout_only(rows, row_of(t, &ScanPlan::lookback_delay), {0LL, 500LL, 1000LL, 2000LL, 4000LL, 8000LL}, one_row ? row_delay : 0, 0, 100000, 0);
  // Runs of 2 KiB of columns (scan_columns.cuh), so that the blocks in
  // flight read every part of a plane at once rather than one window of it.
  // Spreading lifts z of 512 x 480 x 512 float64 and leaves 512^3 as it was
  // (bench/RESULTS.md, "twelfth session").
  layout_only(!rows, row_of(t, &ScanPlan::stripes), {1LL, 4LL, 16LL, 64LL}, 16, 1, 1 << 20, 1);
  // Layers of values_per_thread steps, a block a layer of its columns
  // (scan_column_layers.cuh), so that the blocks in flight read a few whole
  // planes, where the carries fit in the L2 (else the unit walks,
  // ScanPlan::geometry). Chained wins along z and loses along y, hence 0
  // here and 1 in cumsum_z.json (bench/RESULTS.md, "thirteenth session").
  layout_only(!rows, row_of(t, &ScanPlan::chained), {0LL, 1LL}, 0, 0, 1, 0);
  return b;
}

}  // namespace gpen
