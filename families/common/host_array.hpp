// Host-side padded arrays: random inputs, periodic ghosts, the CPU
// reference and the comparison of results, all in double precision.
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "gpen/generator/spec.hpp"

namespace gpen {

// Where interior point (i, j, k) of a padded array (x fastest; `ghost`
// points on each side of the axes it has) lies: -ghost .. shape+ghost-1
// reach the ghost zones. HostArray's and a device array's host copies.
long long padded_offset(int dims, const std::array<long long, 3>& shape, int ghost, long long i, long long j, long long k);

struct HostArray {
  HostArray(int dims, std::array<long long, 3> shape, int ghost);
  int dims;
  std::array<long long, 3> shape;  // interior, unused axes 1
  int ghost;
  std::vector<double> data;        // padded, x fastest

  std::array<long long, 3> padded() const;
  // Interior coordinates; -ghost .. shape+ghost-1 reach the ghost zones.
  long long index(long long i, long long j, long long k) const;
  double& at(long long i, long long j, long long k) { return data[index(i, j, k)]; }
  double at(long long i, long long j, long long k) const { return data[index(i, j, k)]; }
  bool is_interior(std::size_t flat) const;
};

// The interior of `a` as a packed array (x fastest), and back: what a
// snapshot holds of a padded field.
std::vector<double> interior_values(const HostArray& a);
void set_interior(HostArray& a, const std::vector<double>& values);

// f(0) ... f(n-1) spread over the cores (index i on worker i % workers).
// Within a CancelScope of this thread, each worker asks before each index
// and parallel_for throws Cancelled once they stopped, leaving the work
// part done.
// `workers` caps the threads (0: every core, at most 64).
void parallel_for(long long n, const std::function<void(long long)>& f, unsigned workers = 0);

// Long CPU work that Ctrl-C may end part way (a step of the CPU reference
// at a size where it takes seconds): while a scope lives, parallel_for
// calls in its thread poll `requested`, from several threads at once.
struct Cancelled : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};
class CancelScope {
 public:
  explicit CancelScope(std::function<bool()> requested);
  ~CancelScope();
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  std::function<bool()> previous_;
};
// f(j, k) for each row (x fastest) of `extent` points: spread over the
// cores where the points times `cost` (a point's work, a copy being 1) pay
// for starting the threads (a 1024^3 field copied on one core takes
// seconds), in this thread where they would cost more.
void for_rows(const std::array<long long, 3>& extent, const std::function<void(long long, long long)>& f, long long cost = 1);

// Uniform values in [-1, 1) everywhere (ghosts included), rounded to the
// dtype so that the GPU and the reference read the same numbers.
void fill_random(HostArray& a, std::uint64_t seed, Dtype dtype);
void fill_nan(HostArray& a);
// NaN in the ghost zones alone (what a fill must overwrite), the interior kept.
void fill_ghosts_nan(HostArray& a);
// Periodic ghost zones from the interior (the CPU twin of the GPU fill):
// along the axes whose bit `axes` has (axis a: bit a), the ghost points
// outside the interior along those axes alone; the others stay.
void fill_periodic(HostArray& a, unsigned axes = 7);

struct Comparison {
  double rel_l2 = 0;    // ||got - want|| / ||want|| over the interior
  double max_abs = 0;   // max |got - want|
  long long non_finite = 0;        // NaN or Inf in the interior (e.g. an unwritten point)
  long long ghost_changed = 0;     // ghost-zone values that differ from `ghost_expect`
  std::array<long long, 3> worst{0, 0, 0};  // where max_abs is; -1s when unknown (device comparison)
  bool pass = false;
  double tolerance = 0;
  // Scans: the worst |got - want| over its bound (see scan_reference.hpp);
  // passing needs <= 1. Negative: not used.
  double bound_ratio = -1;
  std::string bound_text;  // what the bound is, when not the default "N eps sqrt(n) scale"
  std::string summary() const;
};

// Relative-L2 tolerance for a dtype: fp64 1e-12, fp32 1e-5.
double tolerance_for(Dtype dtype);

// Compares interiors; ghost zones of `got` must equal those of `ghost_expect`
// (pass the poisoned array the output started as), NaN matching NaN.
Comparison compare(const HostArray& got, const HostArray& want, const HostArray& ghost_expect, double tolerance);

}  // namespace gpen
