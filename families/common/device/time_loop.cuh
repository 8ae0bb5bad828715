// The kernels of a program's time loop on the GPU (simulate/gpu_backend.cpp):
// boundary conditions, rk4's updates (2N-storage schemes update in their
// right-hand sides' stores: simulate/fused_update.hpp) and the search for a
// non-finite value. Each works on one padded array (pitches
// in elements, `g` ghost points on each axis the array has) and matches
// the CPU's model (simulate/boundaries.cpp, cpu_backend.cpp) value for value.
#pragma once

namespace gpen {

// Boundary kinds, as simulate/program.hpp numbers them.
enum : int { kPeriodic = 0, kSymmetric = 1, kAntisymmetric = 2, kValue = 3, kNone = 4 };

struct PaddedArray {
  long long n[3];          // interior
  long long row, plane;    // pitches
  int dims, g;
  __device__ __forceinline__ long long at(long long i, long long j, long long k) const {
    const long long gy = dims > 1 ? g : 0, gz = dims > 2 ? g : 0;
    return (i + g) + row * (j + gy) + plane * (k + gz);
  }
  __device__ __forceinline__ long long range(int axis) const { return axis < dims ? n[axis] + 2 * g : 1; }
  __device__ __forceinline__ long long first(int axis) const { return axis < dims ? -g : 0; }
};

// One face (axis, side) of one array: its ghost layers, and for the
// antisymmetric and value kinds its boundary point, over the whole padded
// extent of the other two axes. A thread a ghost point: the point m past
// the boundary point bp of a line across the face. Across x a line's ghost
// points are contiguous, and consecutive threads take them (m fastest), so
// that a warp stores whole runs rather than a partial sector per line and
// m; across y and z consecutive threads take consecutive lines (x fastest)
// for each m. A ghost point's value comes from the interior, never from the
// boundary point the antisymmetric and value kinds write (mirrors are
// m >= 1 away from it); the two faces of an axis share a launch only where
// neither reads what the other writes (the host checks n > 2 g + 1).
// Index is 32-bit where the face's points fit.
template <class real, class Index>
__device__ void boundary_points(real* a, const PaddedArray& p, int axis, int side, int kind, double value) {
  const int ua = axis == 0 ? 1 : 0, va = axis == 2 ? 1 : 2;
  // A thread a ghost point, and one a line without ghosts (its boundary point).
  const Index nu = static_cast<Index>(p.range(ua)), lines = nu * static_cast<Index>(p.range(va)), g = static_cast<Index>(p.g > 0 ? p.g : 1);
  const long long n = p.n[axis], stride = axis == 0 ? 1 : axis == 1 ? p.row : p.plane;
  const long long bp = side == 0 ? 0 : n - 1, out = side == 0 ? -1 : 1;
  // Grid-stride over x alone: y and z may pick the array and the side.
  if (kind == kNone) return;  // the right-hand side closes the boundary itself
  for (Index t = blockIdx.x * blockDim.x + threadIdx.x; t < lines * g; t += gridDim.x * blockDim.x) {
    const Index line = axis == 0 ? t / g : t % lines;
    const long long m = 1 + (axis == 0 ? t % g : t / lines);
    long long c[3];
    c[ua] = p.first(ua) + line % nu;
    c[va] = p.first(va) + line / nu;
    c[axis] = bp;
    real* const b = a + p.at(c[0], c[1], c[2]);  // the boundary point; b[x * stride] is bp + x along the axis
    if (m == 1 && kind == kAntisymmetric) b[0] = real(0);
    if (m == 1 && kind == kValue) b[0] = real(value);
    if (m > p.g) continue;  // a line without ghosts: its boundary point alone
    real v;
    if (kind == kPeriodic) {
      long long src = bp + out * m;  // the ghost point, wrapped into the interior
      while (src < 0) src += n;
      while (src >= n) src -= n;
      v = b[(src - bp) * stride];
    } else {
      const real mirror = b[-out * m * stride];
      v = kind == kSymmetric ? mirror : kind == kAntisymmetric ? -mirror : real(2 * value) - mirror;
    }
    b[out * m * stride] = v;
  }
}

template <class real>
__device__ void boundary_face(real* a, const PaddedArray& p, int axis, int side, int kind, double value) {
  const int ua = axis == 0 ? 1 : 0, va = axis == 2 ? 1 : 2;
  const long long points = p.range(ua) * p.range(va) * (p.g > 0 ? p.g : 1) + (long long)gridDim.x * blockDim.x;
  if (points < 0x7fffffffLL) boundary_points<real, unsigned>(a, p, axis, side, kind, value);
  else boundary_points<real, unsigned long long>(a, p, axis, side, kind, value);
}

// The faces of one axis of up to kMaxFaceFields arrays, in one launch:
// blockIdx.y picks the array, blockIdx.z the side (side0 + blockIdx.z).
// Both sides at once only where they touch no common point: more than
// 2 g + 1 interior points along the axis (the host checks).
constexpr int kMaxFaceFields = 16;
struct AxisFaces {
  void* a[kMaxFaceFields];
  PaddedArray p[kMaxFaceFields];
  int kind[kMaxFaceFields][2];
  double value[kMaxFaceFields][2];
};

template <class real>
__device__ void boundary_axis(const AxisFaces& f, int axis, int side0) {
  const int i = blockIdx.y, side = side0 + blockIdx.z;
  boundary_face<real>(static_cast<real*>(f.a[i]), f.p[i], axis, side, f.kind[i][side], f.value[i][side]);
}

// A thread per interior point: fn(offset in f's array, offset in a packed
// interior array), x fastest.
template <class Fn>
__device__ __forceinline__ void for_interior(const PaddedArray& p, Fn&& fn) {
  const long long total = p.n[0] * p.n[1] * p.n[2];
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    const long long i = t % p.n[0], j = (t / p.n[0]) % p.n[1], k = t / (p.n[0] * p.n[1]);
    fn(p.at(i, j, k), t);
  }
}

// Products and sums rounded one at a time, never fused: the CPU reference
// (simulate/cpu_backend.cpp) rounds them so, and the updates match it value
// for value.
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }

// dst = src over the whole padded arrays (ghosts included): two arrays of
// one shape and ghost width, each with its pitches.
template <class real>
__device__ void copy_padded(const real* src, const PaddedArray& ps, real* dst, const PaddedArray& pd) {
  const long long nx = ps.range(0), ny = ps.range(1), total = nx * ny * ps.range(2);
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    const long long i = ps.first(0) + t % nx, j = ps.first(1) + (t / nx) % ny, k = ps.first(2) + t / (nx * ny);
    dst[pd.at(i, j, k)] = src[ps.at(i, j, k)];
  }
}

// Classic RK4: acc = (first ? 0 : acc) + weight k; f = f0 + dt (last ? acc : next k).
template <class real>
__device__ void update_rk4(real* f, const real* f0, real* acc, const real* k, const PaddedArray& p, int first, int last, double weight,
                           double next, double dt) {
  const real h = real(dt), w = real(weight), x = real(next);
  for_interior(p, [&](long long at, long long t) {
    const real s = add_rn(first ? real(0) : acc[t], mul_rn(w, k[t]));
    acc[t] = s;
    f[at] = add_rn(f0[t], mul_rn(h, last ? s : mul_rn(x, k[t])));
  });
}

// The time step on the device (a 2N loop with a CFL step): as
// Simulation::next_dt and its loop compute it on the host, operation for
// operation, from the largest speed (the CFL reduction's first result),
// clamped to dt_max and to land on `stop` (where it would pass it or end
// a hair short of it); then beta dt into each stage kernel's dt_beta global
// (ParamDecl::device), 0 where the step is no step
// (t would not advance: at `stop` already, or a NaN), so that such a step
// changes no state. clock: {t, dt, speed, valid}, t where the step ends.
struct TimeStepArgs {
  double cdt_h;      // cdt * the smallest spacing
  double diffusion;  // diffusivity * sum 1 / h^2 / cdtv
  double dt_max;     // 0: none
  double stop;       // the time to land on (--until, a snapshot's); < 0: none
  double fixed;      // > 0: this dt, no CFL (a step the host times)
  int count;         // dt_beta globals
};
static_assert(sizeof(TimeStepArgs) == 48, "TimeStepArgs as simulate/gpu_backend.cpp writes it");

// 1 + the fraction of a step that a step landing on its stop may add
// (simulate/simulation.cpp's kLandSlack, the same).
constexpr double kLandSlack = 1.000001;

template <class real, class S>
__device__ void time_step(const S* speed, TimeStepArgs a, double* clock, real* const* dt_beta, const double* beta) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const double t = clock[0];
  double s = 0, dt = a.fixed;
  if (!(a.fixed > 0)) {
    s = static_cast<double>(speed[0]);
    const double adv = __ddiv_rn(s, a.cdt_h);
    dt = __ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(__dmul_rn(adv, adv), __dmul_rn(a.diffusion, a.diffusion))));
    if (a.dt_max > 0 && dt > a.dt_max) dt = a.dt_max;
  }
  // A step that would end within kLandSlack of its dt short of `stop` lands
  // on it (at most that much longer): no sliver of a step left before it.
  const bool lands = a.stop >= 0 && __dadd_rn(t, __dmul_rn(dt, kLandSlack)) >= a.stop;
  if (lands) dt = __dsub_rn(a.stop, t);
  // The host checked a fixed dt; an infinite one (nothing bounds it) is no step either.
  const bool valid = a.fixed > 0 || (dt > 0 && !isinf(dt) && __dadd_rn(t, dt) > t);
  for (int i = 0; i < a.count; ++i) *dt_beta[i] = valid ? static_cast<real>(__dmul_rn(dt, beta[i])) : real(0);
  clock[0] = !valid ? t : lands ? a.stop : __dadd_rn(t, dt);
  clock[1] = dt;
  clock[2] = s;
  clock[3] = valid ? 1 : 0;
}

// out[i] = the largest of `ranks` values slots[r count + i]: a decomposed
// run's maximum over its ranks where they share one GPU
// (simulate/local_links.cpp). fmax: a rank's NaN is passed over here (the
// non-finite search is what reports it).
template <class S>
__device__ void max_of_ranks(const S* slots, int ranks, int count, S* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    S m = slots[i];
    for (int r = 1; r < ranks; ++r) m = fmax(m, slots[static_cast<long long>(r) * count + i]);
    out[i] = m;
  }
}

// f0 = f's interior, packed (rk4's start of a step).
template <class real>
__device__ void save_interior(const real* f, real* f0, const PaddedArray& p) {
  for_interior(p, [&](long long at, long long t) { f0[t] = f[at]; });
}

// The smallest packed interior index of a non-finite value (atomicMin;
// `first` starts at all ones: none found).
template <class real>
__device__ void find_non_finite(const real* f, const PaddedArray& p, unsigned long long* first) {
  for_interior(p, [&](long long at, long long t) {
    if (!isfinite(f[at])) atomicMin(first, static_cast<unsigned long long>(t));
  });
}

// A box of a padded array (interior coordinates from `begin`, `len`
// points along each axis) to (pack) or from (unpack) a contiguous buffer,
// x fastest: a face's slab in the ghost-zone exchange between subdomains
// (simulate/halo.hpp is its host model).
struct HaloBoxArg {
  long long begin[3], len[3];
};

template <class real>
__device__ void halo_copy(real* a, const PaddedArray& p, const HaloBoxArg& b, real* buffer, bool pack) {
  const long long nx = b.len[0], nxy = b.len[0] * b.len[1], total = nxy * b.len[2];
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    const long long k = t / nxy, j = (t - k * nxy) / nx, i = t - k * nxy - j * nx;
    real* const v = a + p.at(b.begin[0] + i, b.begin[1] + j, b.begin[2] + k);
    if (pack) buffer[t] = *v;
    else *v = buffer[t];
  }
}

}  // namespace gpen
