#include "cpu_backend.hpp"

#include <cmath>

#include "boundaries.hpp"
#include "gpen/families/reduce/reduce_reference.hpp"
#include "gpen/families/sbp/sbp_reference.hpp"
#include "gpen/families/stencil/stencil_reference.hpp"
#include "integrator.hpp"
#include "memory.hpp"

namespace gpen::sim {
namespace {

// f(i, j, k) for every interior point of `shape`, spread over the cores by planes.
template <class Fn>
void for_interior(const std::array<long long, 3>& shape, Fn&& fn) {
  parallel_for(shape[2], [&](long long k) {
    for (long long j = 0; j < shape[1]; ++j)
      for (long long i = 0; i < shape[0]; ++i) fn(i, j, k);
  });
}

}  // namespace

CpuBackend::CpuBackend(const Program& p) : CpuBackend(p, p.size) {}

CpuBackend::CpuBackend(const Program& p, std::array<long long, 3> extent) : p_(p), size_(extent) {
  MemoryHave have;
  have.host_total = host_memory_total();
  const std::string problem = memory_problem(program_memory(p, false), have);
  if (!problem.empty()) throw std::runtime_error(problem);
  const Scheme& s = scheme(p.integrator);
  for (const ProgramField& f : p.fields) {
    f_.emplace_back(p.dims, size_, f.ghost);
    k_.emplace_back(p.dims, size_, 0);
    d_.emplace_back(p.dims, size_, 0);
    if (!s.two_n) f0_.emplace_back(p.dims, size_, 0);
  }
  for (const RhsKernel& r : p.rhs) {
    std::vector<HostArray> outs;
    for (const FieldDecl* o : r.use.spec.output_fields()) outs.emplace_back(p.dims, size_, o->ghost);
    out_.push_back(std::move(outs));
  }
}

void CpuBackend::set_field(std::size_t f, const std::vector<double>& interior) { set_interior(f_.at(f), interior); }

std::vector<double> CpuBackend::field(std::size_t f) const { return interior_values(f_.at(f)); }

void CpuBackend::fill_boundaries() {
  for (std::size_t f = 0; f < f_.size(); ++f) apply_boundaries(p_.fields[f], f_[f]);
}

std::vector<double> CpuBackend::param_values(const KernelUse& u) const {
  const std::vector<double> env = p_.param_values();
  std::vector<double> v;
  for (const ScalarExpr& e : u.param) v.push_back(e(env.data()));
  return v;
}

void CpuBackend::evaluate_rhs() {
  for (std::size_t r = 0; r < p_.rhs.size(); ++r) {
    const RhsKernel& k = p_.rhs[r];
    std::vector<const HostArray*> ins;
    for (int f : k.use.input_field) ins.push_back(&f_[static_cast<std::size_t>(f)]);
    std::vector<HostArray*> outs;
    for (HostArray& o : out_[r]) outs.push_back(&o);
    if (k.use.spec.kind == "sbp")  // one input, one output
      reference_sbp(k.use.spec, *ins.at(0), p_.named_params(k.use), *outs.at(0));
    else
      reference_stencil(k.use.spec, ins, param_values(k.use), outs);
    for (std::size_t o = 0; o < k.output_field.size(); ++o) {
      if (k.output_field[o] < 0) continue;
      HostArray& dst = k_[static_cast<std::size_t>(k.output_field[o])];
      const HostArray& src = out_[r][o];
      for_interior(size_, [&](long long i, long long j, long long kk) { dst.at(i, j, kk) = src.at(i, j, kk); });
    }
  }
}

void CpuBackend::step(double dt) {
  for (std::size_t st = 0; st < scheme(p_.integrator).stages.size(); ++st) {
    stage(dt, st);
    fill_boundaries();
  }
}

void CpuBackend::stage(double dt, std::size_t st) {
  const Scheme& s = scheme(p_.integrator);
  const Stage& g = s.stages[st];
  const bool last = st + 1 == s.stages.size();
  if (!s.two_n && st == 0)
    for (std::size_t f = 0; f < f_.size(); ++f)
      for_interior(size_, [&](long long i, long long j, long long k) { f0_[f].at(i, j, k) = f_[f].at(i, j, k); });
  evaluate_rhs();
  for (std::size_t f = 0; f < f_.size(); ++f) {
    HostArray &a = f_[f], &d = d_[f], &k = k_[f];
    if (s.two_n) {
      for_interior(size_, [&](long long i, long long j, long long kk) {
        const double dv = (st == 0 ? 0.0 : g.alpha * d.at(i, j, kk)) + k.at(i, j, kk);
        d.at(i, j, kk) = dv;
        a.at(i, j, kk) += dt * g.beta * dv;
      });
    } else {
      const HostArray& a0 = f0_[f];
      for_interior(size_, [&](long long i, long long j, long long kk) {
        const double acc = (st == 0 ? 0.0 : d.at(i, j, kk)) + g.weight * k.at(i, j, kk);
        d.at(i, j, kk) = acc;
        a.at(i, j, kk) = a0.at(i, j, kk) + dt * (last ? acc : g.next * k.at(i, j, kk));
      });
    }
  }
}

std::vector<double> CpuBackend::reduce(const ReduceUse& r) const {
  std::vector<const HostArray*> ins;
  for (int f : r.use.input_field) ins.push_back(&f_[static_cast<std::size_t>(f)]);
  std::vector<HostArray> want, scale;
  for (const FieldDecl* o : r.use.spec.output_fields()) want.emplace_back(p_.dims, field_shape(*o, size_), 0);
  reference_reduce(r.use.spec, ins, param_values(r.use), size_, want, scale);
  std::vector<double> v;
  for (const HostArray& w : want) v.push_back(w.at(0, 0, 0));
  return v;
}

double CpuBackend::max_speed() { return reduce(*p_.time_step.speed).at(0); }

std::vector<double> CpuBackend::diagnostics() {
  std::vector<double> v;
  for (const ReduceUse& r : p_.diagnostics.reductions) {
    const std::vector<double> x = reduce(r);
    v.insert(v.end(), x.begin(), x.end());
  }
  return v;
}

std::optional<NonFinite> CpuBackend::first_non_finite() const {
  for (std::size_t f = 0; f < f_.size(); ++f)
    for (long long k = 0; k < size_[2]; ++k)
      for (long long j = 0; j < size_[1]; ++j)
        for (long long i = 0; i < size_[0]; ++i) {
          const double v = f_[f].at(i, j, k);
          if (!std::isfinite(v)) return NonFinite{static_cast<int>(f), {i, j, k}, v};
        }
  return std::nullopt;
}

}  // namespace gpen::sim
