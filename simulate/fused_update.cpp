#include "fused_update.hpp"

#include <fmt/format.h>

#include "gpen/generator/sha256.hpp"

namespace gpen::sim {
namespace {

// `base`, or base_2, base_3, ...: the first that no field, param, let or
// operator of `s` is named.
std::string unused_name(const Spec& s, const std::string& base) {
  auto taken = [&](const std::string& n) {
    for (const FieldDecl& f : s.fields)
      if (f.name == n) return true;
    for (const ParamDecl& q : s.params)
      if (q.name == n) return true;
    for (const LetDecl& l : s.lets)
      if (l.name == n) return true;
    for (const OperatorDecl& o : s.operators)
      if (o.name == n) return true;
    return false;
  };
  std::string n = base;
  for (int i = 2; taken(n); ++i) n = fmt::format("{}_{}", base, i);
  return n;
}

const char* part_name(StagePart part) {
  if (!part.reads_d) return part.writes_d ? "first_stage" : "only_stage";
  return part.writes_d ? "middle_stage" : "last_stage";
}

}  // namespace

void check_fusable(const Program& p) {
  for (const RhsKernel& r : p.rhs)
    if (r.use.spec.kind != "stencil" && p.source)
      p.source->fail(r.use.pointer + "/spec",
                     fmt::format("{} is an {} spec, and on the GPU {} fuses each stage's update into stencil right-hand sides", r.use.spec.name,
                                 r.use.spec.kind, to_string(p.integrator)),
                     "a stencil spec, or \"integrator\": \"rk4\" for this one");
}

unsigned periodic_image_axes(const Program& p, int f) {
  const ProgramField& pf = p.fields[static_cast<std::size_t>(f)];
  unsigned axes = 0;
  for (int a = 0; a < p.dims; ++a) {
    const auto& b = pf.boundary[static_cast<std::size_t>(a)];
    if (b[0].kind == BoundaryKind::Periodic && b[1].kind == BoundaryKind::Periodic && pf.ghost > 0 && 2 * pf.ghost <= p.size[static_cast<std::size_t>(a)])
      axes |= 1u << a;
  }
  return axes;
}

FusedUpdate fuse_update(const RhsKernel& r, const Program& p, StagePart part, FuseOptions options) {
  const Spec& rhs = r.use.spec;
  FusedUpdate u;
  Spec& s = u.spec;
  s = rhs;
  s.name = fmt::format("{}_{}_{}", rhs.name, to_string(p.integrator), part_name(part));
  s.description = fmt::format("{} with the {} stage's 2N update in its stores: d = alpha d + rhs, F_next = F + dt_beta d", rhs.name,
                              part_name(part));
  s.fields.clear();
  s.outputs.clear();
  s.warnings.clear();

  // The rhs spec's inputs, in their slots.
  for (const FieldDecl& f : rhs.fields)
    if (f.role == FieldDecl::Role::Input) {
      s.fields.push_back(f);
      u.inputs.push_back({FusedSlot::What::Now, r.use.input_field[static_cast<std::size_t>(f.slot)]});
    }
  // The arrays it adds have the field's ghost width (read and written at
  // the point alone): every array of a launch then has the same pitches,
  // the whole padded arrays, packed, with no narrower view among them.
  auto ghost_of = [&](int field) { return p.fields[static_cast<std::size_t>(field)].ghost; };
  // A field of `role` bound to `slot`, appended to the spec; its slot number.
  auto add_field = [&](const std::string& name, FieldDecl::Role role, FusedSlot slot) {
    std::vector<FusedSlot>& slots = role == FieldDecl::Role::Input ? u.inputs : u.outputs;
    FieldDecl f;
    f.name = unused_name(s, name);
    f.role = role;
    f.ghost = ghost_of(slot.field);
    f.slot = static_cast<int>(slots.size());
    s.fields.push_back(f);
    slots.push_back(slot);
    return f.slot;
  };
  auto add_input = [&](const std::string& name, FusedSlot slot) {
    if (s.parsed_footprint) s.parsed_footprint->push_back({0, 0, 0});
    return add_field(name, FieldDecl::Role::Input, slot);
  };
  auto add_param = [&](const std::string& name) {
    ParamDecl q;
    q.name = unused_name(s, name);
    q.value = 0;
    s.params.push_back(q);
    return static_cast<int>(s.params.size()) - 1;
  };
  u.alpha_param = add_param("alpha");
  u.dt_beta_param = add_param("dt_beta");
  s.params.back().device = options.device_dt;

  // Per output that is a field's time derivative: the slots of F now and of d.
  struct Updated {
    int field, now, d;
    IrPtr rhs;
  };
  std::vector<Updated> updated;
  for (const OutputDecl& o : rhs.outputs) {
    const int field = r.output_field[static_cast<std::size_t>(rhs.fields[static_cast<std::size_t>(o.field)].slot)];
    if (field < 0) continue;  // computed, not used: the fused kernel leaves it out
    int now = -1;
    for (std::size_t i = 0; i < r.use.input_field.size(); ++i)
      if (r.use.input_field[i] == field) now = static_cast<int>(i);
    const std::string& fname = p.fields[static_cast<std::size_t>(field)].name;
    if (now < 0) now = add_input(fname + "_now", {FusedSlot::What::Now, field});
    const int d = part.reads_d ? add_input(fname + "_register", {FusedSlot::What::Register, field}) : -1;
    updated.push_back({field, now, d, o.ir});
  }

  auto add_output = [&](const std::string& name, FusedSlot slot, IrPtr ir, const std::string& text) {
    add_field(name, FieldDecl::Role::Output, slot);
    if (slot.what == FusedSlot::What::Next) s.fields.back().periodic_images = periodic_image_axes(p, slot.field) & options.image_axes;
    OutputDecl o;
    o.field = static_cast<int>(s.fields.size()) - 1;
    o.text = text;
    o.ir = std::move(ir);
    s.outputs.push_back(std::move(o));
  };
  for (const Updated& x : updated) {
    const std::string& fname = p.fields[static_cast<std::size_t>(x.field)].name;
    // d = alpha d + k (k alone at the first stage); the same node in both
    // outputs, so that the generated code computes it once.
    const IrPtr d = part.reads_d
                        ? ir_binary(Ir::Kind::Add, ir_binary(Ir::Kind::Mul, ir_param(u.alpha_param), ir_field(Access{x.d, {0, 0, 0}})), x.rhs)
                        : x.rhs;
    if (part.writes_d) {
      add_output(fname + "_register_next", {FusedSlot::What::Register, x.field}, d, "d = alpha d + d" + fname + "/dt");
      // d is stored where it was read (the loop binds both to one array).
      if (part.reads_d) s.fields.back().in_place_of = s.inputs()[static_cast<std::size_t>(x.d)]->name;
    }
    add_output(fname + "_next", {FusedSlot::What::Next, x.field},
               ir_binary(Ir::Kind::Add, ir_field(Access{x.now, {0, 0, 0}}), ir_binary(Ir::Kind::Mul, ir_param(u.dt_beta_param), d)),
               fmt::format("{} + dt beta d", fname));
  }
  // The kernel cache's key: everything the transform read besides the rhs
  // spec (its hash), so that another binding, ghost width, part or set of
  // periodic images is another kernel. kVersion changes with what fuse_update makes of them.
  constexpr const char* kVersion = "fused_update/3";
  std::string what = fmt::format("{} {} {} inputs {} outputs {}", kVersion, rhs.hash, s.name, fmt::join(r.use.input_field, ","), fmt::join(r.output_field, ","));
  for (const FieldDecl& f : s.fields) what += fmt::format("; {} {} ghost {} slot {} images {}", f.name, f.role == FieldDecl::Role::Input ? "in" : "out", f.ghost, f.slot, f.periodic_images);
  for (const ParamDecl& q : s.params) what += fmt::format("; param {}{}", q.name, q.device ? " on the device" : "");
  for (const auto* slots : {&u.inputs, &u.outputs})
    for (const FusedSlot& b : *slots) what += fmt::format("; {}:{}", static_cast<int>(b.what), b.field);
  s.hash = sha256_hex(what);
  return u;
}

}  // namespace gpen::sim
