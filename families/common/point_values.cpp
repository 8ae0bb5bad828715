#include "gpen/families/common/point_values.hpp"

#include <algorithm>

namespace gpen {
namespace {

std::vector<Access> reads_of(const Spec& spec) {
  std::vector<Access> reads;
  for (const auto& o : spec.outputs) collect_accesses(*o.ir, reads);
  return reads;
}

// The outputs as one tape over every access they read (slot = the read's
// index in `reads`): a let shared by several uses is evaluated once a
// point, however deep lets chain.
IrTape tape_of(const Spec& spec, const std::vector<Access>& reads) {
  std::map<Access, int> slot_of_read;
  for (std::size_t r = 0; r < reads.size(); ++r) slot_of_read.emplace(reads[r], static_cast<int>(r));
  return IrTape(spec.output_exprs(), [&](const Access& a) { return slot_of_read.find(a)->second; });
}

}  // namespace

PointValues::PointValues(const Spec& spec, std::vector<const HostArray*> inputs, std::vector<double> params)
    : inputs_(std::move(inputs)), params_(std::move(params)), reads_(reads_of(spec)), tape_(tape_of(spec, reads_)), outputs_(spec.outputs.size()) {}

void PointValues::row(long long j, long long k, long long nx, std::vector<double>& values, std::vector<double>* magnitudes) const {
  // A stretch of points at a time, each read a contiguous run of its input's
  // row: the tape's loops run over the stretch.
  const std::size_t stride = tape_.stretch();
  thread_local std::vector<double> reads, out, mags;  // reused: a reference calls this for every row
  reads.resize(reads_.size() * stride);
  out.resize(outputs_ * stride);
  if (magnitudes) mags.resize(out.size());
  values.resize(static_cast<std::size_t>(nx) * outputs_);
  if (magnitudes) magnitudes->resize(values.size());
  for (long long i0 = 0; i0 < nx; i0 += static_cast<long long>(stride)) {
    const std::size_t n = static_cast<std::size_t>(std::min(static_cast<long long>(stride), nx - i0));
    for (std::size_t x = 0; x < reads_.size(); ++x) {
      const Access& a = reads_[x];
      const HostArray& in = *inputs_[a.field];
      const double* from = in.data.data() + in.index(i0 + a.off[0], j + a.off[1], k + a.off[2]);
      std::copy(from, from + n, reads.begin() + static_cast<std::ptrdiff_t>(x * stride));
    }
    tape_.run_points(reads.data(), stride, n, params_.data(), out.data(), magnitudes ? mags.data() : nullptr);
    for (std::size_t p = 0; p < n; ++p)
      for (std::size_t o = 0; o < outputs_; ++o) {
        const std::size_t at = (static_cast<std::size_t>(i0) + p) * outputs_ + o;
        values[at] = out[o * stride + p];
        if (magnitudes) (*magnitudes)[at] = mags[o * stride + p];
      }
  }
}

std::vector<double> param_values(const Spec& spec, const std::map<std::string, double>& given) {
  std::vector<double> v;
  for (const auto& p : spec.params) {
    const auto it = given.find(p.name);
    v.push_back(it != given.end() ? it->second : p.value);
  }
  return v;
}

}  // namespace gpen
