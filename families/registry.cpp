// kind -> Family, for the generator: the families of kinds.def. A new
// family is its folder plus one line there (and its kind in the spec format).
#include <algorithm>

#include "gpen/generator/error.hpp"
#include "gpen/generator/family.hpp"

namespace gpen {

#define GPEN_FAMILY(kind) const Family& kind##_family();
#include "kinds.def"
#undef GPEN_FAMILY

const std::vector<const Family*>& families() {
#define GPEN_FAMILY(kind) &kind##_family(),
  static const std::vector<const Family*> all = {
#include "kinds.def"
  };
#undef GPEN_FAMILY
  return all;
}

std::vector<std::string> family_kinds() {
  std::vector<std::string> out;
  for (const Family* f : families()) out.push_back(f->kind);
  return out;
}

const Family* find_family(const std::string& kind) {
  const auto& all = families();
  const auto it = std::find_if(all.begin(), all.end(), [&](const Family* f) { return kind == f->kind; });
  return it == all.end() ? nullptr : *it;
}

const Family& family_of(const Spec& spec) {
  const Family* f = find_family(spec.kind);
  GPEN_INTERNAL_CHECK(f, "spec '" + spec.name + "' of kind '" + spec.kind + "', which no family has");
  return *f;
}

}  // namespace gpen
