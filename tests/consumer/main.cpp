#include <cstdio>

#include <gpen/generator/codegen.hpp>
#include <gpen/runtime/kernel_cache.hpp>
#include <gpen/families/common/spec_program.hpp>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const gpen::Spec s = gpen::load_spec(argv[1]);
  const gpen::Variant g = gpen::generate(s, s.choose());
  std::printf("%s: %zu bytes of CUDA, key %s\n", g.name.c_str(), g.source.size(), gpen::cache_key(gpen::source_program(g, s.name).identity, "sm_90").substr(0, 12).c_str());
  return 0;
}
