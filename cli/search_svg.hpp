// The picture of a search (`gpen tune --plot FILE.svg`).
#pragma once

#include <string>

#include "gpen/measure/tune/tune.hpp"

namespace gpen::cli {

// Time of every evaluated variant (dots; failures as crosses on the axis)
// and the best time so far (a line), against the evaluation number.
std::string search_svg(const TuneResult& r, const std::string& title);

}  // namespace gpen::cli
