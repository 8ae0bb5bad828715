#include "gpu_backend.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <fmt/format.h>

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/common/spec_program.hpp"
#include "gpen/families/common/utility_units.hpp"
#include "gpen/measure/tune/tuned_kernel.hpp"
#include "gpen/runtime/driver.hpp"
#include "fused_update.hpp"
#include "halo_gpu.hpp"
#include "integrator.hpp"
#include "memory.hpp"
#include "overlap_regions.hpp"
#include "time_loop_args.hpp"

namespace gpen::sim {
namespace {

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
  const long long d = b.ghost() - ghost;
  return moved_view(b, {d, b.dims() > 1 ? d : 0, b.dims() > 2 ? d : 0}, b.shape(), ghost);
}

// The caller's arrays (GpuOptions::fields) fit the program: one per field,
// its dtype, dims, size and ghost width, no two overlapping. BindingError otherwise.
void check_callers_arrays(const Program& p, const std::array<long long, 3>& size, const std::vector<const DeviceBuffer*>& arrays) {
  if (arrays.size() != p.fields.size())
    throw BindingError(fmt::format("program {}: {} array{} for its {} fields (one each, in the program's order)", p.name, arrays.size(),
                                   arrays.size() == 1 ? "" : "s", p.fields.size()));
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const ProgramField& pf = p.fields[i];
    const DeviceBuffer* b = arrays[i];
    if (!b || b->dtype() != p.dtype || b->dims() != p.dims || b->shape() != size || b->ghost() != pf.ghost)
      throw BindingError(fmt::format("program {}: the array for field '{}' must be {} {}-D, {} points, ghost {}", p.name, pf.name, to_string(p.dtype), p.dims,
                                     fmt::join(std::vector<long long>(size.begin(), size.begin() + p.dims), "x"), pf.ghost));
    for (std::size_t j = 0; j < i; ++j)
      if (overlap(*b, *arrays[j]))
        throw BindingError(fmt::format("program {}: the arrays for fields '{}' and '{}' overlap: each field needs memory of its own", p.name, p.fields[j].name,
                                       pf.name));
  }
}

// A kernel spec's launch in the loop: its kernel, its fields bound (with
// either buffer of the fields' pairs as the state now), its params.
struct BoundKernel {
  std::unique_ptr<Kernel> kernel;
  std::deque<DeviceBuffer> views;     // views of the fields' buffers: fewer ghosts, or the interior alone
  std::vector<DeviceBuffer> scratch;  // outputs the program does not use, and reductions' results
  std::array<FieldBindings, 2> bindings;
  ParamValues params;
  std::string alpha, dt_beta;  // a fused update's params
  int arrays = 0;              // the arrays the spec reads or writes whole
  // With overlap: its launches on the subdomain's boxes, the shell's and
  // the core's, each binding moved to the box (views).
  struct BoxLaunch {
    std::array<FieldBindings, 2> bindings;
    bool shell = false;
  };
  std::vector<BoxLaunch> boxes;
};

}  // namespace

struct GpuBackend::State {
  const Program& p;
  const Context& ctx;
  const GpuOptions options;
  RankLinks* const links;  // a decomposed grid's, or null
  // The arrays' interior: p's size, or the links' subdomain's.
  const std::array<long long, 3> extent;
  unsigned split = 0;  // the axes split over several ranks
  std::vector<std::array<std::array<bool, 2>, 3>> exchanged;  // per field, [axis][side]: the links fill the face
  // The stages overlap their exchanges (GpuOptions::overlap): the shell's
  // kernels and the exchanges on shell_stream, the core's on the loop's.
  bool overlapping = false;
  unsigned kernel_images = ~0u;  // the axes along which the stages' kernels may store periodic images
  OverlapRegions regions;
  std::optional<Stream> shell_stream;
  Event stage_begun, shell_done;
  const bool callers;  // the fields are the caller's arrays
  const bool device_dt;  // the time step computed on the device (steps_on_device)
  const Scheme& sc;
  Stream stream;
  Variant unit;
  KernelCache::Result compiled;
  Module module;
  CUfunction boundary_axis, update_rk4, save, copy_padded, non_finite, time_step = nullptr;
  // The fields: 2N-storage schemes keep a pair per field (a stage reads one
  // and writes the other), rk4 one; `now` picks the state of the pair. On
  // the caller's arrays f[0] are views of them and f[1] gpen's (for rk4 a
  // packed copy to read and write the caller's pitched arrays through).
  std::array<std::vector<DeviceBuffer>, 2> f;
  int now = 0;
  std::vector<DeviceBuffer> k, d, f0;  // rk4's right-hand sides; registers (2N) or sums (rk4); rk4's start
  std::vector<BoundKernel> rhs;        // rk4: the specs as written
  std::vector<std::vector<BoundKernel>> stage_rhs;  // 2N: per stage, the specs fused with its update
  std::vector<unsigned> stored;                    // 2N: per field, the axes whose ghosts the stages' stores fill
  std::vector<std::string> ghost_choices;          // periodic_ghost_choices()
  std::optional<BoundKernel> cfl;
  std::vector<BoundKernel> diagnostics;
  DeviceMemory index;  // find_non_finite's answer
  PinnedBytes readback;
  // The time step on the device: its clock {t, dt, speed, valid}, the
  // stage kernels' dt_beta globals and their stages' betas, and a ring of
  // page-locked clocks read back after each launched step.
  DeviceMemory clock, dt_beta_globals, dt_beta_betas;
  int dt_beta_count = 0;
  Program::CflConstants cfl_constants;
  static constexpr int kClockSlots = 4;
  PinnedBytes clocks;
  std::array<Event, kClockSlots> clock_read;
  std::deque<int> launched;  // the slots of the steps launched and not yet waited for
  int next_slot = 0;
  std::size_t allocations_after_setup = 0;
  int blocks;

  State(const Program& prog, const Context& c, const GpuOptions& o)
      : p(prog),
        ctx(c),
        options(o),
        links(o.links.get()),
        extent(links ? links->decomposition().subdomain(links->rank()).extent : prog.size),
        exchanged(prog.fields.size()),
        callers(!o.fields.empty()),
        device_dt(o.device_time_step && scheme(prog.integrator).two_n && !prog.time_step.fixed && prog.time_step.speed.has_value() &&
                  (!links || acts_as_max(*prog.time_step.speed->use.spec.outputs.at(0).op))),
        sc(scheme(prog.integrator)),
        unit(generate_time_loop(prog.dtype)),
        compiled(process_cache().get(source_program(unit, "time_loop"), c.info().arch())),
        module(compiled.kernel.cubin, unit.kernel_name, unit.name),
        index(sizeof(unsigned long long)),
        readback(64 * sizeof(double)),
        clock(4 * sizeof(double)),
        clocks(kClockSlots * 4 * sizeof(double)),
        blocks(c.info().sm_count * 8) {
    const std::string stem = time_loop_stem(p.dtype);
    boundary_axis = module.function();
    update_rk4 = module.function(stem + "_update_rk4");
    save = module.function(stem + "_save");
    non_finite = module.function(stem + "_non_finite");
    copy_padded = module.function(stem + "_copy_padded");
    if (links) {
      const Decomposition& dec = links->decomposition();
      for (int a = 0; a < p.dims; ++a)
        if (dec.grid().ranks[static_cast<std::size_t>(a)] > 1) split |= 1u << a;
      for (std::size_t i = 0; i < p.fields.size(); ++i)
        for (int a = 0; a < 3; ++a)
          for (int side = 0; side < 2; ++side)
            exchanged[i][static_cast<std::size_t>(a)][static_cast<std::size_t>(side)] = exchanged_face(p.fields[i], dec, links->rank(), a, side);
      // The shell: every face a field with ghosts exchanges, as wide as the
      // widest ghost; none (no overlap) where no field has ghosts.
      std::array<std::array<bool, 2>, 3> any{};
      int width = 0;
      for (std::size_t i = 0; i < p.fields.size(); ++i) {
        if (p.fields[i].ghost == 0) continue;  // nothing to exchange
        width = std::max(width, p.fields[i].ghost);
        for (std::size_t a = 0; a < 3; ++a)
          for (std::size_t side = 0; side < 2; ++side) any[a][side] = any[a][side] || exchanged[i][a][side];
      }
      overlapping = split != 0 && sc.two_n && o.overlap && width > 0;
      if (overlapping) {
        // Along x a slab at least a 128-byte line wide (a multiple of it): a
        // box a few points wide along the rows would read and write a
        // partial sector on every row.
        const long long line = 128 / static_cast<long long>(size_of(p.dtype));
        regions = overlap_regions(extent, p.dims, any, {(width + line - 1) / line * line, width, width});
        shell_stream.emplace(Stream::high_priority());
      }
    }
    kernel_images = options.image_axes & (overlapping ? ~split : ~0u);
    for (std::size_t i = 0; i < p.fields.size(); ++i) {
      const ProgramField& pf = p.fields[i];
      if (callers) {
        const DeviceBuffer* b = options.fields[i];
        f[0].push_back(DeviceBuffer::view(b->get(), b->dtype(), b->dims(), b->shape(), b->ghost(), b->pitch()));
        f[1].emplace_back(p.dtype, p.dims, extent, pf.ghost);
      } else {
        for (int q = 0; q < pairs(); ++q) f[static_cast<std::size_t>(q)].emplace_back(p.dtype, p.dims, extent, pf.ghost);
      }
      if (!sc.two_n) {
        k.emplace_back(p.dtype, p.dims, extent, 0);
        d.emplace_back(p.dtype, p.dims, extent, 0);
        f0.emplace_back(p.dtype, p.dims, extent, 0);
      } else if (sc.stages.size() > 1) {  // 2N registers: padded, bound whole to a fused spec; euler's one stage needs none
        d.emplace_back(p.dtype, p.dims, extent, pf.ghost);
      }
    }
    // The variants `gpen tune` stored for the whole grid: every rank then
    // runs the undecomposed run's kernels, whatever its part's size.
    const std::string size = fmt::format("{}", fmt::join(std::vector<long long>(p.size.begin(), p.size.begin() + p.dims), "x"));
    stored.assign(p.fields.size(), 0);
    if (sc.two_n) {
      stage_rhs.resize(sc.stages.size());
      for (const RhsKernel& r : p.rhs)
        if (std::count_if(r.output_field.begin(), r.output_field.end(), [](int f) { return f >= 0; }) > 0)  // else nothing to update
          add_stages(r, size);
    } else {
      for (const RhsKernel& r : p.rhs) rhs.push_back(as_written(r, size));
    }
    if (p.time_step.speed) cfl = reduction(p.time_step.speed->use, size);
    if (device_dt) {
      cfl_constants = p.cfl_constants();
      const double zero[4] = {0, 0, 0, 0};
      clock.upload(zero, sizeof zero);
      // The speed as the reduction gives it: the program's dtype, or float64.
      const bool f64_speed = cfl->scratch.at(0).dtype() == Dtype::Float64 && p.dtype != Dtype::Float64;
      time_step = module.function(stem + (f64_speed ? "_time_step_f64" : "_time_step"));
      std::vector<CUdeviceptr> globals;
      std::vector<double> betas;
      for (std::size_t st = 0; st < stage_rhs.size(); ++st)
        for (const BoundKernel& b : stage_rhs[st])
          for (CUdeviceptr g : dt_beta_globals_of(b)) {
            globals.push_back(g);
            betas.push_back(sc.stages[st].beta);
          }
      dt_beta_count = static_cast<int>(globals.size());
      dt_beta_globals = DeviceMemory(std::max<std::size_t>(1, globals.size()) * sizeof(CUdeviceptr));
      dt_beta_betas = DeviceMemory(std::max<std::size_t>(1, betas.size()) * sizeof(double));
      if (!globals.empty()) {
        dt_beta_globals.upload(globals.data(), globals.size() * sizeof(CUdeviceptr));
        dt_beta_betas.upload(betas.data(), betas.size() * sizeof(double));
      }
    }
    for (const ReduceUse& r : p.diagnostics.reductions) diagnostics.push_back(reduction(r.use, size));
    if (links) {
      std::vector<std::vector<const DeviceBuffer*>> states(static_cast<std::size_t>(pairs()));
      for (int q = 0; q < pairs(); ++q)
        for (const DeviceBuffer& b : f[static_cast<std::size_t>(q)]) states[static_cast<std::size_t>(q)].push_back(&b);
      links->attach(states, stream.get());
    }
    allocations_after_setup = DeviceMemory::allocations();
  }

  int pairs() const { return sc.two_n ? 2 : 1; }

  // The axes along which field f's stores fill its periodic ghosts: those
  // the kernels store images along, not those split over ranks, whose
  // ghosts the exchange brings.
  unsigned image_axes(int field) const { return periodic_image_axes(p, field) & kernel_images & ~split; }

  // Field f's condition at face (axis, side): none where the links fill it.
  Boundary face(std::size_t field, int axis, int side) const {
    if (exchanged[field][static_cast<std::size_t>(axis)][static_cast<std::size_t>(side)]) return Boundary{BoundaryKind::None, 0, ""};
    return p.fields[field].boundary[static_cast<std::size_t>(axis)][static_cast<std::size_t>(side)];
  }

  // Binds `name` (which reads `ghost` ghosts) in state q's bindings to `b`,
  // or to a view of b with fewer ghosts.
  void bind_to(BoundKernel& bk, int q, const std::string& name, int ghost, const DeviceBuffer& b) {
    if (b.ghost() == ghost) {
      bk.bindings[static_cast<std::size_t>(q)][name] = &b;
    } else {
      bk.views.push_back(narrower_view(b, ghost));
      bk.bindings[static_cast<std::size_t>(q)][name] = &bk.views.back();
    }
  }

  // The kernel of `spec` (u's, or u's fused with an update), its inputs
  // bound to the fields in either state, its params evaluated. Its variant:
  // the one `gpen tune` stored for u's spec at this size (a fused spec has
  // the same tunables), else the defaults; a right-hand side's with the
  // options' overrides.
  BoundKernel bind(const KernelUse& u, const Spec& spec, const std::string& size, bool rhs) {
    BoundKernel b;
    if (rhs && !options.rhs_set.empty()) {
      b.kernel = make_kernel(spec, spec.choose(options.rhs_set), ctx);
    } else {
      const TunedChoice tuned = tuned_choice(u.spec, size, ctx.info());
      try {
        b.kernel = make_kernel(spec, tuned.choice, ctx);
      } catch (const std::exception&) {
        // The variant tuned for the spec as written may not fit the fused
        // spec's arrays (shared memory, registers): its defaults then.
        if (!tuned.record || &spec == &u.spec) throw;
        b.kernel = make_kernel(spec, spec.choose(), ctx);
      }
    }
    // A reduction's results are a few values: its inputs alone count.
    b.arrays = static_cast<int>(spec.inputs().size() + (spec.kind == "reduce" ? 0 : spec.output_fields().size()));
    b.params = p.named_params(u);
    const auto ins = u.spec.inputs();
    for (int q = 0; q < pairs(); ++q)
      for (std::size_t i = 0; i < ins.size(); ++i)
        bind_to(b, q, ins[i]->name, ins[i]->ghost, f[static_cast<std::size_t>(q)][static_cast<std::size_t>(u.input_field[i])]);
    return b;
  }

  // Where time_step writes a fused update's dt beta: its global in every
  // kernel b's launches run (on arrays padded unalike a stencil runs a unit
  // of its own, with globals of its own: Kernel::kernel_for), each once.
  std::vector<CUdeviceptr> dt_beta_globals_of(const BoundKernel& b) const {
    std::vector<CUdeviceptr> globals;
    auto add = [&](const FieldBindings& fields) {
      if (fields.empty()) return;
      const CUdeviceptr g = b.kernel->kernel_for(fields).global("gpen_param_" + b.dt_beta);
      if (std::find(globals.begin(), globals.end(), g) == globals.end()) globals.push_back(g);
    };
    for (const FieldBindings& fields : b.bindings) add(fields);
    for (const BoundKernel::BoxLaunch& l : b.boxes)
      for (const FieldBindings& fields : l.bindings) add(fields);
    return globals;
  }

  // rk4: r's spec as written, its outputs into k (or scratch).
  BoundKernel as_written(const RhsKernel& r, const std::string& size) {
    BoundKernel b = bind(r.use, r.use.spec, size, true);
    const auto outs = r.use.spec.output_fields();
    b.scratch.reserve(outs.size());
    for (std::size_t o = 0; o < outs.size(); ++o) {
      if (r.output_field[o] < 0) b.scratch.emplace_back(p.dtype, p.dims, extent, outs[o]->ghost);
      b.bindings[0][outs[o]->name] = r.output_field[o] >= 0 ? &k[static_cast<std::size_t>(r.output_field[o])] : &b.scratch.back();
    }
    return b;
  }

  // 2N: r's spec with `part` of a stage's update fused in (fused_update.hpp).
  BoundKernel fused(const RhsKernel& r, StagePart part, const std::string& size, bool images) {
    // Along split axes too, unless the stage overlaps its exchange: the
    // kernel is then the undecomposed run's, its arithmetic bit for bit
    // (another kernel may round in other places); the exchange after the
    // stage overwrites the images it stored there.
    const FusedUpdate fu = fuse_update(r, p, part, {images ? kernel_images : 0u, device_dt});
    BoundKernel b = bind(r.use, fu.spec, size, true);
    b.alpha = fu.spec.params[static_cast<std::size_t>(fu.alpha_param)].name;
    b.dt_beta = fu.spec.params[static_cast<std::size_t>(fu.dt_beta_param)].name;
    const auto ins = fu.spec.inputs();
    const auto outs = fu.spec.output_fields();
    for (int q = 0; q < 2; ++q) {
      auto buffer = [&](const FusedSlot& s) -> const DeviceBuffer& {
        const auto i = static_cast<std::size_t>(s.field);
        if (s.what == FusedSlot::What::Register) return d[i];
        return f[static_cast<std::size_t>(s.what == FusedSlot::What::Now ? q : 1 - q)][i];
      };
      for (std::size_t i = r.use.spec.inputs().size(); i < ins.size(); ++i) bind_to(b, q, ins[i]->name, ins[i]->ghost, buffer(fu.inputs[i]));
      for (std::size_t o = 0; o < outs.size(); ++o) bind_to(b, q, outs[o]->name, outs[o]->ghost, buffer(fu.outputs[o]));
    }
    return b;
  }

  // r's kernel fused with each stage's update, its fields' periodic ghosts
  // made by its stores or by fills after it: as the options say, or the
  // faster of both, timed here (each stage's kernel and the fills it
  // would need, a few launches each). Timing writes the other state of the
  // pairs, the registers, and the ghosts of the other state alone.
  void add_stages(const RhsKernel& r, const std::string& size) {
    unsigned axes = 0;  // of r's fields, whose ghosts its stores could fill
    std::vector<std::size_t> outs;
    for (int f : r.output_field)
      if (f >= 0) {
        axes |= periodic_image_axes(p, f) & kernel_images;
        outs.push_back(static_cast<std::size_t>(f));
      }
    auto stages = [&](bool images) {
      std::vector<BoundKernel> v;
      for (std::size_t st = 0; st < sc.stages.size(); ++st) v.push_back(fused(r, StagePart{st > 0, st + 1 < sc.stages.size()}, size, images));
      return v;
    };
    using Ghosts = GpuOptions::PeriodicGhosts;
    std::vector<BoundKernel> chosen;
    // On a decomposed grid every rank must fill them the same way: an
    // exchange sends its slab's ghosts along the other axes too, which
    // are fresh where the stores made them and stale where fills come
    // after it. Timings differ from rank to rank: the stores, unmeasured.
    const bool same_everywhere = links && options.periodic_ghosts == Ghosts::Measured;
    bool images = options.periodic_ghosts == Ghosts::Stores || same_everywhere;
    if (axes == 0 || options.periodic_ghosts != Ghosts::Measured || same_everywhere) {
      chosen = stages(images && axes != 0);
      if (axes)
        ghost_choices.push_back(fmt::format("{}: periodic ghosts {} ({})", r.use.spec.name, images ? "in the stores" : "by fills",
                                            same_everywhere ? "on every rank of a decomposed grid" : "as asked"));
    } else {
      std::vector<BoundKernel> with = stages(true), without = stages(false);
      // Each launch timed alone, the least of kRounds with both ways
      // interleaved, so that the clocks' drift or a neighbour weighs on both.
      Event start, stop;
      auto once = [&](const std::function<void()>& launch) {
        start.record(stream.get());
        launch();
        stop.record(stream.get());
        return static_cast<double>(stop.since(start));
      };
      std::vector<std::function<void()>> ways[2];  // [0]: the stores' launches, [1]: the fills' (kernels, then fill launches)
      for (std::size_t st = 0; st < sc.stages.size(); ++st) {
        ways[0].push_back([&, st] { launch(with[st]); });
        ways[1].push_back([&, st] { launch(without[st]); });
      }
      for (int axis = 0; axis < p.dims; ++axis) {
        std::vector<std::size_t> fs;
        for (std::size_t f : outs)
          if (image_axes(static_cast<int>(f)) >> axis & 1u) fs.push_back(f);
        if (fs.empty()) continue;
        // A stage's fills, once per stage; on gpen's arrays (state 1), never the caller's.
        ways[1].push_back([&, axis, fs] {
          now = 1;
          for (std::size_t st = 0; st < sc.stages.size(); ++st) fill_axis(axis, fs);
          now = 0;
        });
      }
      constexpr int kRounds = 5;
      std::vector<double> least[2];
      for (int w = 0; w < 2; ++w) {
        least[w].assign(ways[w].size(), 1e30);
        for (const auto& launch : ways[w]) launch();  // warm
      }
      for (int round = 0; round < kRounds; ++round)
        for (int w = 0; w < 2; ++w)
          for (std::size_t i = 0; i < ways[w].size(); ++i) least[w][i] = std::min(least[w][i], once(ways[w][i]));
      double t_with = 0, t_without = 0;
      for (double t : least[0]) t_with += t;
      for (double t : least[1]) t_without += t;
      now = 0;
      stream.synchronize();
      images = t_with <= t_without;
      chosen = std::move(images ? with : without);
      ghost_choices.push_back(fmt::format("{}: periodic ghosts {}: {:.3f} ms a step in the stores, {:.3f} by fills", r.use.spec.name,
                                          images ? "in the stores" : "by fills", t_with, t_without));
    }
    if (overlapping)
      for (BoundKernel& b : chosen) cut_into_boxes(b);
    for (std::size_t st = 0; st < sc.stages.size(); ++st) stage_rhs[st].push_back(std::move(chosen[st]));
    if (images)
      for (std::size_t f : outs) stored[f] = image_axes(static_cast<int>(f));
  }

  // b's launches on the shell's boxes and the core's (overlap): each of its
  // bindings, in either state, as the array the box is.
  void cut_into_boxes(BoundKernel& b) {
    for (const bool shell : {true, false})
      for (const HaloBox& box : shell ? regions.shell : regions.core) {
        BoundKernel::BoxLaunch l;
        l.shell = shell;
        for (std::size_t q = 0; q < 2; ++q)
          for (const auto& [name, array] : b.bindings[q]) {
            b.views.push_back(box_view(*array, box));
            l.bindings[q][name] = &b.views.back();
          }
        b.boxes.push_back(std::move(l));
      }
  }

  BoundKernel reduction(const KernelUse& u, const std::string& size) {
    BoundKernel b = bind(u, u.spec, size, false);
    const auto outs = u.spec.output_fields();
    b.scratch.reserve(outs.size());
    for (const FieldDecl* o : outs) {
      b.scratch.emplace_back(field_dtype(u.spec, *o), p.dims, field_shape(*o, extent), 0);
      for (int q = 0; q < pairs(); ++q) b.bindings[static_cast<std::size_t>(q)][o->name] = &b.scratch.back();
    }
    b.kernel->prepare(extent);
    return b;
  }

  void launch(const BoundKernel& b) const { b.kernel->launch(b.bindings[static_cast<std::size_t>(now)], b.params, stream.get()); }

  // b's launches on the shell's boxes (shell) or the core's, in `s`.
  void launch_boxes(const BoundKernel& b, bool shell, CUstream s) const {
    for (const BoundKernel::BoxLaunch& l : b.boxes)
      if (l.shell == shell) b.kernel->launch(l.bindings[static_cast<std::size_t>(now)], b.params, s);
  }

  void launch(CUfunction fn, void** args) const {
    GPEN_CU(cuLaunchKernel(fn, static_cast<unsigned>(blocks), 1, 1, 256, 1, 1, 0, stream.get(), args, nullptr), "launching a time-loop kernel");
  }

  // The ghost zones of the state now: an axis at a time (the later axes'
  // fill the corners), every field's faces of an axis in one launch. After
  // a 2N stage (`after_stage`), the faces its kernels filled in their
  // stores are left out: fills along different axes commute, each covering the
  // others' ghosts, so the stores' periodic images may come first.
  // On a decomposed grid each axis's exchange follows its fill, before the
  // next axis's fill reads its ghosts; where the stage overlapped them
  // (`exchanged`), the exchanges came first, which gives the same ghosts:
  // an exchanged slab's ghosts along a filled axis are stale, but the
  // receiver's own fill of that axis covers the slab's rows after it.
  void fill_boundaries(bool after_stage = false, bool exchanged = false) {
    for (int axis = 0; axis < p.dims; ++axis) {
      fill_axis(axis, filled(axis, after_stage));
      if (!exchanged && split >> axis & 1u) links->exchange_axis(axis, now, stream.get());
    }
  }

  // The fields whose faces of `axis` a fill makes: all, or after a stage
  // those its stores did not; none whose two faces write nothing.
  std::vector<std::size_t> filled(int axis, bool after_stage) const {
    std::vector<std::size_t> fs;
    for (std::size_t i = 0; i < p.fields.size(); ++i)
      if ((!after_stage || !(stored[i] >> axis & 1u)) && (face(i, axis, 0).kind != BoundaryKind::None || face(i, axis, 1).kind != BoundaryKind::None))
        fs.push_back(i);
    return fs;
  }

  // The faces of `axis` of the fields `fs` (indices) in the state now.
  void fill_axis(int axis, const std::vector<std::size_t>& fs) {
    const std::vector<DeviceBuffer>& all = f[static_cast<std::size_t>(now)];
    for (std::size_t first = 0; first < fs.size(); first += kMaxFaceFields) {
      const std::size_t count = std::min<std::size_t>(kMaxFaceFields, fs.size() - first);
      AxisFaces faces{};
      long long points = 1;
      bool apart = true;  // the two sides share no point: one launch fills both
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t field = fs[first + i];
        const DeviceBuffer& b = all[field];
        faces.a[i] = b.get();
        faces.p[i] = padded_of(b);
        for (int side = 0; side < 2; ++side) {
          const Boundary bc = face(field, axis, side);
          faces.kind[i][side] = static_cast<int>(bc.kind);
          faces.value[i][side] = bc.value;
        }
        long long l = std::max(1, b.ghost());  // the face's ghost points: a thread each
        for (int a = 0; a < 3; ++a)
          if (a != axis) l *= a < p.dims ? b.shape()[static_cast<std::size_t>(a)] + 2 * b.ghost() : 1;
        points = std::max(points, l);
        apart = apart && b.shape()[static_cast<std::size_t>(axis)] > 2 * b.ghost() + 1;
      }
      const auto x = static_cast<unsigned>(std::min<long long>((points + 255) / 256, blocks));
      for (int side0 = 0; side0 < 2; side0 += apart ? 2 : 1) {
        void* args[] = {&faces, &axis, &side0};
        GPEN_CU(cuLaunchKernel(boundary_axis, x, static_cast<unsigned>(count), apart ? 2 : 1, 256, 1, 1, 0, stream.get(), args, nullptr),
                "launching the boundary conditions");
      }
    }
  }

  // time_step (time_loop.cuh): dt from the CFL reduction's speed landing
  // on `stop`, or `fixed`, into the clock and the dt_beta globals.
  void launch_time_step(double stop, double fixed) {
    TimeStepArgs a{cfl_constants.cdt_h, cfl_constants.diffusion, cfl_constants.dt_max, stop, fixed, dt_beta_count};
    CUdeviceptr speed = cfl->scratch.at(0).get(), at = clock.get(), globals = dt_beta_globals.get(), betas = dt_beta_betas.get();
    void* args[] = {&speed, &a, &at, &globals, &betas};
    GPEN_CU(cuLaunchKernel(time_step, 1, 1, 1, 32, 1, 1, 0, stream.get(), args, nullptr), "launching the time step");
  }

  // A 2N step's stages: each stage's kernels, then the fills they left.
  void stages(double dt) {
    for (std::size_t st = 0; st < sc.stages.size(); ++st) {
      for (BoundKernel& r : stage_rhs[st]) {
        r.params[r.alpha] = sc.stages[st].alpha;
        r.params[r.dt_beta] = dt * sc.stages[st].beta;  // where it is no device param
      }
      if (overlapping) {
        overlapped_stage(st);
        continue;
      }
      for (const BoundKernel& r : stage_rhs[st]) launch(r);
      now = 1 - now;
      fill_boundaries(true);
    }
  }

  // A stage with its exchanges hidden behind its core: on the shell's
  // stream, once the loop's stream is here, the shell's boxes and then the
  // exchanges of the state they write; the core's boxes on the loop's
  // stream meanwhile (it reads the state now, while the exchanges write
  // the next state's ghosts, and read their slabs from the shell, which the
  // core does not write); the fills once both are done.
  void overlapped_stage(std::size_t st) {
    const CUstream shell = shell_stream->get();
    stage_begun.record(stream.get());
    stage_begun.make_wait(shell);
    for (const BoundKernel& r : stage_rhs[st]) launch_boxes(r, true, shell);
    for (const BoundKernel& r : stage_rhs[st]) launch_boxes(r, false, stream.get());
    for (int axis = 0; axis < p.dims; ++axis)
      if (split >> axis & 1u) links->exchange_axis(axis, 1 - now, shell);
    shell_done.record(shell);
    shell_done.make_wait(stream.get());
    now = 1 - now;
    fill_boundaries(true, true);
  }

  // Each result of `b` as a double, read back (the stream waits).
  std::vector<double> results(const BoundKernel& b) {
    launch(b);
    std::vector<double> v;
    for (const DeviceBuffer& r : b.scratch) {
      r.copy_to_host_async(readback.get(), stream.get());
      stream.synchronize();
      v.push_back(r.dtype() == Dtype::Float32 ? static_cast<double>(*static_cast<const float*>(readback.get()))
                                              : *static_cast<const double*>(readback.get()));
    }
    return v;
  }

  const std::vector<DeviceBuffer>& fields_now() const { return f[static_cast<std::size_t>(now)]; }

  // dst = src, ghosts included.
  void copy(const DeviceBuffer& src, const DeviceBuffer& dst) {
    CUdeviceptr s = src.get(), d = dst.get();
    PaddedArray ps = padded_of(src), pd = padded_of(dst);
    void* args[] = {&s, &ps, &d, &pd};
    launch(copy_padded, args);
  }

  // Field i's state, where a download can read it: the array now, or, for
  // the caller's pitched array, a packed copy in gpen's array of the pair.
  const DeviceBuffer& readable(std::size_t i) {
    const DeviceBuffer& b = f[static_cast<std::size_t>(now)].at(i);
    if (b.packed()) return b;
    // Only the caller's arrays (f[0]) may be pitched; f[1] is free between steps.
    copy(b, f[1][i]);
    return f[1][i];
  }
};

GpuBackend::GpuBackend(const Program& p, const Context& ctx, const GpuOptions& options) {
  if (scheme(p.integrator).two_n) check_fusable(p);
  Program mine = p;  // what this back end holds of p: its size, or its rank's subdomain's
  if (const RankLinks* l = options.links.get()) {
    const Decomposition& d = l->decomposition();
    if (d.size() != p.size || d.dims() != p.dims)
      throw BindingError(fmt::format("program {}: its rank links split a grid of {} points, the program's is {}", p.name, size_text(d.size(), d.dims()),
                                     size_text(p.size, p.dims)));
    mine.size = d.subdomain(l->rank()).extent;
  }
  if (!options.fields.empty()) check_callers_arrays(p, mine.size, options.fields);
  ctx.make_current();
  check_memory(program_memory(mine, true, !options.fields.empty()), ctx);
  s_ = std::make_unique<State>(p, ctx, options);
}

GpuBackend::~GpuBackend() {
  if (!s_) return;
  driver().cuStreamSynchronize(s_->stream.get());
  if (s_->shell_stream) driver().cuStreamSynchronize(s_->shell_stream->get());
}

const std::vector<std::string>& GpuBackend::periodic_ghost_choices() const { return s_->ghost_choices; }

bool GpuBackend::overlapped() const { return s_->overlapping; }

long long GpuBackend::core_points() const { return s_->regions.core.empty() ? 0 : s_->regions.core[0].points(); }

std::string GpuBackend::name() const {
  if (!s_->links) return fmt::format("{} (GPU)", s_->ctx.info().name);
  const RankGrid& g = s_->links->decomposition().grid();
  return fmt::format("{} (GPU), rank {} of {}x{}x{} subdomains", s_->ctx.info().name, s_->links->rank(), g.ranks[0], g.ranks[1], g.ranks[2]);
}

CUstream GpuBackend::stream() const { return s_->stream.get(); }

std::vector<double> GpuBackend::padded_field(int f) const {
  const DeviceBuffer& b = s_->readable(static_cast<std::size_t>(f));
  s_->stream.synchronize();
  return b.download();
}

std::size_t GpuBackend::allocations_since_setup() const { return DeviceMemory::allocations() - s_->allocations_after_setup; }

void GpuBackend::set_field(std::size_t f, const std::vector<double>& interior) {
  State& s = *s_;
  if (f >= s.f[0].size()) throw std::out_of_range(fmt::format("GpuBackend::set_field: field {} of {}", f, s.f[0].size()));
  const std::size_t points = static_cast<std::size_t>(s.extent[0] * s.extent[1] * s.extent[2]);
  if (interior.size() != points) throw std::invalid_argument(fmt::format("GpuBackend::set_field: {} values for field {}'s {} points", interior.size(), f, points));
  // On the caller's arrays, every field's state there first (the others
  // keep theirs), then this one into gpen's of the pair (packed: an upload
  // can write it) and copied over; else into the state's array.
  settle();
  s.stream.synchronize();
  DeviceBuffer& to = s.callers ? s.f[1][f] : s.f[static_cast<std::size_t>(s.now)][f];
  to.upload_interior(interior);  // ghosts 0 until the boundaries fill them
  if (s.callers) s.copy(to, s.f[0][f]);
}

std::size_t GpuBackend::field_count() const { return s_->f[0].size(); }

void GpuBackend::fill_boundaries() {
  s_->fill_boundaries();
  s_->stream.synchronize();
}

void GpuBackend::settle() {
  State& s = *s_;
  if (!s.callers) return;
  if (s.now == 1)
    for (std::size_t i = 0; i < s.f[0].size(); ++i) s.copy(s.f[1][i], s.f[0][i]);
  s.now = 0;
  s.stream.synchronize();  // the caller reads its arrays in streams of its own
}

std::vector<double> GpuBackend::field(std::size_t f) const {
  if (f >= s_->f[0].size()) throw std::out_of_range(fmt::format("GpuBackend::field: field {} of {}", f, s_->f[0].size()));
  const DeviceBuffer& b = s_->readable(f);  // may copy in the loop's stream
  s_->stream.synchronize();
  return b.download_interior();
}

void GpuBackend::step(double dt) {
  State& s = *s_;
  const Scheme& sc = s.sc;
  if (sc.two_n) {
    if (s.device_dt) {
      if (!(dt > 0)) throw std::invalid_argument(fmt::format("GpuBackend::step: dt = {}, not a time step > 0", dt));
      s.launch_time_step(-1, dt);  // the kernels read dt beta from their globals
    }
    s.stages(dt);
    return;
  }
  for (std::size_t st = 0; st < sc.stages.size(); ++st) {
    const Stage& g = sc.stages[st];
    int first = st == 0, last = st + 1 == sc.stages.size();
    const std::vector<DeviceBuffer>& f = s.fields_now();
    if (first)
      for (std::size_t i = 0; i < f.size(); ++i) {
        CUdeviceptr a = f[i].get(), a0 = s.f0[i].get();
        PaddedArray pa = padded_of(f[i]);
        void* args[] = {&a, &a0, &pa};
        s.launch(s.save, args);
      }
    for (const BoundKernel& r : s.rhs) s.launch(r);
    for (std::size_t i = 0; i < f.size(); ++i) {
      CUdeviceptr a = f[i].get(), dd = s.d[i].get(), kk = s.k[i].get(), a0 = s.f0[i].get();
      PaddedArray pa = padded_of(f[i]);
      double weight = g.weight, next = g.next, h = dt;
      void* args[] = {&a, &a0, &dd, &kk, &pa, &first, &last, &weight, &next, &h};
      s.launch(s.update_rk4, args);
    }
    s.fill_boundaries();
  }
}

std::vector<GpuBackend::PartTime> GpuBackend::time_parts(double dt, int repeat) {
  State& s = *s_;
  const Scheme& sc = s.sc;
  std::vector<PartTime> parts;
  Event start, stop;
  // `what`, `times` a step: ms of one launch, repeated alone.
  const Program& p = s.p;
  const double points = static_cast<double>(s.extent[0] * s.extent[1] * s.extent[2]), bytes = points * static_cast<double>(size_of(p.dtype));
  auto time = [&](const std::string& what, double times, bool rhs, double arrays, const std::function<void()>& launch) {
    launch();  // warm
    start.record(s.stream.get());
    for (int r = 0; r < repeat; ++r) launch();
    stop.record(s.stream.get());
    parts.push_back({what, times * stop.since(start) / repeat, rhs, times * arrays * bytes});
  };
  const double stages = static_cast<double>(sc.stages.size());
  if (sc.two_n) {
    // The stages' kernels write the other state and the registers: the state now stays.
    for (std::size_t st = 0; st < sc.stages.size(); ++st)
      for (BoundKernel& r : s.stage_rhs[st]) {
        r.params[r.alpha] = sc.stages[st].alpha;
        r.params[r.dt_beta] = dt * sc.stages[st].beta;
        time(fmt::format("{} (stage {})", r.kernel->source().name, st + 1), 1, true, r.arrays, [&] { s.launch(r); });
      }
  } else {
    for (const BoundKernel& r : s.rhs) time(r.kernel->source().name, stages, true, r.arrays, [&] { s.launch(r); });
  }
  // The fills a step launches (a 2N stage's kernels store some faces).
  for (int axis = 0; axis < p.dims; ++axis) {
    const std::vector<std::size_t> fs = s.filled(axis, sc.two_n);
    time(fmt::format("boundaries {}", "xyz"[axis]), stages, false, 0, [&] { s.fill_axis(axis, fs); });
  }
  // A decomposed grid's exchanges and maximum, every rank timing them together.
  for (int axis = 0; axis < p.dims; ++axis)
    if (s.split >> axis & 1u) time(fmt::format("exchange {}", "xyz"[axis]), stages, false, 0, [&] { s.links->exchange_axis(axis, s.now, s.stream.get()); });
  if (s.cfl) time("CFL speed", 1, false, s.cfl->arrays, [&] { s.launch(*s.cfl); });
  if (s.cfl && s.device_dt && s.links) {
    const DeviceBuffer& speed = s.cfl->scratch.at(0);
    time("CFL speed's maximum over the ranks", 1, false, 0, [&] { s.links->max_in_place(speed.get(), 1, speed.dtype(), s.stream.get()); });
  }
  s.stream.synchronize();
  return parts;
}

double GpuBackend::max_speed() {
  State& s = *s_;
  const double mine = s.results(*s.cfl).at(0);
  if (!s.links) return mine;
  // The speed is the reduction's first result alone: fold that one.
  return fold_over_ranks({s.p.time_step.speed->use.spec.outputs.at(0).op.get()}, per_rank_values(s.links->gather({mine}), s.links->decomposition().count()))
      .at(0);
}

bool GpuBackend::steps_on_device() const { return s_->device_dt; }

void GpuBackend::set_clock(double t) {
  State& s = *s_;
  s.stream.synchronize();
  s.launched.clear();  // a run that threw may have left steps it did not wait for: done now
  const double c[4] = {t, 0, 0, 0};
  s.clock.upload(c, sizeof c);
}

void GpuBackend::launch_step(double stop) {
  State& s = *s_;
  if (!s.device_dt) throw std::logic_error("GpuBackend::launch_step: this loop computes its time step on the host");
  if (s.launched.size() == State::kClockSlots) throw std::logic_error("GpuBackend::launch_step: every clock slot holds a step not yet waited for");
  s.launch(*s.cfl);
  if (s.links) {
    const DeviceBuffer& speed = s.cfl->scratch.at(0);
    s.links->max_in_place(speed.get(), 1, speed.dtype(), s.stream.get());
  }
  s.launch_time_step(stop, 0);
  s.stages(0);
  const int slot = s.next_slot;
  s.next_slot = (slot + 1) % State::kClockSlots;
  double* at = static_cast<double*>(s.clocks.get()) + 4 * slot;
  GPEN_CU(cuMemcpyDtoHAsync(at, s.clock.get(), 4 * sizeof(double), s.stream.get()), "reading the time step back");
  s.clock_read[static_cast<std::size_t>(slot)].record(s.stream.get());
  s.launched.push_back(slot);
}

Backend::Clock GpuBackend::wait_step() {
  State& s = *s_;
  if (s.launched.empty()) throw std::logic_error("GpuBackend::wait_step: no step launched");
  const int slot = s.launched.front();
  s.launched.pop_front();
  s.clock_read[static_cast<std::size_t>(slot)].synchronize();
  const double* c = static_cast<const double*>(s.clocks.get()) + 4 * slot;
  return Clock{c[0], c[1], c[2], c[3] != 0};
}

std::vector<double> GpuBackend::diagnostics() {
  State& s = *s_;
  std::vector<double> v;
  for (const BoundKernel& b : s.diagnostics) {
    const std::vector<double> x = s.results(b);
    v.insert(v.end(), x.begin(), x.end());
  }
  if (!s.links) return v;
  return fold_over_ranks(output_ops(s.p.diagnostics.reductions), per_rank_values(s.links->gather(v), s.links->decomposition().count()));
}

std::optional<NonFinite> GpuBackend::first_non_finite() const {
  State& s = *s_;
  const std::optional<NonFinite> mine = [&]() -> std::optional<NonFinite> {
    constexpr unsigned long long none = ~0ull;
    const std::vector<DeviceBuffer>& f = s.fields_now();
    for (std::size_t i = 0; i < f.size(); ++i) {
      // Reset in the stream, so that the search cannot start before it.
      GPEN_CU(cuMemsetD8Async(s.index.get(), 0xff, sizeof none, s.stream.get()), "resetting the non-finite search");
      CUdeviceptr a = f[i].get(), at = s.index.get();
      PaddedArray pa = padded_of(f[i]);
      void* args[] = {&a, &pa, &at};
      s.launch(s.non_finite, args);
      GPEN_CU(cuMemcpyDtoHAsync(s.readback.get(), s.index.get(), sizeof none, s.stream.get()), "reading the non-finite search back");
      s.stream.synchronize();
      const unsigned long long t = *static_cast<const unsigned long long*>(s.readback.get());
      if (t != none) {
        const long long x = static_cast<long long>(t % s.extent[0]), y = static_cast<long long>((t / s.extent[0]) % s.extent[1]),
                        z = static_cast<long long>(t / (s.extent[0] * s.extent[1]));
        return NonFinite{static_cast<int>(i), {x, y, z}, field(i)[t]};
      }
    }
    return std::nullopt;
  }();
  if (!s.links) return mine;
  return first_over_ranks(mine, s.links->decomposition().subdomain(s.links->rank()), *s.links);
}

}  // namespace gpen::sim
