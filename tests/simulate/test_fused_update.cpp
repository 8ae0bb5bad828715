// The right-hand sides fused with a 2N stage's update (simulate/fused_update.hpp):
// what they compute, on the CPU reference of stencils, against the spec as
// written and the update done apart; and that they compile.
#include <algorithm>
#include <cmath>
#include <deque>

#include <fmt/format.h>

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/stencil/stencil_reference.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/simulate/boundaries.hpp"
#include "gpen/simulate/fused_update.hpp"
#include "program_support.hpp"
#include "test_nvrtc.hpp"

using namespace gpen;
namespace sim = gpen::sim;
using gpen::test::program_of;
using gpen::test::read_file;
using gpen::test::source_dir;
using gpen::test::with;

namespace {

std::string program_text(const std::string& name) { return read_file(source_dir() + "/specs/programs/" + name + ".json"); }

constexpr sim::StagePart kParts[] = {{false, true}, {true, true}, {true, false}, {false, false}};

// Two fields whose right-hand sides read only the other one (the fused
// spec must add each updated field's value as an input), with ghosts wider
// than the stencil reads.
const char* kCrossed = R"~({"name": "crossed", "kind": "program", "dims": 3, "grid": {"size": [11, 9, 7]},
  "fields": [{"name": "a", "ghost": 1, "init": "sin(x)"}, {"name": "b", "ghost": 2}],
  "rhs": [{"spec": "../stencil/laplacian3d_o2.json", "inputs": {"u": "a"}, "outputs": {"lap": "b"}},
          {"spec": "../stencil/laplacian3d_o2.json", "inputs": {"u": "b"}, "outputs": {"lap": "a"}}],
  "integrator": "rk3", "time_step": {"dt": 0.01}})~";

// The shipped programs' texts, and kCrossed.
std::vector<std::string> program_texts() {
  std::vector<std::string> t;
  for (const char* name : {"sound_wave3d", "orszag_tang3d", "heat_walls3d"}) t.push_back(program_text(name));
  t.push_back(kCrossed);
  return t;
}

}  // namespace

TEST_CASE("a right-hand side fused with each part of a 2N stage computes d = alpha d + k and F + dt beta d") {
  const std::array<long long, 3> n{11, 9, 7};
  const double alpha = -5.0 / 9.0, dt_beta = 0.0123;
  int added_values = 0;
  for (const std::string& text : program_texts()) {
    const sim::Program p = program_of(text, n);
    for (const sim::RhsKernel& r : p.rhs)
      for (const sim::StagePart part : kParts) {
        CAPTURE(p.name);
        CAPTURE(r.use.spec.name);
        CAPTURE(part.reads_d);
        CAPTURE(part.writes_d);
        // Random fields (ghosts included) and registers.
        std::vector<HostArray> field, reg;
        for (std::size_t f = 0; f < p.fields.size(); ++f) {
          field.emplace_back(3, n, p.fields[f].ghost);
          fill_random(field.back(), 100 + f, p.dtype);
          reg.emplace_back(3, n, p.fields[f].ghost);
          fill_random(reg.back(), 200 + f, p.dtype);
        }
        // The spec as written: k per output.
        std::vector<const HostArray*> ins;
        for (int f : r.use.input_field) ins.push_back(&field[static_cast<std::size_t>(f)]);
        std::vector<double> params;
        for (const ParamDecl& q : r.use.spec.params) params.push_back(0.5 + q.value);
        std::vector<HostArray> k(r.use.spec.output_fields().size(), HostArray(3, n, 0));
        std::vector<HostArray*> k_out;
        for (HostArray& a : k) k_out.push_back(&a);
        reference_stencil(r.use.spec, ins, params, k_out);

        const sim::FusedUpdate u = sim::fuse_update(r, p, part);
        REQUIRE(u.inputs.size() == u.spec.inputs().size());
        REQUIRE(u.outputs.size() == u.spec.output_fields().size());
        std::vector<HostArray> next, reg_next;
        for (const sim::ProgramField& f : p.fields) {
          next.emplace_back(3, n, f.ghost);
          reg_next.emplace_back(3, n, f.ghost);
        }
        std::vector<const HostArray*> u_ins;
        for (const sim::FusedSlot& s : u.inputs) {
          REQUIRE(s.what != sim::FusedSlot::What::Next);
          u_ins.push_back(s.what == sim::FusedSlot::What::Now ? &field[static_cast<std::size_t>(s.field)] : &reg[static_cast<std::size_t>(s.field)]);
        }
        std::vector<HostArray*> u_outs;
        for (const sim::FusedSlot& s : u.outputs) {
          REQUIRE(s.what != sim::FusedSlot::What::Now);
          u_outs.push_back(s.what == sim::FusedSlot::What::Next ? &next[static_cast<std::size_t>(s.field)] : &reg_next[static_cast<std::size_t>(s.field)]);
        }
        std::vector<double> u_params = params;
        u_params.resize(u.spec.params.size());
        u_params[static_cast<std::size_t>(u.alpha_param)] = alpha;
        u_params[static_cast<std::size_t>(u.dt_beta_param)] = dt_beta;
        reference_stencil(u.spec, u_ins, u_params, u_outs);

        // The update apart, point by point.
        int updated = 0, next_outputs = 0;
        double worst = 0;
        for (std::size_t o = 0; o < k.size(); ++o) {
          const int f = r.output_field[o];
          if (f < 0) continue;
          ++updated;
          for (long long z = 0; z < n[2]; ++z)
            for (long long y = 0; y < n[1]; ++y)
              for (long long x = 0; x < n[0]; ++x) {
                const auto fi = static_cast<std::size_t>(f);
                const double d = part.reads_d ? alpha * reg[fi].at(x, y, z) + k[o].at(x, y, z) : k[o].at(x, y, z);
                const double want = field[fi].at(x, y, z) + dt_beta * d;
                worst = std::max(worst, std::fabs(next[fi].at(x, y, z) - want) / (1 + std::fabs(want)));
                if (part.writes_d) worst = std::max(worst, std::fabs(reg_next[fi].at(x, y, z) - d) / (1 + std::fabs(d)));
              }
        }
        for (const sim::FusedSlot& s : u.outputs) next_outputs += s.what == sim::FusedSlot::What::Next ? 1 : 0;
        CHECK(updated == next_outputs);
        added_values += static_cast<int>(u.inputs.size() - r.use.input_field.size()) - (part.reads_d ? updated : 0);
        CHECK(u.outputs.size() == static_cast<std::size_t>(updated * (part.writes_d ? 2 : 1)));
        CHECK(worst < 1e-13);
        CHECK(u.spec.hash != r.use.spec.hash);
      }
  }
  CHECK(added_values == 2 * 4);  // kCrossed: a and b, at each part
}

TEST_CASE("a middle stage stores d in place of the d it read, which alone of its outputs may share its input's memory") {
  const std::array<long long, 3> n{11, 9, 7};
  // Never dereferenced: check_bindings reads no memory. 1 MiB apart, per slot kind and field.
  const auto fake = [](const sim::FusedSlot& s) {
    return 0x100000ULL * static_cast<CUdeviceptr>(1 + 10 * static_cast<int>(s.what) + s.field);
  };
  for (const std::string& text : program_texts()) {
    const sim::Program p = program_of(text, n);
    for (const sim::RhsKernel& r : p.rhs) {
      const sim::FusedUpdate u = sim::fuse_update(r, p, sim::StagePart{true, true});
      CAPTURE(u.spec.name);
      // As the GPU loop binds them: each slot to its field's buffer of that kind.
      std::deque<DeviceBuffer> views;
      FieldBindings fields;
      const auto bind = [&](const FieldDecl& f, const sim::FusedSlot& slot) {
        views.push_back(DeviceBuffer::view(fake(slot), p.dtype, 3, n, f.ghost));
        fields[f.name] = &views.back();
      };
      const auto ins = u.spec.inputs();
      const auto outs = u.spec.output_fields();
      for (std::size_t i = 0; i < ins.size(); ++i) bind(*ins[i], u.inputs[i]);
      for (std::size_t o = 0; o < outs.size(); ++o) {
        bind(*outs[o], u.outputs[o]);
        const bool reg = u.outputs[o].what == sim::FusedSlot::What::Register;
        CHECK(outs[o]->in_place_of.empty() != reg);
        if (reg) CHECK(fields.at(outs[o]->in_place_of)->get() == fake(u.outputs[o]));  // the register input of the same field
      }
      CHECK(check_bindings(u.spec, fields, {}, Pitches::Any) == n);
      // F_next onto F now: refused, naming both.
      const auto next = std::find_if(outs.begin(), outs.end(), [](const FieldDecl* f) { return f->in_place_of.empty(); });
      REQUIRE(next != outs.end());
      const sim::FusedSlot now{sim::FusedSlot::What::Now, u.outputs[static_cast<std::size_t>(next - outs.begin())].field};
      bind(**next, now);
      const std::string refusal = fmt::format("output '{}' and input '", (*next)->name);
      CHECK_THROWS_WITH_AS(check_bindings(u.spec, fields, {}, Pitches::Any), doctest::Contains(refusal.c_str()), BindingError);
    }
  }
}

TEST_CASE("the fused right-hand sides of the shipped programs compile for sm_90, every part of a stage") {
  for (const char* name : {"sound_wave3d", "orszag_tang3d", "heat_walls3d"}) {
    const sim::Program p = program_of(program_text(name));
    for (const sim::RhsKernel& r : p.rhs)
      for (const sim::StagePart part : kParts) {
        const sim::FusedUpdate u = sim::fuse_update(r, p, part);
        const Variant g = generate(u.spec, u.spec.choose());
        CAPTURE(g.name);
        const CompiledKernel k = compile_with_nvrtc(source_program(g, u.spec.name), "sm_90");
        INFO("NVRTC log:\n" << k.log);
        CHECK(k.ptx.find(g.kernel_name) != std::string::npos);
        CHECK(k.usage.registers > 0);
        // mhd_iso3d as written needs 255 registers: with twice the outputs
        // ptxas may spill a few bytes, no more.
        CHECK(k.usage.spill_stores <= 32);
      }
  }
}

TEST_CASE("with the time step on the device a fused kernel reads dt beta from its global, which the host finds by name") {
  const sim::Program p = program_of(program_text("sound_wave3d"));
  const sim::FusedUpdate host = sim::fuse_update(p.rhs[1], p, {true, true});
  const sim::FusedUpdate device = sim::fuse_update(p.rhs[1], p, {true, true}, {~0u, true});
  CHECK(device.spec.params[static_cast<std::size_t>(device.dt_beta_param)].device);
  CHECK(!host.spec.params[static_cast<std::size_t>(host.dt_beta_param)].device);
  CHECK(device.spec.hash != host.spec.hash);
  const Variant g = generate(device.spec, device.spec.choose());
  CHECK(g.source.find("__device__ double gpen_param_dt_beta;") != std::string::npos);
  CHECK(g.source.find("const real p_dt_beta = gpen_param_dt_beta;") != std::string::npos);
  const CompiledKernel k = compile_with_nvrtc(source_program(g, device.spec.name), "sm_90");
  INFO("NVRTC log:\n" << k.log);
  CHECK(k.ptx.find(".global .align 8 .f64 gpen_param_dt_beta") != std::string::npos);
}

TEST_CASE("a fused spec's hash (its kernels' cache key) changes with what the transform read: ghost widths, bindings, the part") {
  const std::array<long long, 3> n{11, 9, 7};
  const sim::Program p = program_of(kCrossed, n);
  const sim::Program wider = program_of(with(kCrossed, R"~({"name": "b", "ghost": 2})~", R"~({"name": "b", "ghost": 3})~"), n);
  const sim::Program swapped = program_of(with(kCrossed, R"~("inputs": {"u": "a"}, "outputs": {"lap": "b"})~", R"~("inputs": {"u": "b"}, "outputs": {"lap": "b"})~"), n);
  const sim::StagePart first{false, true}, middle{true, true};
  const std::string h = sim::fuse_update(p.rhs[0], p, first).spec.hash;
  CHECK(sim::fuse_update(p.rhs[0], p, first).spec.hash == h);
  CHECK(sim::fuse_update(wider.rhs[0], wider, first).spec.hash != h);
  CHECK(sim::fuse_update(swapped.rhs[0], swapped, first).spec.hash != h);
  CHECK(sim::fuse_update(p.rhs[0], p, middle).spec.hash != h);
}

TEST_CASE("a fused stage stores F_next's periodic ghosts along the axes periodic on both faces whose ghost fits the interior") {
  const sim::StagePart first{false, true};
  auto next_images = [&](const sim::Program& p, const sim::FusedUpdate& u) {
    std::vector<unsigned> images;
    for (const FieldDecl* f : u.spec.output_fields()) {
      const sim::FusedSlot& s = u.outputs[static_cast<std::size_t>(f->slot)];
      if (s.what == sim::FusedSlot::What::Next) {
        CHECK(f->periodic_images == sim::periodic_image_axes(p, s.field));
        images.push_back(f->periodic_images);
      } else {
        CHECK(f->periodic_images == 0);  // d's ghosts are never read
      }
    }
    return images;
  };
  // heat_walls3d: walls along x and z, periodic along y.
  const sim::Program heat = program_of(program_text("heat_walls3d"), std::array<long long, 3>{11, 9, 7});
  CHECK(next_images(heat, sim::fuse_update(heat.rhs[0], heat, first)) == std::vector<unsigned>{2});
  // The sound wave: periodic everywhere, ghost 3; none along an axis of 5 points (< 2 ghosts).
  const sim::Program wave = program_of(program_text("sound_wave3d"), std::array<long long, 3>{11, 9, 7});
  const sim::Program thin = program_of(program_text("sound_wave3d"), std::array<long long, 3>{11, 5, 7});
  for (const sim::RhsKernel& r : wave.rhs)
    for (unsigned images : next_images(wave, sim::fuse_update(r, wave, first))) CHECK(images == 7);
  CHECK(next_images(thin, sim::fuse_update(thin.rhs[0], thin, first)) == std::vector<unsigned>{5});
  CHECK(sim::fuse_update(thin.rhs[0], thin, first).spec.hash != sim::fuse_update(wave.rhs[0], wave, first).spec.hash);

  // The reference stores the images: every ghost of a field periodic on
  // every axis equals the program's boundary fill of the interior.
  const sim::RhsKernel& r = wave.rhs[0];
  const sim::FusedUpdate u = sim::fuse_update(r, wave, first);
  std::vector<HostArray> field;
  for (std::size_t f = 0; f < wave.fields.size(); ++f) {
    field.emplace_back(3, wave.size, wave.fields[f].ghost);
    fill_random(field.back(), 300 + f, wave.dtype);
  }
  std::vector<const HostArray*> ins;
  for (const sim::FusedSlot& s : u.inputs) ins.push_back(&field[static_cast<std::size_t>(s.field)]);
  std::vector<HostArray> outs;
  for (const sim::FusedSlot& s : u.outputs) outs.emplace_back(3, wave.size, wave.fields[static_cast<std::size_t>(s.field)].ghost);
  std::vector<HostArray*> out_ptrs;
  for (HostArray& a : outs) out_ptrs.push_back(&a);
  std::vector<double> params(u.spec.params.size(), 0.5);
  reference_stencil(u.spec, ins, params, out_ptrs);
  int checked = 0;
  for (std::size_t o = 0; o < outs.size(); ++o) {
    if (u.outputs[o].what != sim::FusedSlot::What::Next) continue;
    HostArray want = outs[o];
    sim::apply_boundaries(wave.fields[static_cast<std::size_t>(u.outputs[o].field)], want);
    CHECK(outs[o].data == want.data);
    ++checked;
  }
  CHECK(checked > 0);
}

TEST_CASE("a program whose right-hand side is no stencil cannot fuse its stages: refused at the spec's place, rk4 offered") {
  const std::string text = program_text("wave2d_sbp");
  const sim::Program rk3 = program_of(with(text, R"~("integrator": "rk4")~", R"~("integrator": "rk3")~"));
  try {
    sim::check_fusable(rk3);
    FAIL("an SBP right-hand side was fused");
  } catch (const SpecError& e) {
    CHECK(e.pointer() == "/rhs/1/spec");
    CHECK(e.line() > 0);
    CHECK(e.detail().expected.find("rk4") != std::string::npos);
  }
  CHECK_NOTHROW(sim::check_fusable(program_of(program_text("sound_wave3d"))));
}

