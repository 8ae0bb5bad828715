// Spec + tunables -> one CUDA translation unit: a banner, the bindings the
// templates specialise on, and one extern "C" kernel.
#pragma once

#include <string>

#include "gpen/generator/pairwise_plan.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/generator/sbp_plan.hpp"
#include "gpen/generator/scan_plan.hpp"
#include "gpen/generator/stencil_plan.hpp"

namespace gpen {

struct GeneratedSource {
  std::string name;         // "<spec>.<strategy>.cu", for messages and golden files
  std::string kernel_name;  // extern "C" symbol
  std::string source;       // includes "gpen/*.cuh" (see template_headers())
  TunableChoice choice;
  StencilPlan plan;    // kind "stencil"
  ScanPlan scan_plan;  // kind "scan"
  SbpPlan sbp_plan;    // kind "sbp"
  PairwisePlan pairwise_plan;  // kind "pairwise"
};

// Any kind: dispatches on spec.kind.
GeneratedSource generate(const Spec& spec, const TunableChoice& choice);
GeneratedSource generate_scan(const Spec& spec, const TunableChoice& choice);
GeneratedSource generate_sbp(const Spec& spec, const TunableChoice& choice);
GeneratedSource generate_pairwise(const Spec& spec, const TunableChoice& choice);

// The periodic ghost-fill kernel for arrays of `dtype` (kernel "gpen_periodic_fill_<dtype>").
GeneratedSource generate_periodic_fill(Dtype dtype);

// The comparison of two padded arrays on the GPU (kernel "gpen_compare_<dtype>").
GeneratedSource generate_compare(Dtype dtype);

}  // namespace gpen
