// The outputs' expressions of a grid spec at the interior points of a row
// (the nx points of one (j, k)), in double precision, from the lowered IR
// (not from the CUDA templates): what the CPU references of the stencil and
// the reduction are made of.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gpen/families/common/host_array.hpp"
#include "gpen/generator/ir.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

class PointValues {
 public:
  // `params` in the spec's order; `inputs` by input slot, outliving this.
  PointValues(const Spec& spec, std::vector<const HostArray*> inputs, std::vector<double> params);
  std::size_t outputs() const { return outputs_; }
  // Row (j, k) of `nx` points: values and magnitudes hold nx x outputs()
  // (point i's output o at i * outputs() + o, outputs in spec.outputs
  // order); a magnitude is what the value's rounding error scales with
  // (IrTape::run), computed only where asked for. Safe to call from
  // several threads at once.
  void row(long long j, long long k, long long nx, std::vector<double>& values, std::vector<double>* magnitudes = nullptr) const;

 private:
  std::vector<const HostArray*> inputs_;
  std::vector<double> params_;
  std::vector<Access> reads_;
  IrTape tape_;
  std::size_t outputs_;
};

// The spec's params: a value given in `given` (by name), else the spec's.
std::vector<double> param_values(const Spec& spec, const std::map<std::string, double>& given);

}  // namespace gpen
