// The progress line of a search (gpen tune, and gpen.tune in Python):
// "  37/2000  2.1/s  ETA 3m05s  best 88.1% of copy  2 failed".
#pragma once

#include <optional>
#include <string>

#include "gpen/measure/tune/tune.hpp"

namespace gpen::cli {

class TuneProgressText {
 public:
  // `time_limit_s` (0: none) bounds the ETA.
  explicit TuneProgressText(double time_limit_s) : limit_(time_limit_s) {}
  std::string operator()(const TunedVariant& v, const TuneProgress& p);

 private:
  double limit_;
  std::size_t resumed_ = 0;
  std::optional<double> first_;  // elapsed at the first evaluation: setup left out of the rate
};

}  // namespace gpen::cli
