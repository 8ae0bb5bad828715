// Asynchronous copies from global to shared memory (cp.async, sm_80 and
// newer), with a plain copy in their place before: the only place gpen's
// kernels name these instructions.
#pragma once

namespace gpen {
namespace arch {

// kBytes (4, 8 or 16) from global to shared memory; 16 bytes bypass the L1.
template <int kBytes>
__device__ __forceinline__ void copy_async(void* dst, const void* src) {
#if __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (kBytes == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(src), "n"(kBytes) : "memory");
#else
  if constexpr (kBytes == 16) *static_cast<int4*>(dst) = __ldg(static_cast<const int4*>(src));
  else if constexpr (kBytes == 8) *static_cast<int2*>(dst) = __ldg(static_cast<const int2*>(src));
  else *static_cast<int*>(dst) = __ldg(static_cast<const int*>(src));
#endif
}

// Closes this thread's group of copies issued since the last commit.
__device__ __forceinline__ void copy_async_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Until at most kPending of this thread's newest commit groups are in flight.
template <int kPending>
__device__ __forceinline__ void copy_async_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

}  // namespace arch
}  // namespace gpen
