#include "gpen/families/common/host_array.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <thread>
#include <utility>

#include <fmt/format.h>

namespace gpen {

HostArray::HostArray(int d, std::array<long long, 3> s, int g) : dims(d), shape(s), ghost(g) {
  const auto p = padded();
  data.assign(static_cast<std::size_t>(p[0] * p[1] * p[2]), 0.0);
}

std::array<long long, 3> HostArray::padded() const {
  auto p = shape;
  for (int ax = 0; ax < dims; ++ax) p[ax] += 2 * ghost;
  return p;
}

long long padded_offset(int dims, const std::array<long long, 3>& shape, int ghost, long long i, long long j, long long k) {
  const long long px = shape[0] + 2 * ghost, py = shape[1] + (dims > 1 ? 2 * ghost : 0);
  const long long g1 = dims > 1 ? ghost : 0, g2 = dims > 2 ? ghost : 0;
  return (i + ghost) + px * ((j + g1) + py * (k + g2));
}

long long HostArray::index(long long i, long long j, long long k) const { return padded_offset(dims, shape, ghost, i, j, k); }

bool HostArray::is_interior(std::size_t flat) const {
  const auto p = padded();
  const long long c[3] = {static_cast<long long>(flat % p[0]), static_cast<long long>((flat / p[0]) % p[1]),
                          static_cast<long long>(flat / (p[0] * p[1]))};
  for (int ax = 0; ax < dims; ++ax)
    if (c[ax] < ghost || c[ax] >= shape[ax] + ghost) return false;
  return true;
}

void fill_random(HostArray& a, std::uint64_t seed, Dtype dtype) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& v : a.data) v = dtype == Dtype::Float32 ? static_cast<double>(static_cast<float>(u(rng))) : u(rng);
}

void fill_nan(HostArray& a) { std::fill(a.data.begin(), a.data.end(), std::numeric_limits<double>::quiet_NaN()); }

void fill_ghosts_nan(HostArray& a) {
  for (std::size_t i = 0; i < a.data.size(); ++i)
    if (!a.is_interior(i)) a.data[i] = std::numeric_limits<double>::quiet_NaN();
}

void fill_periodic(HostArray& a, unsigned axes) {
  const auto p = a.padded();
  const long long g = a.ghost;
  // Padded coordinate c along ax wrapped into the interior; -1 where it is
  // a ghost along an axis not filled.
  auto wrap = [&](long long c, int ax) {
    if (ax >= a.dims) return c;
    const long long n = a.shape[ax];
    if (!(axes >> ax & 1u) && (c < g || c >= n + g)) return -1LL;
    return ((c - g) % n + n) % n + g;
  };
  for (long long k = 0; k < p[2]; ++k)
    for (long long j = 0; j < p[1]; ++j)
      for (long long i = 0; i < p[0]; ++i) {
        const long long si = wrap(i, 0), sj = wrap(j, 1), sk = wrap(k, 2);
        if (si >= 0 && sj >= 0 && sk >= 0) a.data[i + p[0] * (j + p[1] * k)] = a.data[si + p[0] * (sj + p[1] * sk)];
      }
}

void for_rows(const std::array<long long, 3>& extent, const std::function<void(long long, long long)>& f, long long cost) {
  const long long rows = extent[1] * extent[2];
  auto row = [&](long long r) { f(r % extent[1], r / extent[1]); };
  if (rows * extent[0] * cost >= (1LL << 22)) {
    parallel_for(rows, row);
  } else {
    for (long long r = 0; r < rows; ++r) row(r);
  }
}

std::vector<double> interior_values(const HostArray& a) {
  std::vector<double> v(static_cast<std::size_t>(a.shape[0] * a.shape[1] * a.shape[2]));
  for_rows(a.shape, [&](long long j, long long k) {
    const double* from = a.data.data() + a.index(0, j, k);
    std::copy(from, from + a.shape[0], v.begin() + a.shape[0] * (j + a.shape[1] * k));
  });
  return v;
}

void set_interior(HostArray& a, const std::vector<double>& values) {
  const long long n = a.shape[0] * a.shape[1] * a.shape[2];
  if (static_cast<long long>(values.size()) != n)
    throw std::invalid_argument(fmt::format("set_interior: {} values for an interior of {}x{}x{} = {} points", values.size(), a.shape[0], a.shape[1], a.shape[2], n));
  for_rows(a.shape, [&](long long j, long long k) {
    const auto from = values.begin() + a.shape[0] * (j + a.shape[1] * k);
    std::copy(from, from + a.shape[0], a.data.begin() + a.index(0, j, k));
  });
}

namespace {
thread_local std::function<bool()> t_cancel_requested;  // this thread's CancelScope's
}  // namespace

CancelScope::CancelScope(std::function<bool()> requested) : previous_(std::exchange(t_cancel_requested, std::move(requested))) {}
CancelScope::~CancelScope() { t_cancel_requested = std::move(previous_); }

void parallel_for(long long n, const std::function<void(long long)>& f, unsigned most) {
  const unsigned workers =
      static_cast<unsigned>(std::max(1LL, std::min<long long>({most ? most : std::thread::hardware_concurrency(), 64, n})));
  const std::function<bool()>& requested = t_cancel_requested;  // the workers' threads have none of their own
  std::atomic<bool> stopped{false};
  auto work = [&](unsigned w) {
    for (long long i = w; i < n; i += workers) {
      if (requested && (stopped.load(std::memory_order_relaxed) || requested())) {
        stopped = true;
        return;
      }
      f(i);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& t : pool) t.join();
  if (stopped) throw Cancelled{};
}

double tolerance_for(Dtype dtype) { return dtype == Dtype::Float32 ? 1e-5 : 1e-12; }

Comparison compare(const HostArray& got, const HostArray& want, const HostArray& ghost_expect, double tolerance) {
  // Stretches of a fixed length compared side by side, then combined in
  // their order: the result does not depend on the number of cores, and the
  // worst point is the first of the largest errors, as one pass would find.
  constexpr std::size_t kStretch = 1 << 16;
  const std::size_t n = got.data.size(), stretches = (n + kStretch - 1) / kStretch;
  std::vector<Comparison> part(stretches);
  std::vector<double> num(stretches, 0), den(stretches, 0);
  const auto p = got.padded();
  parallel_for(static_cast<long long>(stretches), [&](long long s) {
    Comparison& c = part[static_cast<std::size_t>(s)];
    double& sn = num[static_cast<std::size_t>(s)];
    double& sd = den[static_cast<std::size_t>(s)];
    for (std::size_t f = static_cast<std::size_t>(s) * kStretch; f < std::min(n, (static_cast<std::size_t>(s) + 1) * kStretch); ++f) {
      const double g = got.data[f];
      if (!got.is_interior(f)) {
        const double e = ghost_expect.data[f];
        if (!(g == e || (std::isnan(g) && std::isnan(e)))) ++c.ghost_changed;
        continue;
      }
      const double w = want.data[f];
      if (!std::isfinite(g)) {
        ++c.non_finite;
        continue;
      }
      const double d = std::fabs(g - w);
      sn += d * d;
      sd += w * w;
      if (d > c.max_abs) {
        c.max_abs = d;
        const long long fl = static_cast<long long>(f);
        c.worst = {fl % p[0] - got.ghost, (fl / p[0]) % p[1] - (got.dims > 1 ? got.ghost : 0),
                   fl / (p[0] * p[1]) - (got.dims > 2 ? got.ghost : 0)};
      }
    }
  });
  Comparison c;
  c.tolerance = tolerance;
  double total_num = 0, total_den = 0;
  for (std::size_t s = 0; s < stretches; ++s) {
    total_num += num[s];
    total_den += den[s];
    c.non_finite += part[s].non_finite;
    c.ghost_changed += part[s].ghost_changed;
    if (part[s].max_abs > c.max_abs) {
      c.max_abs = part[s].max_abs;
      c.worst = part[s].worst;
    }
  }
  c.rel_l2 = total_den > 0 ? std::sqrt(total_num / total_den) : std::sqrt(total_num);
  c.pass = c.non_finite == 0 && c.ghost_changed == 0 && c.rel_l2 <= tolerance;
  return c;
}

std::string Comparison::summary() const {
  const std::string where = worst[0] < 0 ? "" : fmt::format(" at ({}, {}, {})", worst[0], worst[1], worst[2]);
  if (bound_ratio >= 0)
    return fmt::format("{}: worst error {:.2e} of its bound ({}), rel L2 {:.2e}, max |err| {:.2e}{}, {} non-finite", pass ? "PASS" : "FAIL",
                       bound_ratio, bound_text.empty() ? fmt::format("{:.0f} eps sqrt(n) scale", tolerance) : bound_text, rel_l2, max_abs,
                       where, non_finite);
  return fmt::format("{}: rel L2 {:.2e} (tolerance {:.0e}), max |err| {:.2e}{}, {} non-finite, {} ghost values changed",
                     pass ? "PASS" : "FAIL", rel_l2, tolerance, max_abs, where, non_finite, ghost_changed);
}

}  // namespace gpen
