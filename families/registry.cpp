// The one list of kernel families: kind -> Family. A new family is its
// files plus one line here (and its kind in the spec format).
#include <algorithm>

#include "gpen/generator/error.hpp"
#include "gpen/generator/family.hpp"

namespace gpen {

const Family& stencil_family();
const Family& scan_family();
const Family& sbp_family();
const Family& pairwise_family();

const std::vector<const Family*>& families() {
  static const std::vector<const Family*> all = {&stencil_family(), &scan_family(), &sbp_family(), &pairwise_family()};
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
