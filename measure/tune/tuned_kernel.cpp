#include "gpen/measure/tune/tuned_kernel.hpp"

#include "gpen/families/common/problem.hpp"

namespace gpen {

TunedChoice tuned_choice(const Spec& spec, const std::string& size, const DeviceInfo& device, const TuningDb& db) {
  TunedChoice t;
  t.record = db.find(problem_tuning_key(spec, size, device), spec);
  t.choice = t.record ? t.record->choice : spec.choose();
  return t;
}

std::unique_ptr<Kernel> make_tuned_kernel(const Spec& spec, const std::string& size, const Context& ctx, KernelCache& cache,
                                          std::optional<TuningRecord>* tuned) {
  TunedChoice t = tuned_choice(spec, size, ctx.info());
  if (tuned) *tuned = t.record;
  return make_kernel(spec, t.choice, ctx, cache);
}

}  // namespace gpen
