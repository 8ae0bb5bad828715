// kind -> RuntimeFamily: the families of kinds.def, as the runtime sees them.
#include <algorithm>
#include <vector>

#include "gpen/families/common/runtime_family.hpp"
#include "gpen/generator/error.hpp"

namespace gpen {

#define GPEN_FAMILY(kind) const RuntimeFamily& kind##_runtime();
#include "kinds.def"
#undef GPEN_FAMILY

const RuntimeFamily& runtime_family_of(const Spec& spec) {
#define GPEN_FAMILY(kind) &kind##_runtime(),
  static const std::vector<const RuntimeFamily*> all = {
#include "kinds.def"
  };
#undef GPEN_FAMILY
  const auto it = std::find_if(all.begin(), all.end(), [&](const RuntimeFamily* f) { return spec.kind == f->kind(); });
  GPEN_INTERNAL_CHECK(it != all.end(), "spec '" + spec.name + "' of kind '" + spec.kind + "', which no family has");
  return **it;
}

}  // namespace gpen
