// Relaxed GPU-scope loads and stores of 8 and 16 bytes (one access each, so
// that a flag and its value are seen together with no fence), the L2
// policies some of them carry (sm_80 and newer; plain accesses before), and
// an L2 prefetch: the only place gpen's kernels name these instructions.
#pragma once

namespace gpen {
namespace arch {

__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long x) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(x) : "memory");
}
__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long a, unsigned long long b) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}
__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
  unsigned long long x;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(x) : "l"(p) : "memory");
  return x;
}
__device__ __forceinline__ void load_relaxed(const unsigned long long* p, unsigned long long& a, unsigned long long& b) {
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}

// L2 cache policies are sm_80's.
#if __CUDA_ARCH__ >= 800
#define GPEN_L2_HINTS 1
#else
#define GPEN_L2_HINTS 0
#endif

// An L2 policy that evicts these lines last (0, unused, without hints).
__device__ __forceinline__ unsigned long long evict_last_policy() {
  unsigned long long policy = 0;
#if GPEN_L2_HINTS
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#endif
  return policy;
}

// store_relaxed and load_relaxed of a 16-byte pair under an L2 policy.
__device__ __forceinline__ void store_relaxed_kept(void* p, unsigned long long a, unsigned long long b, unsigned long long policy) {
#if GPEN_L2_HINTS
  asm volatile("st.relaxed.gpu.global.L2::cache_hint.v2.u64 [%0], {%1, %2}, %3;" ::"l"(p), "l"(a), "l"(b), "l"(policy) : "memory");
#else
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
  (void)policy;
#endif
}
__device__ __forceinline__ void load_relaxed_kept(const void* p, unsigned long long& a, unsigned long long& b, unsigned long long policy) {
#if GPEN_L2_HINTS
  asm volatile("ld.relaxed.gpu.global.L2::cache_hint.v2.u64 {%0, %1}, [%2], %3;" : "=l"(a), "=l"(b) : "l"(p), "l"(policy) : "memory");
#else
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
  (void)policy;
#endif
}

// The 128-byte line at p may leave the L2 like any other again.
__device__ __forceinline__ void evict_normal(const void* p) {
#if GPEN_L2_HINTS
  asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(p) : "memory");
#else
  (void)p;
#endif
}

// Asks the L2 for the line at p ahead of its use; loads nothing into registers.
__device__ __forceinline__ void prefetch_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

}  // namespace arch
}  // namespace gpen
