#include "gpen/families/common/point_values.hpp"

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
  std::vector<double> point(reads_.size());
  values.resize(static_cast<std::size_t>(nx) * outputs_);
  if (magnitudes) magnitudes->resize(values.size());
  for (long long i = 0; i < nx; ++i) {
    for (std::size_t x = 0; x < reads_.size(); ++x) {
      const Access& a = reads_[x];
      point[x] = inputs_[a.field]->at(i + a.off[0], j + a.off[1], k + a.off[2]);
    }
    tape_.run(point.data(), params_.data(), values.data() + i * outputs_, magnitudes ? magnitudes->data() + i * outputs_ : nullptr);
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
