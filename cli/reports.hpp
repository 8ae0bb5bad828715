// What run, bench and survey report of a measured variant, as `--json`
// gives it (docs/json.md).
#pragma once

#include <optional>

#include "json_output.hpp"
#include "gpen/families/common/problem.hpp"

namespace gpen::cli {

Json verify_json(const std::optional<Comparison>& c);

// What `--json` says of a variant run by run and bench (docs/json.md): the
// facts, the time, the work and rate in the problem's names, the check.
Json report_json(const Problem& p, const Measurement& m, int repeat);

// gpen.run/1: one run's report, with the bound it is measured against.
Json run_document(const DeviceInfo& d, const Problem& p, const Measurement& m, int repeat);

}  // namespace gpen::cli
