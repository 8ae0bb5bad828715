#include "spec_harness.hpp"

#include <cstdint>
#include <memory>
#include <string>

#include "gpen/generator/codegen.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/simulate/program.hpp"

namespace gpen::fuzz {
namespace {

// FNV-1a: picks, from the input alone, which extra variant it exercises, so
// that a finding reproduces from its bytes.
std::uint64_t fingerprint(std::string_view bytes) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
  return h;
}

template <class Fn>
void expecting_spec_errors(Fn fn) {
  try {
    fn();
  } catch (const SpecError&) {
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
  const std::uint64_t pick = fingerprint(bytes);
  const nlohmann::json& root = src->root();
  if (root.is_object() && root.contains("kind") && root["kind"] == "program") {
    // A program: read whole (its kernel specs from specs/programs/'s
    // neighbours), then every expression evaluated at a point.
    expecting_spec_errors([&] {
      const sim::Program p = sim::parse_program(src, GPEN_SOURCE_DIR "/specs/programs");
      std::vector<double> env(3, 0.5);
      for (const sim::ProgramParam& q : p.params) env.push_back(q.value);
      env.push_back(3.14159);
      for (const sim::ProgramField& f : p.fields) (void)f.init(env.data());
      const std::vector<double> values = p.param_values();
      for (const sim::RhsKernel& r : p.rhs)
        for (const sim::ScalarExpr& e : r.use.param) (void)e(values.data());
      (void)p.time_step.diffusivity(values.data());
    });
    return;
  }
  expecting_spec_errors([&] {
    const Spec s = parse_spec(src);
    expecting_spec_errors([&] { generate(s, s.choose()); });
    if (const TunableDecl* strategy = s.find_tunable("strategy")) {
      const TunableValue& v = strategy->values[(pick >> 1) % strategy->values.size()];
      expecting_spec_errors([&] { generate(s, s.choose({"strategy=" + to_string(v)})); });
    }
  });
  if (pick & 1) expecting_spec_errors([&] {
      const Spec s = parse_spec(src, Dtype::Float32);
      generate(s, s.choose());
    });
}

}  // namespace gpen::fuzz
