#include "spec_harness.hpp"

#include <memory>
#include <string>

#include "gpen/generator/codegen.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen::fuzz {
namespace {

void generate_variants(const Spec& s, bool every_strategy) {
  try {
    generate(s, s.choose());
  } catch (const SpecError&) {
  }
  const TunableDecl* strategy = s.find_tunable("strategy");
  if (!strategy || !every_strategy) return;
  for (const auto& v : strategy->values) {
    try {
      generate(s, s.choose({"strategy=" + to_string(v)}));
    } catch (const SpecError&) {
    }
  }
}

}  // namespace

void run_spec_input(std::string_view bytes) {
  std::shared_ptr<const JsonSource> src;
  try {
    src = std::make_shared<JsonSource>(JsonSource::from_string(std::string(bytes), "fuzz.json"));
  } catch (const SpecError&) {
    return;
  }
  // As written, every strategy; float32 forced, the default variant.
  for (const std::optional<Dtype> dtype : {std::optional<Dtype>(), std::optional<Dtype>(Dtype::Float32)}) {
    try {
      generate_variants(parse_spec(src, dtype), !dtype);
    } catch (const SpecError&) {
    }
  }
}

}  // namespace gpen::fuzz
