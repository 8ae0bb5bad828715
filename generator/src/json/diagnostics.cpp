#include "gpen/generator/diagnostics.hpp"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

namespace gpen {
namespace {

thread_local int counting_depth = 0;

// Optimal string alignment distance of a and b, or more than `most` when it
// exceeds it: once a row's least entry does, no later row's can be less.
std::size_t edit_distance(const std::string& a, const std::string& b, std::size_t most) {
  const std::size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > most) return most + 1;
  std::vector<std::size_t> before(m + 1), prev(m + 1), row(m + 1);
  for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    row[0] = i;
    std::size_t least = row[0];
    for (std::size_t j = 1; j <= m; ++j) {
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
      least = std::min(least, row[j]);
    }
    if (least > most) return most + 1;
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return prev[m];
}

}  // namespace

CountingOnly::CountingOnly() { ++counting_depth; }
CountingOnly::~CountingOnly() { --counting_depth; }
bool CountingOnly::active() { return counting_depth > 0; }

void Diagnostics::record(const SpecError& e) {
  if (full()) {
    ++not_shown_;
    return;
  }
  kept_.push_back(e);
  if (full()) counting_.emplace();
}

void Diagnostics::throw_if_any() {
  counting_.reset();
  if (empty()) return;
  GPEN_INTERNAL_CHECK(!kept_.empty(), "errors counted but none kept");
  // Document order; an error without a position (none so far) last.
  std::stable_sort(kept_.begin(), kept_.end(), [](const SpecError& a, const SpecError& b) {
    const auto key = [](const SpecError& e) { return std::make_pair(e.line() > 0 ? e.line() : INT_MAX, e.column()); };
    return key(a) < key(b);
  });
  throw SpecErrors(kept_, not_shown_);
}

std::optional<std::string> closest_name(const std::string& typo, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const auto& c : candidates) {
    const std::size_t n = std::max(typo.size(), c.size());
    if (n == 0 || c == typo) continue;
    const std::size_t most = std::min(std::max<std::size_t>(1, n / 3), n - 1);
    const std::size_t d = edit_distance(typo, c, most);
    if (d <= most && (!best || d < best_distance)) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

namespace {

std::string did_you_mean(const std::optional<std::string>& name) { return name ? "; did you mean '" + *name + "'?" : std::string(); }

}  // namespace

std::string did_you_mean(const std::string& typo, const std::vector<std::string>& candidates) {
  return CountingOnly::active() ? std::string() : did_you_mean(closest_name(typo, candidates));
}

std::set<std::string> record_unknown_keys(const nlohmann::json& j, const std::string& ptr, const std::vector<std::string>& known,
                                          const JsonSource& src, Diagnostics& diag) {
  std::vector<std::string> absent;
  for (const auto& k : known)
    if (!j.contains(k)) absent.push_back(k);
  std::set<std::string> meant;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (std::count(known.begin(), known.end(), it.key())) continue;
    if (diag.full()) {
      diag.count_one();
      continue;
    }
    const auto guess = closest_name(it.key(), absent);
    if (guess) meant.insert(*guess);
    diag.unit([&] {
      src.fail(json_pointer_join(ptr, it.key()), fmt::format("unknown key '{}'{}", it.key(), did_you_mean(guess)),
               fmt::format("one of: {}", fmt::join(known, ", ")), true);
    });
  }
  return meant;
}

}  // namespace gpen
