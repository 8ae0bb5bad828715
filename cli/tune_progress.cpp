#include "tune_progress.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "progress.hpp"

namespace gpen::cli {

std::string TuneProgressText::operator()(const TunedVariant& v, const TuneProgress& p) {
  if (v.resumed) ++resumed_;
  if (!first_) first_ = p.elapsed_s;
  const double measured = static_cast<double>(p.done - resumed_), spent = p.elapsed_s - *first_;
  const double rate = spent > 0.5 ? measured / spent : 0;
  double eta = rate > 0 ? (p.budget - p.done) / rate : -1;
  if (limit_ > 0) eta = eta < 0 ? limit_ - p.elapsed_s : std::min(eta, limit_ - p.elapsed_s);
  std::string s = fmt::format("  {}/{}  {:.1f}/s  ETA {}", p.done, p.budget, rate, format_duration(std::max(0.0, eta)));
  if (p.best && p.scale) s += "  best " + p.scale->progress(p.best->rate);
  if (p.failed) s += fmt::format("  {} failed", p.failed);
  if (p.refused) s += fmt::format("  {} refused (spills)", p.refused);
  return s;
}

}  // namespace gpen::cli
