// The "sbp" object of an SBP spec (and its params). Family::read of the
// family: called by the spec reader after the fields.
#pragma once

#include "gpen/generator/spec_reading.hpp"

namespace gpen {

void read_sbp(SpecReading& in);

}  // namespace gpen
