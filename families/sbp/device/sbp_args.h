// The SBP kernel's argument block: the one definition, included by the
// generated unit (NVRTC, real = float or double) and by the host
// (families/sbp/sbp_kernel.cpp, real = void: the pointers are the device's).
// Plain types only, no includes.
#pragma once

namespace gpen {

template <class real>
struct SbpArgs {
  const real* in;
  real* out;
  long long n[3];    // points along x, y, z (1 for axes the array lacks)
  long long in_pitch[2], out_pitch[2];  // elements between rows (y), planes (z)
  double scale[3];   // 1 / h^derivative per axis; 0 where the operator is not applied
};

}  // namespace gpen
