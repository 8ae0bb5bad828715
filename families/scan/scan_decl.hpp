// The "scan" object of a scan spec: its axis, operator and identity. Family::read of the
// family: called by the spec reader after the fields.
#pragma once

#include "gpen/generator/spec_reading.hpp"

namespace gpen {

void read_scan(SpecReading& in);

}  // namespace gpen
