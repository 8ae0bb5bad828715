// What the spec fuzzer does with one input, shared by the libFuzzer target
// (fuzz_spec.cpp) and the CPU suite (test_fuzz_corpus.cpp), which replays
// tests/fuzz/corpus/ so that every reproducer stays fixed.
#pragma once

#include <string_view>

namespace gpen::fuzz {

// Reads `bytes` as a spec and plans and generates its default variant and
// one strategy, as `gpen check` and `gpen gen` would; for half the inputs
// also the default variant with float32 forced (`--dtype`). Which strategy
// and whether float32 follow from the bytes alone, so that a finding
// reproduces. A program (kind "program") is read whole and its
// expressions evaluated. A SpecError is the expected answer to bad input; anything
// else escapes: an InternalError, another exception, a crash or a sanitizer
// report is a bug.
void run_spec_input(std::string_view bytes);

}  // namespace gpen::fuzz
