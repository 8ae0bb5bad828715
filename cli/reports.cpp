#include "reports.hpp"

#include "gpen/generator/tunables.hpp"
#include "gpen/runtime/nvrtc_compiler.hpp"

namespace gpen::cli {

Json verify_json(const std::optional<Comparison>& c) {
  if (!c) return nullptr;
  Json j = {{"pass", c->pass}, {"rel_l2", c->rel_l2}, {"max_abs", c->max_abs}, {"tolerance", c->tolerance}, {"non_finite", c->non_finite},
            {"ghost_changed", c->ghost_changed}};
  if (c->bound_ratio >= 0) j["worst_of_bound"] = c->bound_ratio;
  return j;
}

Json roofline_json(const std::optional<Roofline>& r) {
  if (!r) return nullptr;
  return Json{{"memory_ms", r->memory_ms}, {"fma_ms", r->fma_ms}, {"ops_per_point", r->ops_per_point}, {"fma_per_s", r->fma_per_s}, {"pct_roofline", r->pct}};
}

Json report_json(const Problem& p, const Measurement& m, int repeat) {
  const Spec& s = p.spec();
  const RateScale& k = p.scale();
  Json j{{"spec", m.spec},
              {"kind", s.kind},
              {"dtype", to_string(s.dtype)},
              {"variant", m.variant},
              {"tunables", Json(choice_json(m.tunables))},
              {"unit", m.unit},
              {"cache", {{"source", m.cache}, {"ms", m.cache_ms}, {"load_ms", m.load_ms}}},
              {"usage", to_json(m.usage)},
              {"size", p.size()},
              {"repeat", repeat},
              {"median_ms", m.median_ms},
              {"min_ms", m.min_ms},
              {k.work, m.work},
              {k.rate, k.in_unit(m.rate)},
              {k.percent, k.percent_of(m.rate)},
              {"verify", verify_json(m.check)},
              {"roofline", roofline_json(m.roofline)}};
  if (k.kind == RateKind::Pairs) {  // a bench run's bound is its spec's
    j[k.bound] = k.bound_value;
    j["bound_unit"] = k.bound_unit;
    j["rsqrt_bound_per_s"] = k.rsqrt_bound;
    j["pct_rsqrt"] = k.rsqrt_bound > 0 ? 100 * m.rate / k.rsqrt_bound : 0.0;
    for (const auto& [key, value] : k.pair_counts) j[key] = value;
  }
  return j;
}

Json run_document(const DeviceInfo& d, const Problem& p, const Measurement& m, int repeat) {
  Json doc = json_document("run");
  doc["gpu"] = d.name;
  doc["arch"] = d.arch();
  doc[p.scale().bound] = p.scale().bound_value;
  doc.update(report_json(p, m, repeat));
  return doc;
}

}  // namespace gpen::cli
