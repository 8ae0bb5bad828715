// The "reduce" object of a reduction spec (axes, accumulation) and what it
// makes of the results. Family::read of the family: called by the spec reader
// after the fields, before the outputs.
#pragma once

#include "gpen/generator/spec_reading.hpp"

namespace gpen {

void read_reduce(SpecReading& in);

}  // namespace gpen
