// Spec + tunables -> one CUDA translation unit: a banner, the bindings the
// templates specialise on, and one extern "C" kernel.
#pragma once

#include <any>
#include <cstddef>
#include <string>

#include "gpen/generator/error.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

// A variant of a spec: a choice of its tunables, the family's plan of it,
// the unit's and kernel's names and, once printed, its source. Planned once
// (plan_unit) and passed on: compiled (spec_program), launched (make_kernel)
// and measured (Problem::measure) as it is.
struct Variant {
  std::string name;         // "<spec>.<strategy>.cu", for messages and golden files
  std::string kernel_name;  // extern "C" symbol
  std::string source;       // includes "gpen/*.cuh" (see template_headers()); empty until print_unit
  TunableChoice choice;
  std::any plan;  // the family's plan (StencilPlan, ScanPlan, ...): plan_as<P>()
  // What the text depends on besides the spec and the choice: empty for
  // the plan of a choice, else a word that tells another unit of the same
  // choice apart (its kernel cache key).
  std::string key;

  // The plan as the family that made it knows it; InternalError for another type.
  template <class Plan>
  const Plan& plan_as() const {
    const Plan* p = std::any_cast<Plan>(&plan);
    GPEN_INTERNAL_CHECK(p, "unit '" + name + "' holds another family's plan");
    return *p;
  }
};

// A family's plan of `choice` as a Variant, source not printed yet: the
// unit "<spec>.<what>.cu" ("laplacian3d_o8.march") of the plan's kernel.
template <class Plan>
Variant planned_variant(const Spec& spec, const TunableChoice& choice, Plan plan, const std::string& what) {
  Variant v;
  v.name = spec.name + "." + what + ".cu";
  v.kernel_name = plan.kernel_name;
  v.choice = choice;
  v.plan = std::move(plan);
  return v;
}

// The first lines of every unit's banner: the spec it is generated from
// (edit that, not the unit), its hash and the tunables chosen. A family's
// banner goes on with what its kind computes.
std::string banner_head(const Spec& spec, const TunableChoice& choice);

// Any kind, through its family: plan_unit, then print_unit.
Variant generate(const Spec& spec, const TunableChoice& choice);

// generate() in its two halves, so that a kernel cache hit prints nothing:
// plan_unit is the cheap one (the plan, the unit's and kernels' names, the
// choice; it throws what generate() throws for a choice the plan refuses),
// print_unit the costly one (expressions printed, templates filled): it
// sets unit.source, for `unit` as plan_unit(spec, choice) returned it.
Variant plan_unit(const Spec& spec, const TunableChoice& choice);
void print_unit(const Spec& spec, Variant& unit);
// How many units print_unit has printed in this process (tests use it to
// see that a warm cache hit printed none).
std::size_t units_printed();

// SHA-256 of the generator's sources and the templates (generator/src,
// generator/include, the families' generator halves and headers, the
// embedded templates), computed at build time by cmake/embed_templates.cmake
// whenever one of them changes. The kernel cache keys a spec's kernel on
// it rather than on the generated text: a generator edited without a
// version bump makes other kernels, so its entries must miss.
const char* generator_fingerprint();


}  // namespace gpen
