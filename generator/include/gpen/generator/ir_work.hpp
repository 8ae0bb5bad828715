// The work of a point's expressions, counted on the IR: the values read and
// the arithmetic (a linear combination of n terms as n multiply-adds, every
// other operation and math call as one), as written (each use of a shared
// let or repeated derivative counted again) and with every structurally
// equal subexpression counted once (what common-subexpression elimination
// would leave). `gpen check` reports both.
#pragma once

#include <vector>

#include "gpen/generator/ir.hpp"

namespace gpen {

struct IrWork {
  double reads = 0;         // accesses as written
  double distinct_reads = 0;  // distinct (field, offset) pairs
  double ops = 0;           // arithmetic as written
  double distinct_ops = 0;  // each structurally distinct subexpression once
};

IrWork ir_work(const std::vector<IrPtr>& roots);

}  // namespace gpen
