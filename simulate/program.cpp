#include "program.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <variant>

#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/json_reader.hpp"
#include "gpen/generator/sha256.hpp"
#include "npy.hpp"

namespace gpen::sim {

const char* to_string(Integrator i) {
  switch (i) {
    case Integrator::Rk3: return "rk3";
    case Integrator::Rk4: return "rk4";
    case Integrator::Euler: return "euler";
  }
  return "?";
}

const char* to_string(BoundaryKind k) {
  switch (k) {
    case BoundaryKind::Periodic: return "periodic";
    case BoundaryKind::Symmetric: return "symmetric";
    case BoundaryKind::Antisymmetric: return "antisymmetric";
    case BoundaryKind::Value: return "value";
    case BoundaryKind::None: return "none";
  }
  return "?";
}

namespace {

constexpr long long kMaxPoints = 1LL << 40;  // per axis and in all: far past any GPU's memory
const char* const kAxes[3] = {"x", "y", "z"};

// The names `prefix` + x, y, z give a program of `dims` axes, three slots
// in order: an axis it lacks keeps its slot under no name, so that its
// value (coordinate 0, spacing and length 1) cannot pass silently for a
// copied 3-D expression's.
void push_axis_names(std::vector<std::string>& names, const std::string& prefix, int dims) {
  for (int a = 0; a < 3; ++a) names.push_back(a < dims ? prefix + kAxes[a] : "");
}

// The same names in words: "hx, hy" for prefix "h" and 2 axes.
std::string axis_names(const std::string& prefix, int dims) {
  std::string s;
  for (int a = 0; a < dims && a < 3; ++a) s += (a ? ", " : "") + prefix + kAxes[a];
  return s;
}

std::string join_path(const std::string& folder, const std::string& path) {
  if (path.empty() || path[0] == '/' || folder.empty()) return path;
  return folder + "/" + path;
}

class ProgramReader {
 public:
  ProgramReader(const JsonSource& src, Diagnostics& diag, Program& p, std::string folder)
      : src_(src), diag_(diag), r_(src, diag), p_(p), folder_(std::move(folder)) {}

  void read(const SizeOverride& size, std::optional<Dtype> dtype);

 private:
  void grid(const SizeOverride& size);
  void params();
  void fields();
  void rhs();
  void boundaries();
  void time_step();
  void diagnostics();
  void snapshots();
  void spacing_rule();
  void sbp_axes_walled();  // after rhs() and boundaries(): walls, and the points the closures need
  // A kernel spec named at ptr + "/spec", its inputs bound (ptr + "/inputs")
  // and params given (ptr + "/params").
  // What a kernel spec is used for: a right-hand side (a stencil), or a
  // reduction over every axis (diagnostics, the CFL speed).
  enum class Use { Rhs, Reduction };
  // A spec of the wrong kind for `use` is refused, `expected` saying what
  // would do, before its bindings are read.
  KernelUse kernel_use(const std::string& ptr, Use use, const std::string& expected);
  int field_at(const std::string& ptr) const;  // a field's name at ptr
  void init_file(const std::string& ptr, ProgramField& f);  // {"npy": path} at ptr
  // Refuses a reduction that keeps an axis (its results would be arrays, not numbers).
  void reduces_every_axis(const std::string& ptr, const KernelUse& k) const;
  void face_list(const std::string& ptr, std::vector<std::pair<int, int>>& faces) const;

  const JsonSource& src_;
  Diagnostics& diag_;
  JsonReader r_;
  Program& p_;
  std::string folder_;
  std::optional<Dtype> dtype_;
  // Said after an error about the grid's points where the command line
  // gave them (--size, size=), not /grid/size: "" otherwise.
  std::string size_given_;
  bool fields_ok_ = false;
};

void ProgramReader::read(const SizeOverride& size, std::optional<Dtype> dtype) {
  // A kernel spec given where a program belongs: one error that says so,
  // not one for each program key it lacks and each of its own.
  const nlohmann::json& root = src_.root();
  if (root.is_object() && root.contains("kind") && root["kind"].is_string()) {
    const std::vector<std::string> kinds = family_kinds();
    const std::string kind = root["kind"].get<std::string>();
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end())
      src_.fail("/kind", fmt::format("this file is a kernel spec (kind '{}'), not a program", kind),
                "a program (kind \"program\"), which names its kernel specs in /rhs; gpen check, gen and compile take a kernel spec");
  }
  const JsonReader::Keys keys = r_.object("", {"name", "kind", "dims", "grid", "fields", "rhs"},
                                          {"$schema", "description", "dtype", "params", "integrator", "boundaries", "time_step", "diagnostics", "snapshots"});
  // A required key that is missing is recorded by object(): read the others.
  if (r_.has("/name")) diag_.unit([&] { p_.name = r_.identifier("/name"); });
  if (r_.has("/kind")) diag_.unit([&] { r_.choice("/kind", {"program"}); });
  if (r_.has("/description")) diag_.unit([&] { p_.description = r_.string("/description"); });
  const bool dims_ok = r_.has("/dims") && diag_.unit([&] { p_.dims = static_cast<int>(r_.integer("/dims", 1, 3)); });
  diag_.unit([&] {
    if (dtype) p_.dtype = *dtype;
    else if (r_.has("/dtype")) p_.dtype = r_.choice("/dtype", {"float64", "float32"}) == "float32" ? Dtype::Float32 : Dtype::Float64;
  });
  dtype_ = p_.dtype;
  if (!dims_ok || !keys.complete) throw UnitFailed{};  // recorded: parse_program throws them
  const bool grid_ok = diag_.unit([&] { grid(size); });
  if (r_.has("/params")) diag_.unit([&] { params(); });
  fields_ok_ = diag_.unit([&] { fields(); });
  if (!fields_ok_) return;
  if (r_.has("/integrator"))
    diag_.unit([&] {
      const std::string s = r_.choice("/integrator", {"rk3", "rk4", "euler"});
      p_.integrator = s == "rk3" ? Integrator::Rk3 : s == "rk4" ? Integrator::Rk4 : Integrator::Euler;
    });
  const bool boundaries_ok = !r_.has("/boundaries") || diag_.unit([&] { boundaries(); });
  const bool spacing_ok = grid_ok && diag_.unit([&] { spacing_rule(); });  // else its errors would follow from the grid's
  if (diag_.unit([&] { rhs(); }) && boundaries_ok && spacing_ok) diag_.unit([&] { sbp_axes_walled(); });
  if (r_.has("/time_step")) diag_.unit([&] { time_step(); });
  else diag_.unit([&] { src_.fail("", "missing key 'time_step'", "an object with 'time_step': {\"dt\": ...} or {\"cfl\": {...}}"); });
  if (r_.has("/diagnostics")) diag_.unit([&] { diagnostics(); });
  if (r_.has("/snapshots")) diag_.unit([&] { snapshots(); });
}

void ProgramReader::grid(const SizeOverride& size) {
  r_.entry("/grid", {"size"}, {"box", "origin"});
  const int d = p_.dims;
  auto triple = [&](const std::string& ptr, auto read_one) {
    const std::size_t n = r_.array(ptr, true, 3);
    if (static_cast<int>(n) != d) src_.fail(ptr, fmt::format("{} entries for a {}-D program", n, d), fmt::format("{} entries, one an axis", d));
    for (int a = 0; a < d; ++a) read_one(json_pointer_join(ptr, static_cast<std::size_t>(a)), a);
  };
  triple("/grid/size", [&](const std::string& ptr, int a) { p_.size[a] = r_.integer(ptr, 1, kMaxPoints); });
  if (size) {
    const std::array<long long, 3> given = size(d);
    for (int a = 0; a < 3; ++a) p_.size[a] = a < d ? given[a] : 1;
    size_given_ = fmt::format(" (the size given instead of /grid/size: {})", fmt::join(p_.size.begin(), p_.size.begin() + d, "x"));
  }
  long long points = 1;
  for (int a = 0; a < d; ++a) {
    if (p_.size[a] < 1) src_.fail("/grid/size", fmt::format("{} points along {}{}", p_.size[a], kAxes[a], size_given_), "at least 1 point an axis");
    if (p_.size[a] > kMaxPoints / points)
      src_.fail("/grid/size", fmt::format("more than {} points{}", kMaxPoints, size_given_), fmt::format("at most {} points", kMaxPoints));
    points *= p_.size[a];
  }
  p_.box_given = r_.has("/grid/box");  // without it, spacing 1 (Program::spacing)
  if (r_.has("/grid/box"))
    triple("/grid/box", [&](const std::string& ptr, int a) {
      const double v = r_.number(ptr);
      if (!(v > 0) || !std::isfinite(v)) src_.fail(ptr, fmt::format("{}", v), "a length > 0");
      p_.box[a] = v;
    });
  if (r_.has("/grid/origin")) triple("/grid/origin", [&](const std::string& ptr, int a) { p_.origin[a] = r_.number(ptr); });
}

void ProgramReader::params() {
  const std::size_t n = r_.array("/params", false, kMaxParams);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string ptr = json_pointer_join("/params", i);
    diag_.unit([&] {
      r_.entry(ptr, {"name", "value"}, {"description"});
      ProgramParam q;
      q.name = r_.identifier(ptr + "/name");
      for (const ProgramParam& o : p_.params)
        if (o.name == q.name) src_.fail(ptr + "/name", fmt::format("the param '{}' is declared twice", q.name), "a name of its own");
      for (const char* reserved : {"x", "y", "z", "hx", "hy", "hz", "Lx", "Ly", "Lz", "pi", "t"})
        if (q.name == reserved) src_.fail(ptr + "/name", fmt::format("'{}' is a name programs give", q.name), "a name other than x, y, z, hx, hy, hz, Lx, Ly, Lz, pi, t");
      q.value = r_.number(ptr + "/value");
      p_.params.push_back(q);
    });
  }
}

void ProgramReader::fields() {
  const std::size_t n = r_.array("/fields", true, kMaxFields);
  // Initial values read x, y, z, then the params and pi.
  std::vector<std::string> names;
  push_axis_names(names, "", p_.dims);
  const std::string coordinates = "a coordinate (" + axis_names("", p_.dims) + ")";
  for (const ProgramParam& q : p_.params) names.push_back(q.name);
  names.push_back("pi");
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string ptr = json_pointer_join("/fields", i);
    ok &= diag_.unit([&] {
      r_.entry(ptr, {"name", "ghost"}, {"init", "noise", "description"});
      ProgramField f;
      f.pointer = ptr;
      f.name = r_.identifier(ptr + "/name");
      if (p_.find_field(f.name) >= 0) src_.fail(ptr + "/name", fmt::format("the field '{}' is declared twice", f.name), "a name of its own");
      f.ghost = static_cast<int>(r_.integer(ptr + "/ghost", 0, 64));
      if (r_.has(ptr + "/init") && r_.at(ptr + "/init").is_object()) init_file(ptr + "/init", f);
      else if (r_.has(ptr + "/init")) f.init = ScalarExpr::parse(r_, ptr + "/init", names, coordinates + ", a param of the program or pi");
      if (r_.has(ptr + "/noise")) {
        r_.entry(ptr + "/noise", {"amplitude", "seed"}, {});
        f.noise = r_.number(ptr + "/noise/amplitude");
        f.seed = static_cast<std::uint64_t>(r_.integer(ptr + "/noise/seed", 0, (1LL << 53)));
      }
      p_.fields.push_back(std::move(f));
    });
  }
  if (!ok) throw UnitFailed{};
}

void ProgramReader::init_file(const std::string& ptr, ProgramField& f) {
  r_.entry(ptr, {"npy"}, {});
  const std::string written = r_.string(ptr + "/npy");
  f.init_npy = join_path(folder_, written);
  const std::string expected = fmt::format("a .npy file of float64 or float32 values, shape ({}) (z, y, x: a snapshot's field), relative to the program's folder",
                                           fmt::join(p_.c_order_shape(), ", "));
  std::error_code ec;
  if (!std::filesystem::is_regular_file(f.init_npy, ec))
    src_.fail(ptr + "/npy", fmt::format("no file '{}' (looked for {})", quoted_text(written, 200), quoted_text(f.init_npy, 200)), expected);
  NpyArray header;
  try {
    header = read_npy(f.init_npy, true);
  } catch (const std::runtime_error& e) {
    src_.fail(ptr + "/npy", quoted_text(e.what(), 300), expected);
  }
  if (header.shape != p_.c_order_shape())
    src_.fail(ptr + "/npy", fmt::format("'{}' has shape ({}){}", quoted_text(written, 200), fmt::join(header.shape, ", "), size_given_), expected);
}

int ProgramReader::field_at(const std::string& ptr) const {
  const std::string name = r_.string(ptr);
  const int f = p_.find_field(name);
  if (f < 0) {
    std::vector<std::string> names;
    for (const ProgramField& x : p_.fields) names.push_back(x.name);
    src_.fail(ptr, fmt::format("no field '{}'{}", quoted_text(name), did_you_mean(name, names)), fmt::format("one of the program's fields: {}", fmt::join(names, ", ")));
  }
  return f;
}

void ProgramReader::reduces_every_axis(const std::string& ptr, const KernelUse& k) const {
  const unsigned all = (1u << p_.dims) - 1;
  if ((k.spec.reduce().axes & all) != all)
    src_.fail(ptr + "/spec", fmt::format("{} keeps an axis: its results are arrays", k.spec.name), "a reduction over every axis (one number a result)");
}

KernelUse ProgramReader::kernel_use(const std::string& ptr, Use use, const std::string& expected) {
  KernelUse u;
  u.pointer = ptr;
  std::string written;  // the spec file as the program names it, or the inline spec's name
  if (r_.has(ptr + "/spec") && r_.at(ptr + "/spec").is_object()) {
    // Written inline: read as a file would be, its errors at their place in the program.
    u.spec = parse_spec(std::make_shared<JsonSource>(src_.subtree(ptr + "/spec")), dtype_);
    u.path = fmt::format("{}#{}", src_.name(), ptr + "/spec");
    written = u.spec.name;
  } else {
    if (r_.has(ptr + "/spec") && !r_.at(ptr + "/spec").is_string())
      src_.fail(ptr + "/spec", fmt::format("found {}", json_type_name(r_.at(ptr + "/spec"))),
                "the path of a spec file relative to the program's folder, or a spec written here (an object)");
    written = r_.string(ptr + "/spec");
    u.path = join_path(folder_, written);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(u.path, ec))
      src_.fail(ptr + "/spec", fmt::format("no spec file '{}' (looked for {})", quoted_text(written, 200), quoted_text(u.path, 200)),
                "the path of a spec file relative to the program's folder, or a spec written here (an object)");
    if (is_program_file(u.path))
      src_.fail(ptr + "/spec", fmt::format("'{}' is a program, not a kernel spec", quoted_text(written, 200)), "a stencil or reduce spec");
    u.spec = load_spec(u.path, dtype_);
  }
  if (u.spec.dims != p_.dims)
    src_.fail(ptr + "/spec", fmt::format("'{}' is {}-D, the program {}-D", quoted_text(written), u.spec.dims, p_.dims), fmt::format("a {}-D spec", p_.dims));
  const bool right_kind = use == Use::Rhs ? std::holds_alternative<StencilDecl>(u.spec.decl) || std::holds_alternative<SbpDecl>(u.spec.decl)
                                          : std::holds_alternative<ReduceDecl>(u.spec.decl);
  if (!right_kind) src_.fail(ptr + "/spec", fmt::format("{} is a {} spec", u.spec.name, u.spec.kind), expected);
  if (use == Use::Reduction) reduces_every_axis(ptr, u);
  // Inputs: by the program's field of the same name, unless bound.
  const std::vector<const FieldDecl*> ins = u.spec.inputs();
  u.input_field.assign(ins.size(), -1);
  if (r_.has(ptr + "/inputs")) {
    const nlohmann::json& m = r_.at(ptr + "/inputs");
    if (!m.is_object()) src_.fail(ptr + "/inputs", fmt::format("found {}", json_type_name(m)), "an object: the spec's input -> the program's field");
    for (auto it = m.begin(); it != m.end(); ++it) {
      const std::string kp = json_pointer_join(ptr + "/inputs", it.key());
      const FieldDecl* d = u.spec.find_field(it.key());
      if (!d || d->role != FieldDecl::Role::Input)
        src_.fail(kp, fmt::format("'{}' is no input of {}", quoted_text(it.key()), u.spec.name), "an input field of the spec", true);
      u.input_field[d->slot] = field_at(kp);
    }
  }
  for (const FieldDecl* d : ins) {
    int& f = u.input_field[d->slot];
    if (f < 0) f = p_.find_field(d->name);
    if (f < 0)
      src_.fail(ptr + "/spec", fmt::format("{} reads '{}', which is no field of the program", u.spec.name, d->name),
                fmt::format("a field '{}', or \"inputs\": {{\"{}\": FIELD}}", d->name, d->name));
    const ProgramField& pf = p_.fields[f];
    // A field with wider ghost zones than a spec reads is passed as a view of
    // its interior with its pitches (the GPU), or read as it is (the CPU).
    if (pf.ghost < d->ghost)
      src_.fail(ptr + "/spec", fmt::format("{} reads '{}' with ghost {}; the program's field '{}' has ghost {}", u.spec.name, d->name, d->ghost, pf.name, pf.ghost),
                fmt::format("ghost {} or more at {}/ghost", d->ghost, pf.pointer));
  }
  // Params: given, else the program's param of the same name, else the spec's value.
  std::vector<std::string> names = p_.param_names();
  u.param.assign(u.spec.params.size(), ScalarExpr::constant(0));
  std::vector<bool> given(u.spec.params.size(), false);
  if (r_.has(ptr + "/params")) {
    const nlohmann::json& m = r_.at(ptr + "/params");
    if (!m.is_object()) src_.fail(ptr + "/params", fmt::format("found {}", json_type_name(m)), "an object: the spec's param -> an expression");
    for (auto it = m.begin(); it != m.end(); ++it) {
      const std::string kp = json_pointer_join(ptr + "/params", it.key());
      auto q = std::find_if(u.spec.params.begin(), u.spec.params.end(), [&](const ParamDecl& d) { return d.name == it.key(); });
      if (q == u.spec.params.end()) src_.fail(kp, fmt::format("'{}' is no param of {}", quoted_text(it.key()), u.spec.name), "a param of the spec", true);
      const std::size_t s = static_cast<std::size_t>(q - u.spec.params.begin());
      u.param[s] = ScalarExpr::parse(r_, kp, names, p_.param_noun());
      given[s] = true;
    }
  }
  for (std::size_t s = 0; s < u.spec.params.size(); ++s) {
    if (given[s]) continue;
    auto q = std::find_if(p_.params.begin(), p_.params.end(), [&](const ProgramParam& x) { return x.name == u.spec.params[s].name; });
    u.param[s] = ScalarExpr::constant(q != p_.params.end() ? q->value : u.spec.params[s].value);
  }
  // The values are constants of the run: a non-finite one is refused here.
  const std::vector<double> values = p_.param_values();
  for (std::size_t s = 0; s < u.spec.params.size(); ++s) {
    const double v = u.param[s](values.data());
    // A float32 kernel reads its params as float32: past its range, inf.
    const bool f32 = u.spec.dtype == Dtype::Float32;
    if (!std::isfinite(v) || (f32 && std::fabs(v) > FLT_MAX))
      src_.fail(given[s] ? json_pointer_join(ptr + "/params", u.spec.params[s].name) : ptr + "/spec",
                fmt::format("{}'s param '{}' is {}{}", u.spec.name, u.spec.params[s].name, v, std::isfinite(v) ? ", beyond float32's range" : ""),
                f32 ? "a finite float32, at most about 3.4e38 in magnitude" : "a finite value");
  }
  return u;
}

void ProgramReader::rhs() {
  const std::size_t n = r_.array("/rhs", true, kMaxFields);
  std::vector<std::string> derivative_of(p_.fields.size());  // the output that gives each field's d/dt
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string ptr = json_pointer_join("/rhs", i);
    ok &= diag_.unit([&] {
      r_.entry(ptr, {"spec", "outputs"}, {"inputs", "params"});
      RhsKernel k{kernel_use(ptr, Use::Rhs, "a stencil or SBP spec: its outputs are time derivatives"), {}};
      const std::vector<const FieldDecl*> outs = k.use.spec.output_fields();
      k.output_field.assign(outs.size(), -1);
      const nlohmann::json& m = r_.at(ptr + "/outputs");
      if (!m.is_object()) src_.fail(ptr + "/outputs", fmt::format("found {}", json_type_name(m)), "an object: the spec's output -> the field it is the time derivative of");
      for (auto it = m.begin(); it != m.end(); ++it) {
        const std::string kp = json_pointer_join(ptr + "/outputs", it.key());
        const FieldDecl* d = k.use.spec.find_field(it.key());
        if (!d || d->role != FieldDecl::Role::Output)
          src_.fail(kp, fmt::format("'{}' is no output of {}", quoted_text(it.key()), k.use.spec.name), "an output field of the spec", true);
        if (it.value().is_null()) continue;  // computed, not used
        if (d->ghost != 0)
          src_.fail(kp, fmt::format("{}'s output '{}' has ghost {}: a time derivative is an interior", k.use.spec.name, d->name, d->ghost),
                    "an output without ghost zones");
        const int f = field_at(kp);
        if (!derivative_of[f].empty())
          src_.fail(kp, fmt::format("d{}/dt is already {}", p_.fields[f].name, derivative_of[f]), "one output a field's time derivative");
        derivative_of[f] = fmt::format("{}'s output '{}'", k.use.spec.name, d->name);
        k.output_field[d->slot] = f;
      }
      p_.rhs.push_back(std::move(k));
    });
  }
  if (!ok) return;
  for (std::size_t f = 0; f < p_.fields.size(); ++f)
    if (derivative_of[f].empty())
      diag_.unit([&] {
        src_.fail(p_.fields[f].pointer, fmt::format("the field '{}' has no right-hand side", p_.fields[f].name),
                  "an output of a stencil in /rhs mapped to it in \"outputs\"");
      });
}

// An SBP right-hand side closes the line at both ends itself, with the
// walled spacing box / (n - 1) in mind: along a periodic axis it would
// apply its closures at the seam of a periodic field, at the spacing box / n.
// An axis is periodic for every field and face or for none (spacing_rule,
// which runs first), so the first field's lower face says which.
void ProgramReader::sbp_axes_walled() {
  for (const RhsKernel& k : p_.rhs) {
    if (!std::holds_alternative<SbpDecl>(k.use.spec.decl)) continue;
    for (const int a : k.use.spec.sbp().axes)
      if (p_.fields[0].boundary[a][0].kind == BoundaryKind::Periodic)
        src_.fail(k.use.pointer + "/spec",
                  fmt::format("{} is of kind \"sbp\": its closures end the line at the {} faces, which are periodic in this program", k.use.spec.name, kAxes[a]),
                  fmt::format("walls along {}: a boundary of type 'none' on its faces (its fields of ghost 0), or a stencil spec for a periodic axis", kAxes[a]));
    // Its closures at the two ends must not overlap: said here, with the
    // size's origin, rather than when the back end binds the kernel.
    const SbpDecl& d = k.use.spec.sbp();
    for (const int a : d.axes)
      if (p_.size[a] < d.min_length())
        src_.fail(k.use.pointer + "/spec",
                  fmt::format("{} points along {}, but {} needs at least {} ({} closure rows at each end, each reaching {} points, must not overlap){}", p_.size[a],
                              kAxes[a], k.use.spec.name, d.min_length(), d.rows(), d.left_width(), size_given_),
                  fmt::format("at least {} points along {}", d.min_length(), kAxes[a]));
  }
}

void ProgramReader::face_list(const std::string& ptr, std::vector<std::pair<int, int>>& faces) const {
  const std::size_t n = r_.array(ptr, true, 6);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string fp = json_pointer_join(ptr, i);
    std::vector<std::string> allowed;
    for (int a = 0; a < p_.dims; ++a)
      for (const char* s : {"", "-", "+"}) allowed.push_back(std::string(kAxes[a]) + s);
    const std::string s = r_.choice(fp, allowed);
    const int a = s[0] - 'x';
    for (int side = 0; side < 2; ++side) {
      if (s.size() == 2 && s[1] != (side == 0 ? '-' : '+')) continue;
      if (std::count(faces.begin(), faces.end(), std::pair<int, int>{a, side}))
        src_.fail(fp, fmt::format("the face {}{} is named twice in this entry", kAxes[a], side == 0 ? '-' : '+'), "each face once");
      faces.push_back({a, side});
    }
  }
}

void ProgramReader::boundaries() {
  const std::size_t n = r_.array("/boundaries", false, 6 * kMaxFields);
  bool ok = true;  // every entry and field read: else what depends on them is not checked
  for (std::size_t i = 0; i < n; ++i) {
    const std::string ptr = json_pointer_join("/boundaries", i);
    ok &= diag_.unit([&] {
      r_.entry(ptr, {"type"}, {"faces", "fields", "value"});
      Boundary b;
      b.pointer = ptr;
      const std::string t = r_.choice(ptr + "/type", {"periodic", "symmetric", "antisymmetric", "value", "none"});
      b.kind = t == "periodic"        ? BoundaryKind::Periodic
               : t == "symmetric"     ? BoundaryKind::Symmetric
               : t == "antisymmetric" ? BoundaryKind::Antisymmetric
               : t == "value"         ? BoundaryKind::Value
                                      : BoundaryKind::None;
      if (b.kind == BoundaryKind::Value) {
        if (!r_.has(ptr + "/value")) src_.fail(ptr, "a boundary of type 'value' without its value", "\"value\": a number");
        b.value = r_.number(ptr + "/value");
      } else if (r_.has(ptr + "/value")) {
        src_.fail(ptr + "/value", fmt::format("a value for a {} boundary", t), "no value (only type 'value' takes one)", true);
      }
      std::vector<std::pair<int, int>> faces;
      if (r_.has(ptr + "/faces")) face_list(ptr + "/faces", faces);
      else
        for (int a = 0; a < p_.dims; ++a) faces.insert(faces.end(), {{a, 0}, {a, 1}});
      std::vector<int> fields;
      if (r_.has(ptr + "/fields")) {
        const std::size_t m = r_.array(ptr + "/fields", true, kMaxFields);
        for (std::size_t j = 0; j < m; ++j) {
          const std::string fp = json_pointer_join(ptr + "/fields", j);
          const int f = field_at(fp);
          if (std::count(fields.begin(), fields.end(), f)) src_.fail(fp, fmt::format("the field '{}' is named twice in this entry", p_.fields[f].name), "each field once");
          fields.push_back(f);
        }
      } else {
        for (std::size_t f = 0; f < p_.fields.size(); ++f) fields.push_back(static_cast<int>(f));
      }
      // Later entries replace earlier ones on the faces and fields they name.
      for (int f : fields)
        for (auto [a, side] : faces) p_.fields[f].boundary[a][side] = b;
    });
  }
  // 'none' leaves the ghost points as they are: only a field with none is
  // closed by its right-hand side (SBP closures and SAT terms). Checked on
  // what the entries left, each face once.
  for (const ProgramField& f : p_.fields)
    ok &= diag_.unit([&] {  // one error a field: its first such face
      for (int a = 0; a < p_.dims; ++a)
        for (int side = 0; side < 2; ++side) {
          const Boundary& b = f.boundary[a][side];
          if (b.kind == BoundaryKind::None && f.ghost > 0)
            src_.fail(b.pointer + "/type", fmt::format("boundary 'none' on the {} {} face of '{}', whose {} ghost point{} there would never be written",
                                                       kAxes[a], side ? "upper" : "lower", f.name, f.ghost, f.ghost == 1 ? "" : "s"),
                      "a boundary that fills them (periodic, symmetric, antisymmetric, value), or 'none' on fields of ghost 0");
        }
    });
  if (!ok) throw UnitFailed{};
}

// Periodic axes are all periodic or not at all; their spacing is box / n,
// a walled axis's box / (n - 1) (its boundary points lie on the walls).
void ProgramReader::spacing_rule() {
  // Without a box, spacing 1: the box is as many cells as the axis has.
  if (!p_.box_given)
    for (int a = 0; a < p_.dims; ++a) {
      const bool periodic = p_.fields[0].boundary[a][0].kind == BoundaryKind::Periodic;
      p_.box[a] = static_cast<double>(periodic || p_.size[a] < 2 ? p_.size[a] : p_.size[a] - 1);
    }
  for (int a = 0; a < p_.dims; ++a) {
    const ProgramField* first = nullptr;
    for (const ProgramField& f : p_.fields)
      for (int side = 0; side < 2; ++side) {
        const Boundary& b = f.boundary[a][side];
        const bool periodic = b.kind == BoundaryKind::Periodic;
        if (!first) first = &f;
        const bool first_periodic = first->boundary[a][0].kind == BoundaryKind::Periodic;
        if (periodic != first_periodic)
          src_.fail(b.pointer.empty() ? (periodic ? first->boundary[a][0].pointer : f.pointer) : b.pointer,
                    fmt::format("the {} {} face of '{}' is {}, the lower {} face of '{}' {}", kAxes[a], side ? "upper" : "lower", f.name, to_string(b.kind), kAxes[a],
                                first->name, to_string(first->boundary[a][0].kind)),
                    fmt::format("every field and face along {} periodic, or none", kAxes[a]));
        const long long need = periodic ? 1 : f.ghost + 1;  // a wall mirrors ghost points across its boundary point
        if (p_.size[a] < need)
          src_.fail(b.pointer.empty() ? "/grid/size" : b.pointer,
                    fmt::format("{} points along {} for the ghost zones of '{}' (ghost {}, {}){}", p_.size[a], kAxes[a], f.name, f.ghost, to_string(b.kind), size_given_),
                    fmt::format("at least {} points along {}", need, kAxes[a]));
      }
  }
}

void ProgramReader::time_step() {
  const JsonReader::Keys k = r_.object("/time_step", {}, {"dt", "cfl"});
  const bool dt = r_.has("/time_step/dt"), cfl = r_.has("/time_step/cfl");
  if (dt == cfl) src_.fail("/time_step", dt ? "both 'dt' and 'cfl'" : "neither 'dt' nor 'cfl'", "{\"dt\": a number} or {\"cfl\": {...}}");
  TimeStep& t = p_.time_step;
  if (dt) {
    t.dt = r_.number("/time_step/dt");
    if (!(t.dt > 0) || !std::isfinite(t.dt)) src_.fail("/time_step/dt", fmt::format("{}", t.dt), "a time step > 0");
    return;
  }
  const std::string ptr = "/time_step/cfl";
  r_.entry(ptr, {}, {"spec", "inputs", "params", "diffusivity", "cdt", "cdtv", "dt_max"});
  t.fixed = false;
  if (!r_.has(ptr + "/spec") && !r_.has(ptr + "/diffusivity"))
    src_.fail(ptr, "neither 'spec' (the largest speed) nor 'diffusivity'", "one of them, or both");
  if (r_.has(ptr + "/spec")) {
    t.speed = ReduceUse{kernel_use(ptr, Use::Reduction, "a reduce spec whose first result is the largest signal speed")};
  } else {
    for (const char* key : {"inputs", "params"})
      if (r_.has(ptr + "/" + key)) src_.fail(ptr + "/" + key, fmt::format("'{}' without a 'spec'", key), "a 'spec' whose inputs and params these are", true);
  }
  double diffusivity = 0;
  if (r_.has(ptr + "/diffusivity")) {
    t.diffusivity = ScalarExpr::parse(r_, ptr + "/diffusivity", p_.param_names(), p_.param_noun());
    const std::vector<double> values = p_.param_values();
    diffusivity = t.diffusivity(values.data());
    if (!(diffusivity >= 0) || !std::isfinite(diffusivity))
      src_.fail(ptr + "/diffusivity", fmt::format("the diffusivity is {}", diffusivity), "a finite value >= 0");
  }
  auto positive = [&](const std::string& key, double& v) {
    if (!r_.has(ptr + "/" + key)) return;
    v = r_.number(ptr + "/" + key);
    if (!(v > 0) || !std::isfinite(v)) src_.fail(ptr + "/" + key, fmt::format("{}", v), "a number > 0");
  };
  positive("cdt", t.cdt);
  positive("cdtv", t.cdtv);
  positive("dt_max", t.dt_max);
  // Without a speed or a cap, a diffusivity of 0 bounds nothing: every step
  // would be infinite.
  if (!t.speed && t.dt_max == 0 && r_.has(ptr + "/diffusivity") && diffusivity == 0)
    src_.fail(ptr + "/diffusivity", "the diffusivity is 0, and no 'spec' (the largest speed) or 'dt_max' bounds the step: it would be infinite",
              "a diffusivity > 0, a 'spec', or a 'dt_max'");
  (void)k;
}

void ProgramReader::diagnostics() {
  r_.entry("/diagnostics", {"every", "reductions"}, {});
  p_.diagnostics.every = r_.integer("/diagnostics/every", 1, 1LL << 40);
  const std::size_t n = r_.array("/diagnostics/reductions", true, kMaxFields);
  std::vector<std::string> columns;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string ptr = json_pointer_join("/diagnostics/reductions", i);
    diag_.unit([&] {
      r_.entry(ptr, {"spec"}, {"inputs", "params"});
      ReduceUse u{kernel_use(ptr, Use::Reduction, "a reduce spec")};
      for (const FieldDecl* o : u.use.spec.output_fields()) {
        if (std::count(columns.begin(), columns.end(), o->name))
          src_.fail(ptr + "/spec", fmt::format("two diagnostics named '{}'", o->name), "results of distinct names (the CSV's columns)");
        columns.push_back(o->name);
      }
      p_.diagnostics.reductions.push_back(std::move(u));
    });
  }
}

void ProgramReader::snapshots() {
  r_.entry("/snapshots", {}, {"every", "every_time", "picture"});
  SnapshotsDecl& s = p_.snapshots;
  if (r_.has("/snapshots/every")) s.every = r_.integer("/snapshots/every", 1, 1LL << 40);
  if (r_.has("/snapshots/every_time")) {
    s.every_time = r_.number("/snapshots/every_time");
    if (!(s.every_time > 0) || !std::isfinite(s.every_time)) src_.fail("/snapshots/every_time", fmt::format("{}", s.every_time), "a time > 0");
  }
  if (s.every == 0 && s.every_time == 0) src_.fail("/snapshots", "neither 'every' nor 'every_time'", "\"every\": steps, or \"every_time\": simulated time");
  if (r_.has("/snapshots/picture")) {
    const std::string ptr = "/snapshots/picture";
    r_.entry(ptr, {"field"}, {"axis", "at"});
    Picture p;
    p.pointer = ptr;
    p.field = field_at(ptr + "/field");
    if (p_.dims == 3) p.axis = r_.has(ptr + "/axis") ? r_.choice(ptr + "/axis", {"x", "y", "z"})[0] - 'x' : 2;
    else if (r_.has(ptr + "/axis")) src_.fail(ptr + "/axis", "an axis for a 2-D or 1-D program's picture", "no axis (the whole plane, or the line)", true);
    if (r_.has(ptr + "/at")) {
      if (p_.dims < 3) src_.fail(ptr + "/at", "where to cut a 2-D or 1-D program's picture", "no \"at\" (the whole plane, or the line)", true);
      p.at = r_.number(ptr + "/at");
      if (!(p.at >= 0 && p.at <= 1)) src_.fail(ptr + "/at", fmt::format("{}", p.at), "a fraction of the box in [0, 1]");
    }
    s.picture = p;
  }
}

}  // namespace

Program::CflConstants Program::cfl_constants() const {
  const auto h3 = spacing();
  double h = h3[0], inv_h2 = 0;
  for (int a = 0; a < dims; ++a) {
    h = std::min(h, h3[static_cast<std::size_t>(a)]);
    inv_h2 += 1 / (h3[static_cast<std::size_t>(a)] * h3[static_cast<std::size_t>(a)]);
  }
  const std::vector<double> env = param_values();
  return {time_step.cdt * h, time_step.diffusivity(env.data()) * inv_h2 / time_step.cdtv, time_step.dt_max};
}

std::vector<long long> Program::c_order_shape() const {
  std::vector<long long> s;
  for (int a = dims - 1; a >= 0; --a) s.push_back(size[static_cast<std::size_t>(a)]);
  return s;
}

std::array<double, 3> Program::spacing() const {
  std::array<double, 3> h{1, 1, 1};
  for (int a = 0; a < dims; ++a) {
    const bool periodic = fields.empty() || fields[0].boundary[a][0].kind == BoundaryKind::Periodic;
    const long long cells = periodic ? size[a] : size[a] - 1;
    h[a] = box[a] / static_cast<double>(cells > 0 ? cells : 1);
  }
  return h;
}

int Program::find_field(const std::string& n) const {
  for (std::size_t f = 0; f < fields.size(); ++f)
    if (fields[f].name == n) return static_cast<int>(f);
  return -1;
}

std::vector<std::string> Program::param_names() const {
  std::vector<std::string> names;
  for (const ProgramParam& q : params) names.push_back(q.name);
  push_axis_names(names, "h", dims);
  push_axis_names(names, "L", dims);
  names.push_back("pi");
  return names;
}

std::string Program::param_noun() const { return fmt::format("a param of the program, {}, {} or pi", axis_names("h", dims), axis_names("L", dims)); }

std::vector<double> Program::param_values() const {
  std::vector<double> v;
  for (const ProgramParam& q : params) v.push_back(q.value);
  const auto h = spacing();
  v.insert(v.end(), {h[0], h[1], h[2], box[0], box[1], box[2], M_PI});
  return v;
}

std::map<std::string, double> Program::named_params(const KernelUse& u) const {
  const std::vector<double> env = param_values();
  std::map<std::string, double> v;
  for (std::size_t s = 0; s < u.spec.params.size(); ++s) v[u.spec.params[s].name] = u.param[s](env.data());
  return v;
}

Program parse_program(std::shared_ptr<const JsonSource> src, const std::string& folder, const SizeOverride& size, std::optional<Dtype> dtype) {
  Program p;
  p.source = src;
  Diagnostics diag;
  ProgramReader reader(*src, diag, p, folder);
  try {
    reader.read(size, dtype);
  } catch (const UnitFailed&) {
  } catch (const SpecError& e) {
    diag.record(e);
  }
  diag.throw_if_any();
  nlohmann::json effective = src->root();
  effective["dtype"] = p.dtype == Dtype::Float32 ? "float32" : "float64";
  for (int a = 0; a < p.dims; ++a) effective["grid"]["size"][a] = p.size[a];
  p.hash = sha256_hex(effective.dump());
  return p;
}

Program load_program(const std::string& path, const SizeOverride& size, std::optional<Dtype> dtype) {
  const std::size_t slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : path.substr(0, slash);
  return parse_program(std::make_shared<const JsonSource>(JsonSource::from_file(path)), folder, size, dtype);
}

bool is_program_file(const std::string& path) {
  try {
    const JsonSource src = JsonSource::from_file(path);
    const nlohmann::json& k = src.root().is_object() ? src.root().value("kind", nlohmann::json()) : nlohmann::json();
    return k.is_string() && k.get<std::string>() == "program";
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace gpen::sim
