#include "gpen/families/stencil/stencil_reference.hpp"

#include <map>

#include "gpen/generator/ir.hpp"

namespace gpen {

void reference_stencil(const Spec& spec, const std::vector<const HostArray*>& inputs, const std::vector<double>& params,
                       const std::vector<HostArray*>& outputs) {
  const auto shape = outputs.at(0)->shape;
  // The outputs as one tape over every access they read: a let shared by
  // several uses is evaluated once a point, however deep lets chain.
  std::vector<IrPtr> roots;
  std::vector<Access> reads;
  for (const auto& o : spec.outputs) {
    roots.push_back(o.ir);
    collect_accesses(*o.ir, reads);
  }
  std::map<Access, int> slot_of_read;
  for (std::size_t r = 0; r < reads.size(); ++r) slot_of_read.emplace(reads[r], static_cast<int>(r));
  const IrTape tape(roots, [&](const Access& a) { return slot_of_read.find(a)->second; });
  parallel_for(shape[2] * shape[1], [&](long long row) {
    const long long j = row % shape[1], k = row / shape[1];
    std::vector<double> values(reads.size()), results(roots.size());
    for (long long i = 0; i < shape[0]; ++i) {
      for (std::size_t r = 0; r < reads.size(); ++r) {
        const Access& a = reads[r];
        values[r] = inputs[a.field]->at(i + a.off[0], j + a.off[1], k + a.off[2]);
      }
      tape.run(values.data(), params.data(), results.data());
      for (std::size_t o = 0; o < roots.size(); ++o) outputs[spec.fields[spec.outputs[o].field].slot]->at(i, j, k) = results[o];
    }
  });
}

}  // namespace gpen
