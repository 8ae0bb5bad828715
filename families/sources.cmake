# The kernel families' sources, read by the top-level CMakeLists.txt before
# the libraries are made. Each family's generator half (its declaration,
# tunable table, plan and unit printer: no CUDA) is compiled into
# gpen::generator, its runtime half (kernel, CPU reference, problem) into
# gpen::families. A new family adds its two lists here and one line to
# families/kinds.def (both registries are made from it). Its device/ folder (args.h, unit template, .cuh) is
# found by generator/CMakeLists.txt.
set(GPEN_FAMILY_GENERATOR_SOURCES
  registry.cpp common/utility_units.cpp
  pairwise/pairwise_decl.cpp scan/scan_decl.cpp sbp/sbp_decl.cpp
  stencil/stencil_tunables.cpp stencil/stencil_mixed.cpp stencil/stencil_plan.cpp stencil/stencil_codegen.cpp stencil/stencil_family.cpp
  scan/scan_tunables.cpp scan/scan_plan.cpp scan/scan_codegen.cpp scan/scan_family.cpp
  sbp/sbp_check.cpp sbp/sbp_tunables.cpp sbp/sbp_plan.cpp sbp/sbp_codegen.cpp sbp/sbp_family.cpp
  pairwise/pairwise_scope.cpp pairwise/pair_cost.cpp pairwise/pairwise_tunables.cpp pairwise/pairwise_plan.cpp pairwise/pairwise_codegen.cpp pairwise/pairwise_family.cpp
  reduce/reduce_decl.cpp reduce/reduce_tunables.cpp reduce/reduce_plan.cpp reduce/reduce_codegen.cpp reduce/reduce_family.cpp)
set(GPEN_FAMILY_RUNTIME_SOURCES
  runtime_registry.cpp
  common/host_array.cpp common/point_values.cpp common/device_buffer.cpp common/spec_program.cpp common/kernel.cpp common/device_compare.cpp common/ghost_fill.cpp common/tuning_key.cpp
  common/workload.cpp common/grid_run.cpp common/roofline.cpp common/problem.cpp
  stencil/stencil_kernel.cpp stencil/stencil_reference.cpp stencil/stencil_runtime.cpp
  scan/scan_kernel.cpp scan/scan_reference.cpp scan/scan_runtime.cpp
  sbp/sbp_kernel.cpp sbp/sbp_reference.cpp sbp/sbp_runtime.cpp
  pairwise/pairwise_kernel.cpp pairwise/pair_slices.cpp pairwise/pairwise_reference.cpp pairwise/pairwise_run.cpp pairwise/pairwise_runtime.cpp
  reduce/reduce_kernel.cpp reduce/reduce_reference.cpp reduce/reduce_runtime.cpp)
list(TRANSFORM GPEN_FAMILY_GENERATOR_SOURCES PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
list(TRANSFORM GPEN_FAMILY_RUNTIME_SOURCES PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
