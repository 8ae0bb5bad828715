// The stencil kernels' argument block: the one definition, included by the
// generated units (NVRTC) and by the host (families/stencil/stencil_kernel.cpp).
// Its arrays are as long as the spec has fields and params, which the host
// knows only at run time: it writes the block by stencil_args_layout(),
// which it checks against StencilArgsOf for many counts. Plain types only,
// no includes.
#pragma once

namespace gpen {

struct Extent {
  int nx, ny, nz;  // interior points per kernel axis
};

// Pointers, one per field, each at the first element of its padded array
// (ghosts included); each field's pitch in elements, [0] between rows (y),
// [1] between planes (z): packed, or the caller's padding; the interior's
// extent; the params.
template <class real, int NumIn, int NumOut, int NumParams>
struct StencilArgsOf {
  const real* in[NumIn > 0 ? NumIn : 1];
  real* out[NumOut];
  long long in_pitch[NumIn > 0 ? NumIn : 1][2];
  long long out_pitch[NumOut][2];
  Extent n;
  real params[NumParams > 0 ? NumParams : 1];
};

// Where StencilArgsOf<real, num_in, num_out, num_params> puts its members,
// in bytes, with real_bytes = sizeof(real): C++'s rule for a struct of
// these members (each at the next multiple of its alignment; the whole a
// multiple of the largest, a pointer's).
struct StencilArgsLayout {
  unsigned long long in, out, in_pitch, out_pitch, extent, params, size;
};

constexpr StencilArgsLayout stencil_args_layout(int num_in, int num_out, int num_params, int real_bytes) {
  const unsigned long long pointer = sizeof(void*), rb = static_cast<unsigned long long>(real_bytes);
  StencilArgsLayout l{};
  l.in = 0;
  l.out = pointer * static_cast<unsigned long long>(num_in > 0 ? num_in : 1);
  l.in_pitch = l.out + pointer * static_cast<unsigned long long>(num_out);
  l.out_pitch = l.in_pitch + 2 * sizeof(long long) * static_cast<unsigned long long>(num_in > 0 ? num_in : 1);
  l.extent = l.out_pitch + 2 * sizeof(long long) * static_cast<unsigned long long>(num_out);
  l.params = (l.extent + sizeof(Extent) + rb - 1) / rb * rb;
  const unsigned long long end = l.params + rb * static_cast<unsigned long long>(num_params > 0 ? num_params : 1);
  l.size = (end + pointer - 1) / pointer * pointer;
  return l;
}

}  // namespace gpen
