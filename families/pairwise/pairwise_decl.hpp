// The "pairwise" object of a pairwise spec, and the pair values it makes
// readable to the expressions read after it. Family::read of the
// family: called by the spec reader after the fields.
#pragma once

#include "gpen/generator/spec_reading.hpp"

namespace gpen {

void read_pairwise(SpecReading& in);

}  // namespace gpen
