#include "gpu_backend.hpp"

#include <fmt/format.h>

#include "gpen/families/common/host_array.hpp"
#include "gpen/families/common/kernel.hpp"
#include "gpen/families/common/spec_program.hpp"
#include "gpen/families/common/utility_units.hpp"
#include "gpen/measure/tune/tuned_kernel.hpp"
#include "gpen/runtime/driver.hpp"
#include "integrator.hpp"
#include "memory.hpp"

namespace gpen::sim {
namespace {

// The argument the time-loop kernels take (families/common/device/time_loop.cuh).
struct PaddedArray {
  long long n[3];
  long long row, plane;
  int dims, g;
};
static_assert(sizeof(PaddedArray) == 48, "PaddedArray as time_loop.cuh lays it out");

// Page-locked host memory, so that a read-back in a stream is asynchronous to the host.
class PinnedBytes {
 public:
  explicit PinnedBytes(std::size_t bytes) { GPEN_CU(cuMemAllocHost(&p_, bytes), "allocating page-locked host memory for read-backs"); }
  ~PinnedBytes() {
    if (p_) driver().cuMemFreeHost(p_);
  }
  PinnedBytes(const PinnedBytes&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

// A view of `b`'s interior as an array with `ghost` (<= b's) ghost points:
// the same memory, b's pitches, the first element moved inward.
DeviceBuffer narrower_view(const DeviceBuffer& b, int ghost) {
  const Pitch pitch = b.packed_pitch();
  const long long d = b.ghost() - ghost;
  long long offset = d;
  if (b.dims() > 1) offset += d * pitch.row;
  if (b.dims() > 2) offset += d * pitch.plane;
  return DeviceBuffer::view(b.get() + static_cast<CUdeviceptr>(offset) * size_of(b.dtype()), b.dtype(), b.dims(), b.shape(), ghost,
                            b.dims() == 1 ? Pitch{} : pitch);
}

PaddedArray padded_of(const DeviceBuffer& b) {
  const Pitch pitch = b.packed_pitch();
  return PaddedArray{{b.shape()[0], b.shape()[1], b.shape()[2]}, pitch.row, pitch.plane, b.dims(), b.ghost()};
}

// A kernel spec's launch in the loop: its kernel, its fields bound, its params.
struct BoundKernel {
  std::unique_ptr<Kernel> kernel;
  std::vector<DeviceBuffer> views;    // inputs with fewer ghosts than their fields
  std::vector<DeviceBuffer> scratch;  // outputs the program does not use, and reductions' results
  FieldBindings bindings;
  ParamValues params;
};

}  // namespace

struct GpuBackend::State {
  const Program& p;
  const Context& ctx;
  Stream stream;
  Variant unit;
  KernelCache::Result compiled;
  Module module;
  CUfunction boundary, update_2n, update_rk4, save, non_finite;
  std::vector<DeviceBuffer> f, k, d, f0;  // fields; right-hand sides, registers (packed interiors)
  std::vector<BoundKernel> rhs;
  std::optional<BoundKernel> cfl;
  std::vector<BoundKernel> diagnostics;
  DeviceMemory index;  // find_non_finite's answer
  PinnedBytes readback;
  std::size_t allocations_after_setup = 0;
  int blocks;

  State(const Program& prog, const Context& c)
      : p(prog),
        ctx(c),
        unit(generate_time_loop(prog.dtype)),
        compiled(process_cache().get(source_program(unit, "time_loop"), c.info().arch())),
        module(compiled.kernel.cubin, unit.kernel_name, unit.name),
        index(sizeof(unsigned long long)),
        readback(64 * sizeof(double)),
        blocks(c.info().sm_count * 8) {
    const std::string stem = unit.kernel_name.substr(0, unit.kernel_name.size() - std::string("_boundary").size());
    boundary = module.function();
    update_2n = module.function(stem + "_update_2n");
    update_rk4 = module.function(stem + "_update_rk4");
    save = module.function(stem + "_save");
    non_finite = module.function(stem + "_non_finite");
    const bool rk4 = !scheme(p.integrator).two_n;
    for (const ProgramField& pf : p.fields) {
      f.emplace_back(p.dtype, p.dims, p.size, pf.ghost);
      k.emplace_back(p.dtype, p.dims, p.size, 0);
      d.emplace_back(p.dtype, p.dims, p.size, 0);
      if (rk4) f0.emplace_back(p.dtype, p.dims, p.size, 0);
    }
    const std::string size = fmt::format("{}", fmt::join(std::vector<long long>(p.size.begin(), p.size.begin() + p.dims), "x"));
    for (const RhsKernel& r : p.rhs) {
      BoundKernel b = bind(r.use, size);
      const auto outs = r.use.spec.output_fields();
      b.scratch.reserve(outs.size());
      for (std::size_t o = 0; o < outs.size(); ++o) {
        if (r.output_field[o] >= 0) {
          b.bindings[outs[o]->name] = &k[static_cast<std::size_t>(r.output_field[o])];
        } else {
          b.scratch.emplace_back(p.dtype, p.dims, p.size, outs[o]->ghost);
          b.bindings[outs[o]->name] = &b.scratch.back();
        }
      }
      rhs.push_back(std::move(b));
    }
    if (p.time_step.speed) cfl = reduction(p.time_step.speed->use, size);
    for (const ReduceUse& r : p.diagnostics.reductions) diagnostics.push_back(reduction(r.use, size));
    allocations_after_setup = DeviceMemory::allocations();
  }

  // The kernel of `u` with its inputs bound to the fields (narrower views where the spec reads fewer ghosts).
  BoundKernel bind(const KernelUse& u, const std::string& size) {
    BoundKernel b;
    b.kernel = make_tuned_kernel(u.spec, size, ctx);
    const std::vector<double> env = p.param_values();
    for (std::size_t s = 0; s < u.spec.params.size(); ++s) b.params[u.spec.params[s].name] = u.param[s](env.data());
    const auto ins = u.spec.inputs();
    b.views.reserve(ins.size());
    for (std::size_t i = 0; i < ins.size(); ++i) {
      const DeviceBuffer& field = f[static_cast<std::size_t>(u.input_field[i])];
      if (field.ghost() == ins[i]->ghost) {
        b.bindings[ins[i]->name] = &field;
      } else {
        b.views.push_back(narrower_view(field, ins[i]->ghost));
        b.bindings[ins[i]->name] = &b.views.back();
      }
    }
    return b;
  }

  BoundKernel reduction(const KernelUse& u, const std::string& size) {
    BoundKernel b = bind(u, size);
    const auto outs = u.spec.output_fields();
    b.scratch.reserve(outs.size());
    for (const FieldDecl* o : outs) {
      b.scratch.emplace_back(field_dtype(u.spec, *o), p.dims, field_shape(*o, p.size), 0);
      b.bindings[o->name] = &b.scratch.back();
    }
    b.kernel->prepare(p.size);
    return b;
  }

  void launch(CUfunction fn, void** args) const {
    GPEN_CU(cuLaunchKernel(fn, static_cast<unsigned>(blocks), 1, 1, 256, 1, 1, 0, stream.get(), args, nullptr), "launching a time-loop kernel");
  }

  void fill_boundaries() {
    for (std::size_t i = 0; i < f.size(); ++i) {
      CUdeviceptr a = f[i].get();
      PaddedArray pa = padded_of(f[i]);
      for (int axis = 0; axis < p.dims; ++axis)
        for (int side = 0; side < 2; ++side) {
          const Boundary& b = p.fields[i].boundary[axis][side];
          int kind = static_cast<int>(b.kind);
          double value = b.value;
          void* args[] = {&a, &pa, &axis, &side, &kind, &value};
          launch(boundary, args);
        }
    }
  }

  // Each result of `b` as a double, read back (the stream waits).
  std::vector<double> results(const BoundKernel& b) {
    b.kernel->launch(b.bindings, b.params, stream.get());
    std::vector<double> v;
    for (const DeviceBuffer& r : b.scratch) {
      r.copy_to_host_async(readback.get(), stream.get());
      stream.synchronize();
      v.push_back(r.dtype() == Dtype::Float32 ? static_cast<double>(*static_cast<const float*>(readback.get()))
                                              : *static_cast<const double*>(readback.get()));
    }
    return v;
  }
};

GpuBackend::GpuBackend(const Program& p, const Context& ctx) {
  ctx.make_current();
  check_memory(program_memory(p, true), ctx);
  s_ = std::make_unique<State>(p, ctx);
}

GpuBackend::~GpuBackend() {
  if (s_) driver().cuStreamSynchronize(s_->stream.get());
}

std::string GpuBackend::name() const { return fmt::format("{} (GPU)", s_->ctx.info().name); }

CUstream GpuBackend::stream() const { return s_->stream.get(); }

std::vector<double> GpuBackend::padded_field(int f) const {
  s_->stream.synchronize();
  return s_->f.at(static_cast<std::size_t>(f)).download();
}

std::size_t GpuBackend::allocations_since_setup() const { return DeviceMemory::allocations() - s_->allocations_after_setup; }

void GpuBackend::set_fields(const std::vector<std::vector<double>>& interiors) {
  const Program& p = s_->p;
  s_->stream.synchronize();
  for (std::size_t i = 0; i < s_->f.size(); ++i) {
    HostArray host(p.dims, p.size, s_->f[i].ghost());  // ghosts 0 until the boundaries fill them
    set_interior(host, interiors.at(i));
    s_->f[i].upload(host.data);
  }
  s_->fill_boundaries();
  s_->stream.synchronize();
}

std::vector<std::vector<double>> GpuBackend::fields() const {
  const Program& p = s_->p;
  s_->stream.synchronize();
  std::vector<std::vector<double>> out;
  for (const DeviceBuffer& b : s_->f) {
    HostArray host(p.dims, p.size, b.ghost());
    host.data = b.download();
    out.push_back(interior_values(host));
  }
  return out;
}

void GpuBackend::step(double dt) {
  State& s = *s_;
  const Scheme& sc = scheme(s.p.integrator);
  for (std::size_t st = 0; st < sc.stages.size(); ++st) {
    const Stage& g = sc.stages[st];
    int first = st == 0, last = st + 1 == sc.stages.size();
    if (!sc.two_n && first)
      for (std::size_t i = 0; i < s.f.size(); ++i) {
        CUdeviceptr a = s.f[i].get(), a0 = s.f0[i].get();
        PaddedArray pa = padded_of(s.f[i]);
        void* args[] = {&a, &a0, &pa};
        s.launch(s.save, args);
      }
    for (const BoundKernel& r : s.rhs) r.kernel->launch(r.bindings, r.params, s.stream.get());
    for (std::size_t i = 0; i < s.f.size(); ++i) {
      CUdeviceptr a = s.f[i].get(), dd = s.d[i].get(), kk = s.k[i].get();
      PaddedArray pa = padded_of(s.f[i]);
      if (sc.two_n) {
        double alpha = g.alpha, dt_beta = dt * g.beta;
        void* args[] = {&a, &dd, &kk, &pa, &first, &alpha, &dt_beta};
        s.launch(s.update_2n, args);
      } else {
        CUdeviceptr a0 = s.f0[i].get();
        double weight = g.weight, next = g.next, h = dt;
        void* args[] = {&a, &a0, &dd, &kk, &pa, &first, &last, &weight, &next, &h};
        s.launch(s.update_rk4, args);
      }
    }
    s.fill_boundaries();
  }
}

double GpuBackend::max_speed() { return s_->results(*s_->cfl).at(0); }

std::vector<double> GpuBackend::diagnostics() {
  std::vector<double> v;
  for (const BoundKernel& b : s_->diagnostics) {
    const std::vector<double> x = s_->results(b);
    v.insert(v.end(), x.begin(), x.end());
  }
  return v;
}

std::optional<NonFinite> GpuBackend::first_non_finite() const {
  State& s = *s_;
  const Program& p = s.p;
  constexpr unsigned long long none = ~0ull;
  for (std::size_t i = 0; i < s.f.size(); ++i) {
    // Reset in the stream, so that the search cannot start before it.
    GPEN_CU(cuMemsetD8Async(s.index.get(), 0xff, sizeof none, s.stream.get()), "resetting the non-finite search");
    CUdeviceptr a = s.f[i].get(), at = s.index.get();
    PaddedArray pa = padded_of(s.f[i]);
    void* args[] = {&a, &pa, &at};
    s.launch(s.non_finite, args);
    GPEN_CU(cuMemcpyDtoHAsync(s.readback.get(), s.index.get(), sizeof none, s.stream.get()), "reading the non-finite search back");
    s.stream.synchronize();
    const unsigned long long t = *static_cast<const unsigned long long*>(s.readback.get());
    if (t != none) {
      const long long x = static_cast<long long>(t % p.size[0]), y = static_cast<long long>((t / p.size[0]) % p.size[1]),
                      z = static_cast<long long>(t / (p.size[0] * p.size[1]));
      return NonFinite{static_cast<int>(i), {x, y, z}, fields()[i][t]};
    }
  }
  return std::nullopt;
}

}  // namespace gpen::sim
