#include "gpen/families/common/kernel.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "gpen/families/common/runtime_family.hpp"
#include "gpen/families/common/spec_program.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen {

namespace {

// A caller's view: a pointer, aligned to its elements, over a packed array
// unless the kind takes pitched ones.
void check_memory_of(const Spec& spec, const FieldDecl& f, const DeviceBuffer& b, Pitches pitches) {
  const std::size_t elem = size_of(b.dtype());
  if (b.get() == 0) throw BindingError(fmt::format("spec '{}': field '{}' is bound to a null device pointer", spec.name, f.name));
  if (b.get() % elem)
    throw BindingError(fmt::format("spec '{}': field '{}' starts at {:#x}, which is not a multiple of its {}-byte elements", spec.name, f.name,
                                   static_cast<unsigned long long>(b.get()), elem));
  if (pitches == Pitches::Any || b.packed()) return;
  const Pitch got = b.pitch(), packed = b.packed_pitch();
  throw BindingError(fmt::format("spec '{}': field '{}' has a row pitch of {} and a plane pitch of {} elements; kind \"{}\" takes arrays packed with "
                                 "their ghost zones (row pitch {}, plane pitch {} here); kinds \"stencil\", \"sbp\" and \"reduce\" take pitched ones",
                                 spec.name, f.name, got.row, got.plane, spec.kind, packed.row, packed.plane));
}

// No output shares a byte with another bound array: a kernel would read
// inputs it has overwritten already, or two outputs would race. The one
// exception is an output declared in place of an input (FieldDecl::
// in_place_of) and bound to that very view. Each pair is looked at once.
void check_outputs_apart(const Spec& spec, const FieldBindings& fields) {
  for (std::size_t i = 0; i < spec.fields.size(); ++i) {
    const FieldDecl& out = spec.fields[i];
    if (out.role != FieldDecl::Role::Output) continue;
    const DeviceBuffer& a = *fields.at(out.name);
    for (std::size_t j = 0; j < spec.fields.size(); ++j) {
      const FieldDecl& other = spec.fields[j];
      if (j == i || (other.role == FieldDecl::Role::Output && j < i)) continue;
      const DeviceBuffer& b = *fields.at(other.name);
      if (!overlap(a, b) || (other.name == out.in_place_of && same_view(a, b))) continue;
      throw BindingError(fmt::format("spec '{}': output '{}' and {} '{}' are bound to memory they share; an output needs memory of its own", spec.name,
                                     out.name, other.role == FieldDecl::Role::Output ? "output" : "input", other.name));
    }
  }
}

}  // namespace

std::array<long long, 3> check_bindings(const Spec& spec, const FieldBindings& fields, const ParamValues& params, Pitches pitches) {
  // Messages start "spec 'NAME': ", formatted only when thrown.
  for (const auto& [name, buf] : fields) {
    if (!spec.find_field(name)) {
      std::vector<std::string> names;
      for (const auto& f : spec.fields) names.push_back(f.name);
      throw BindingError(fmt::format("spec '{}': no field named '{}' (fields: {})", spec.name, name, fmt::join(names, ", ")));
    }
    if (!buf) throw BindingError(fmt::format("spec '{}': field '{}' is bound to no buffer", spec.name, name));
  }
  // Pairwise specs with separate sets: the sources' length is their own.
  std::array<long long, 3> shape{0, 0, 0}, source_shape{0, 0, 0};
  const DeviceBuffer* first = nullptr;
  const FieldDecl *first_source = nullptr, *first_field = nullptr;
  // Inputs first: they give the interior shape that a reduction's results are checked against.
  std::vector<const FieldDecl*> order;
  for (const auto& f : spec.fields)
    if (!f.reduced_axes) order.push_back(&f);
  for (const auto& f : spec.fields)
    if (f.reduced_axes) order.push_back(&f);
  for (const FieldDecl* fp : order) {
    const FieldDecl& f = *fp;
    auto it = fields.find(f.name);
    if (it == fields.end()) throw BindingError(fmt::format("spec '{}': field '{}' ({}) is not bound", spec.name, f.name, f.pointer));
    const DeviceBuffer& b = *it->second;
    if (b.dtype() != field_dtype(spec, f))
      throw BindingError(fmt::format("spec '{}': field '{}' is {}, the spec says {}", spec.name, f.name, to_string(b.dtype()), to_string(field_dtype(spec, f))));
    if (b.dims() != spec.dims)
      throw BindingError(fmt::format("spec '{}': field '{}' is {}-D, the spec says {}-D", spec.name, f.name, b.dims(), spec.dims));
    if (b.ghost() != f.ghost)
      throw BindingError(fmt::format("spec '{}': field '{}' has ghost width {}, the spec says {} ({}/ghost)", spec.name, f.name, b.ghost(), f.ghost, f.pointer));
    check_memory_of(spec, f, b, pitches);
    if (f.set == FieldDecl::Set::Sources) {
      if (!first_source) {
        first_source = &f;
        source_shape = b.shape();
      } else if (b.shape() != source_shape) {
        throw BindingError(fmt::format("spec '{}': source field '{}' has {} values, but '{}' has {}", spec.name, f.name, b.shape()[0], first_source->name,
                                       source_shape[0]));
      }
    } else if (f.reduced_axes) {
      const auto want = field_shape(f, shape);
      if (b.shape() != want)
        throw BindingError(fmt::format("spec '{}': result '{}' is {}x{}x{}, but reduced along its axes the inputs' {}x{}x{} is {}x{}x{}", spec.name, f.name,
                                       b.shape()[0], b.shape()[1], b.shape()[2], shape[0], shape[1], shape[2], want[0], want[1], want[2]));
    } else if (!first) {
      first = &b;
      first_field = &f;
      shape = b.shape();
    } else if (b.shape() != shape) {
      throw BindingError(fmt::format("spec '{}': field '{}' is {}x{}x{}, but '{}' is {}x{}x{}", spec.name, f.name, b.shape()[0], b.shape()[1],
                                     b.shape()[2], first_field->name, shape[0], shape[1], shape[2]));
    }
  }
  for (int ax = 0; ax < 3; ++ax) {
    if (shape[ax] < 1) throw BindingError(fmt::format("spec '{}': empty arrays ({}x{}x{})", spec.name, shape[0], shape[1], shape[2]));
    if (first_source && source_shape[ax] < 1)
      throw BindingError(fmt::format("spec '{}': empty source arrays ('{}' has no values)", spec.name, first_source->name));
  }
  check_outputs_apart(spec, fields);
  for (const auto& [name, value] : params) {
    (void)value;
    const bool known = std::any_of(spec.params.begin(), spec.params.end(), [&](const ParamDecl& p) { return p.name == name; });
    if (!known) throw BindingError(fmt::format("spec '{}': no param named '{}'", spec.name, name));
  }
  return shape;
}

void put_params(const Spec& spec, const ParamValues& params, unsigned char* bytes, std::size_t at) {
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const auto it = params.find(spec.params[i].name);
    const double v = it != params.end() ? it->second : spec.params[i].value;
    if (spec.dtype == Dtype::Float64) std::memcpy(bytes + at + 8 * i, &v, 8);
    else {
      const float f = static_cast<float>(v);
      std::memcpy(bytes + at + 4 * i, &f, 4);
    }
  }
}

Kernel::Kernel(const Spec& spec, Variant unit, const Context& ctx, KernelCache& cache)
    : own_spec_(std::make_shared<const Spec>(spec)),
      spec_(*own_spec_),
      source_(std::move(unit)),
      compiled_(cache.get(spec_program(spec_, source_), ctx.info().arch())),
      module_([&] {
        const auto t0 = std::chrono::steady_clock::now();
        Module m(compiled_.kernel.cubin, source_.kernel_name, fmt::format("spec '{}' ({})", spec_.name, source_.name));
        load_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return m;
      }()) {
  // The loaded function's own attributes are authoritative; the ptxas log
  // parse is what we have without a GPU.
  auto& u = compiled_.kernel.usage;
  int v = 0;
  if (driver().cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, module_.function()) == CUDA_SUCCESS) u.registers = v;
  if (driver().cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, module_.function()) == CUDA_SUCCESS) u.shared_bytes = v;
  if (driver().cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, module_.function()) == CUDA_SUCCESS) u.stack_bytes = v;
}

void Kernel::check_extents(const std::array<long long, 3>& shape) const {
  for (int ax = 0; ax < 3; ++ax)
    if (shape[ax] < 1 || shape[ax] > (1LL << 30))
      throw BindingError(fmt::format("spec '{}': {} points along {}; expected 1 to 2^30", spec_.name, shape[ax], axis_name(ax)));
}

void Kernel::check_block_fits(CUfunction f, int threads, const std::string& advice) const {
  int v = 0;
  if (driver().cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) == CUDA_SUCCESS && v < threads) {
    int regs = 0;
    driver().cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
    throw BlockFitError(fmt::format("spec '{}' ({}): a block of {} threads at {} registers each does not fit on this GPU (at most {} threads); {}",
                                         spec_.name, describe(spec_.tunables, source_.choice), threads, regs, v, advice));
  }
}

std::unique_ptr<Kernel> make_kernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache) {
  return runtime_family_of(spec).make_kernel(spec, std::move(variant), ctx, cache);
}

std::unique_ptr<Kernel> make_kernel(const Spec& spec, const TunableChoice& choice, const Context& ctx, KernelCache& cache) {
  return make_kernel(spec, plan_unit(spec, choice), ctx, cache);
}

}  // namespace gpen
