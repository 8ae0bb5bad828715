// A simulation as a spec (kind "program"): its grid and fields, their
// initial values, the stencils whose outputs are the fields' time
// derivatives, the integrator, the boundary conditions, the time step, the
// diagnostics and the snapshots. load_program reads it and checks it whole
// (every error with its JSON pointer, line and column, as a kernel spec's);
// what runs it is a Simulation (simulation.hpp). docs/programs.md is the
// user's description of each key.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpen/generator/spec.hpp"
#include "gpen/simulate/scalar_expr.hpp"

namespace gpen::sim {

enum class Integrator {
  Rk3,    // the Pencil Code's 2N-storage third-order Runge-Kutta (Williamson 1980)
  Rk4,    // the classic fourth-order Runge-Kutta
  Euler,  // forward Euler
};
const char* to_string(Integrator i);

// What fills the ghost zones beyond one face, for one field. With the
// face's boundary point b (the first or last interior point) and ghost
// point b -+ m (m = 1 .. ghost), as the Pencil Code's 's', 'a' and a
// Dirichlet value:
//   periodic       f(b -+ m) = the interior's other end, wrapped;
//   symmetric      f(b -+ m) = f(b +- m);
//   antisymmetric  f(b) = 0, f(b -+ m) = -f(b +- m);
//   value v        f(b) = v, f(b -+ m) = 2 v - f(b +- m);
//   none           nothing is written: the right-hand side's operators
//                  close the boundary themselves (SBP closures, SAT terms).
enum class BoundaryKind { Periodic, Symmetric, Antisymmetric, Value, None };
const char* to_string(BoundaryKind k);

struct Boundary {
  BoundaryKind kind = BoundaryKind::Periodic;
  double value = 0;     // Value's
  std::string pointer;  // the entry that set it ("" for the default, periodic)
};

struct ProgramField {
  std::string name;
  int ghost = 0;
  ScalarExpr init = ScalarExpr::constant(0);  // of x, y, z and the program's params
  std::string init_npy;                       // else: a .npy file of the interior (a snapshot's field), as resolved
  double noise = 0;                          // + noise * uniform[-1, 1), seeded
  std::uint64_t seed = 0;
  std::array<std::array<Boundary, 2>, 3> boundary;  // [axis][lower, upper face]
  std::string pointer;
};

// A kernel spec the program runs, its fields bound to the program's.
struct KernelUse {
  std::string path;  // as resolved (relative paths from the program's folder)
  Spec spec;
  std::vector<int> input_field;   // per input slot: the program field it reads
  std::vector<ScalarExpr> param;  // per spec param: its value (of the program's params and hx, hy, hz)
  std::string pointer;
};

// A right-hand side: a stencil whose outputs are time derivatives.
struct RhsKernel {
  KernelUse use;
  std::vector<int> output_field;  // per output slot: the field whose d/dt it is, or -1 (computed, not used)
};

// A reduction: its scalar results, each a name in the diagnostics.
struct ReduceUse {
  KernelUse use;
};

struct TimeStep {
  bool fixed = true;
  double dt = 0;  // fixed
  // From the CFL conditions, as the Pencil Code combines them:
  //   1/dt = sqrt((speed / (cdt h))^2 + (diffusivity (1/hx^2 + 1/hy^2 + 1/hz^2) / cdtv)^2),
  // speed the largest signal speed (the first result of `speed`; 0 without
  // one), h the smallest spacing, the sum over the program's axes.
  std::optional<ReduceUse> speed;
  ScalarExpr diffusivity = ScalarExpr::constant(0);
  double cdt = 0.4, cdtv = 0.25;
  double dt_max = 0;  // 0: no cap
};

struct DiagnosticsDecl {
  long long every = 0;  // steps; 0: none
  std::vector<ReduceUse> reductions;
};

struct Picture {
  int field = 0;
  int axis = 2;         // the slice across this axis
  double at = 0.5;      // where, as a fraction of the box
  std::string pointer;
};

struct SnapshotsDecl {
  long long every = 0;     // steps; 0: not by steps
  double every_time = 0;   // simulated time; 0: not by time
  std::optional<Picture> picture;
};

struct ProgramParam {
  std::string name;
  double value = 0;
};

struct Program {
  std::string name, description;
  Dtype dtype = Dtype::Float64;
  int dims = 3;
  std::array<long long, 3> size{1, 1, 1};  // interior points per axis (unused axes 1)
  std::array<double, 3> box{1, 1, 1};      // the box's lengths: spacing h = box / size (walled axes: size - 1)
  bool box_given = false;                  // without one, box = the cells along each axis (spacing 1)
  std::array<double, 3> origin{0, 0, 0};   // the first point's coordinates
  std::vector<ProgramParam> params;
  std::vector<ProgramField> fields;
  std::vector<RhsKernel> rhs;
  Integrator integrator = Integrator::Rk3;
  TimeStep time_step;
  DiagnosticsDecl diagnostics;
  SnapshotsDecl snapshots;
  std::string hash;  // of the canonical JSON
  std::shared_ptr<const JsonSource> source;

  std::array<double, 3> spacing() const;
  // The CFL conditions' constants (time_step not fixed): 1/dt =
  // sqrt((speed / cdt_h)^2 + diffusion^2), then at most dt_max (0: none).
  struct CflConstants {
    double cdt_h = 0, diffusion = 0, dt_max = 0;
  };
  CflConstants cfl_constants() const;
  // The interior's shape as NumPy writes it (slowest axis first: z, y, x).
  std::vector<long long> c_order_shape() const;
  int find_field(const std::string& name) const;  // -1 when none
  // The names a kernel's param expression may read, in slot order: the
  // params, then hx, hy, hz, Lx, Ly, Lz and pi (those of axes past dims
  // under the name "", which no expression reads). param_values() their values.
  std::vector<std::string> param_names() const;
  // What param_names() offers, in words, for an error's "expected".
  std::string param_noun() const;
  std::vector<double> param_values() const;
  // u's params, each its expression's value in this program, by name (as
  // a launch takes them).
  std::map<std::string, double> named_params(const KernelUse& u) const;
};

// A grid in place of the program's, given the program's dims (gpen
// simulate --size: "256" means 256 points on every axis the program has).
using SizeOverride = std::function<std::array<long long, 3>(int dims)>;
inline SizeOverride fixed_size(std::array<long long, 3> size) {
  return [size](int) { return size; };
}

// Reads the program at `path` (its kernel specs relative to its folder);
// `size` and `dtype` override the program's own (the size before anything is
// checked against it). Throws SpecErrors with every independent error.
Program load_program(const std::string& path, const SizeOverride& size = {}, std::optional<Dtype> dtype = std::nullopt);
Program parse_program(std::shared_ptr<const JsonSource> src, const std::string& folder, const SizeOverride& size = {},
                      std::optional<Dtype> dtype = std::nullopt);

// Whether the JSON at `path` says "kind": "program" (for commands that take
// either a program or a kernel spec); false when it cannot tell.
bool is_program_file(const std::string& path);

}  // namespace gpen::sim
