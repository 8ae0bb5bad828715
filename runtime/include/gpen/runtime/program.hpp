// What the runtime compiles: one CUDA translation unit, the headers its
// #includes may name, and what its text is a function of. The runtime knows
// no spec: the families make Programs (families/common/spec_program.hpp),
// and the kernel cache keys them by `identity`, so that a hit prints nothing.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace gpen {

// Include name ("gpen/stencil_march.cuh") and text.
using HeaderList = std::vector<std::pair<std::string, std::string>>;

// The first parts of a kernel cache key (cache_key(CacheKeyParts)): what the
// text is a function of, known without printing it.
struct ProgramIdentity {
  std::string unit;       // "spec <hash> <choice>" (and the unit's key, Variant::key), or "source " and the text itself
  std::string templates;  // the hash of what the unit is made of or includes
  std::string generator;  // the fingerprint of the code that prints it; empty for a text given whole
};

struct Program {
  std::string name;         // the unit's file name in NVRTC's messages: "<spec>.<strategy>.cu"
  std::string kernel_name;  // extern "C" symbol
  std::string label;        // whom it serves (a spec's name): messages and cache listings
  ProgramIdentity identity;
  std::function<std::string()> source;  // called on a cache miss only
  std::function<HeaderList()> headers;  // likewise
};

}  // namespace gpen
