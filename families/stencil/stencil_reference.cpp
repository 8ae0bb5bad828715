#include "gpen/families/stencil/stencil_reference.hpp"

#include "gpen/families/common/point_values.hpp"

namespace gpen {

void reference_stencil(const Spec& spec, const std::vector<const HostArray*>& inputs, const std::vector<double>& params,
                       const std::vector<HostArray*>& outputs) {
  const auto shape = outputs.at(0)->shape;
  const PointValues points(spec, inputs, params);
  const std::size_t n = points.outputs();
  parallel_for(shape[2] * shape[1], [&](long long row) {
    const long long j = row % shape[1], k = row / shape[1];
    std::vector<double> values;
    points.row(j, k, shape[0], values);
    for (long long i = 0; i < shape[0]; ++i)
      for (std::size_t o = 0; o < n; ++o) outputs[spec.fields[spec.outputs[o].field].slot]->at(i, j, k) = values[i * n + o];
  });
  for (const OutputDecl& o : spec.outputs) {
    const FieldDecl& f = spec.fields[static_cast<std::size_t>(o.field)];
    if (f.periodic_images) fill_periodic(*outputs[static_cast<std::size_t>(f.slot)], f.periodic_images);
  }
}

}  // namespace gpen
