// What a spec may ask for. Each limit is checked before the work it bounds,
// and a spec past one is refused with its position and the limit, so that a
// hostile or mistaken spec costs bounded time and memory and never the
// stack. specs/README.md ("Limits") lists them for users; a test keeps the
// two in step.
#pragma once

#include <cstddef>

namespace gpen {

constexpr std::size_t kMaxSpecBytes = 4u << 20;  // a spec file
constexpr int kMaxJsonDepth = 64;                // nested arrays and objects
constexpr std::size_t kMaxJsonValues = 65536;    // values (and keys) of a spec's JSON, each remembered with its position
constexpr std::size_t kMaxJsonPointer = 512;     // characters of a value's JSON pointer (keys are part of it)
constexpr std::size_t kMaxNumberChars = 64;      // characters of one number or fraction
constexpr std::size_t kMaxExprChars = 16384;     // one expression, let or constraint string
constexpr int kMaxExprDepth = 200;               // nested operators, calls and parentheses in one expression
constexpr std::size_t kMaxIrUnits = 50000;       // IR nodes and linear terms the lowering of one expression may build
constexpr int kMaxIrDepth = 1000;                // nesting of one lowered expression (operators add sums)
constexpr std::size_t kMaxFields = 64;           // fields of a spec
constexpr std::size_t kMaxParams = 64;           // params of a spec
constexpr std::size_t kMaxOperators = 64;        // operators of a stencil spec
constexpr std::size_t kMaxOperatorPoints2d = 289;  // points of a 2-D operator (17 x 17)
constexpr std::size_t kMaxLets = 256;            // lets of a spec
constexpr std::size_t kMaxConstraints = 64;      // constraints of a spec
constexpr std::size_t kMaxTunableValues = 64;    // values one tunable lists
constexpr std::size_t kMaxSbpRows = 16;          // closure rows a side of an SBP operator
constexpr std::size_t kMaxSbpWidth = 33;         // coefficients of one SBP row, interior or boundary derivative
constexpr std::size_t kMaxErrors = 20;           // errors of one spec built and shown; past them, only counted

}  // namespace gpen
