// Common subexpressions of IR: structurally equal subexpressions (the same
// derivative of the same field written in two outputs, say) made one node,
// which the CUDA printer then computes once (it computes a node reached
// along several paths into a temporary); and the work of a point's
// expressions, counted as written and with that sharing. `gpen check`
// reports both counts.
#pragma once

#include <vector>

#include "gpen/generator/ir.hpp"

namespace gpen {

// `roots` with every structurally equal subexpression one shared node (the
// first met, in root order). Values are unchanged: equal structure is equal
// arithmetic, constants compared exactly.
std::vector<IrPtr> share_common_subexpressions(const std::vector<IrPtr>& roots);

// The values read and the arithmetic (a linear combination of n terms as n
// multiply-adds, every other operation and math call as one), as written
// (each use of a shared let or a repeated derivative counted again) and
// with every structurally equal subexpression once.
struct IrWork {
  double reads = 0;           // accesses as written
  double distinct_reads = 0;  // distinct (field, offset) pairs
  double ops = 0;             // arithmetic as written
  double distinct_ops = 0;    // each structurally distinct subexpression once
  // With common work once, as instructions: the adds, multiplies and fused
  // multiply-adds of the FMA pipes (a linear combination of n terms n; a
  // product fused where it is, at every use, the first product of a sum or
  // difference, since an FMA takes one; negations and abs folded into their
  // use; fma() one), and apart the divisions and the other math calls,
  // which take several instructions or another unit.
  double fma_pipe = 0;
  double divisions_and_calls = 0;
};
IrWork ir_work(const std::vector<IrPtr>& roots);

}  // namespace gpen
