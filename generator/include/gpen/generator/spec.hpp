// A validated spec: what the user wrote, names resolved, expressions lowered.
// Every member keeps the JSON pointer it came from so later stages (plan,
// runtime binding) can still report errors against the file.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gpen/generator/error.hpp"
#include "gpen/generator/expr_ast.hpp"
#include "gpen/generator/ir.hpp"
#include "gpen/generator/json_source.hpp"

namespace gpen {

enum class Dtype { Float32, Float64 };
const char* to_string(Dtype d);
// "float32" / "float64"; nullopt otherwise.
std::optional<Dtype> parse_dtype(const std::string& s);
inline std::size_t size_of(Dtype d) { return d == Dtype::Float32 ? 4 : 8; }

struct FieldDecl {
  enum class Role { Input, Output };
  // Pairwise specs with separate target and source sets: which set an input
  // belongs to ("role": "target" or "source"); Both everywhere else.
  enum class Set { Both, Targets, Sources };
  std::string name;
  Role role = Role::Input;
  int ghost = 0;  // ghost-zone width on every axis the array has
  int slot = 0;   // index among the inputs, or among the outputs
  std::string pointer;
  Set set = Set::Both;
  // A reduction's result (kind reduce): the user axes it is reduced along
  // (bit a for axis a: length 1 there), and its dtype where it is not the
  // spec's (accumulated in float64).
  unsigned reduced_axes = 0;
  std::optional<Dtype> dtype;
  // A stencil output's periodic ghost images (bit a for user axis a): each
  // interior point stored is stored again into the ghost points a periodic
  // fill along those axes copies it to. Set by code (a time loop's fused
  // stages), never by a spec's JSON.
  unsigned periodic_images = 0;
  // An output that may be bound to the very view of the input named here:
  // each point read, then written, by the thread that owns it (a time
  // loop's register d, fused_update.hpp). Every other output bound to
  // memory another bound array uses is refused (check_bindings). Set by
  // code, never by a spec's JSON.
  std::string in_place_of;
};


struct ParamDecl {
  std::string name;
  double value = 1.0;  // default used by `gpen run` and the tests
  std::string pointer;
  // A stencil unit reads it from its global `gpen_param_<name>`, which
  // other kernels write (a time loop's dt, computed on the device), not
  // from the launch's arguments. Set by code, never by a spec's JSON.
  bool device = false;
};

// A named 1-D stencil: sum_k coeffs[k] * f(x + offsets[k]); or, with
// offsets2d, a 2-D one applied along two axes a, b:
// sum_k coeffs[k] * f(x + offsets2d[k][0] e_a + offsets2d[k][1] e_b).
struct OperatorDecl {
  std::string name;
  std::vector<int> offsets;
  std::vector<std::array<int, 2>> offsets2d;
  std::vector<Rational> coeffs;
  int derivative = 0;  // when derived by Fornberg's algorithm, else 0
  int order = 0;
  std::string pointer;
};

struct LetDecl {
  std::string name;
  std::string text;
  AstPtr ast;
  IrPtr ir;
  std::string pointer;
};

enum class Reduce { Sum, Min, Max };

// An associative binary operation on two values a and b ("a + b",
// "max(a, b)", "logaddexp(a, b)") with its identity e: a scan's, or how a
// reduction's values combine. Read and checked by read_associative_op
// (associative_op.hpp).
struct AssociativeOp {
  std::string op_text;  // "a + b": a is the running value, b the next input
  AstPtr op_ast;
  IrPtr op_ir;          // lowered with a = value slot 0, b = value slot 1 (see associative_op_scope)
  double identity = 0;  // may be +-inf
  std::string identity_text;
  std::string op_pointer, identity_pointer;  // where they were written ("/scan/op"), for errors
};

struct OutputDecl {
  int field = 0;  // index into Spec::fields
  Reduce reduce = Reduce::Sum;  // how its terms combine, where it has several (pairwise: one a pair)
  std::shared_ptr<const AssociativeOp> op;  // kind reduce: how its values over the reduced axes combine
  std::string text;
  AstPtr ast;
  IrPtr ir;
  std::string pointer;
};

using TunableValue = std::variant<long long, std::string>;
std::string to_string(const TunableValue& v);

struct TunableDecl {
  std::string name;
  std::vector<TunableValue> values;  // allowed, in the spec's order
  TunableValue default_value;
  std::string pointer;
  // Set for tunables that some strategies alone have (march's vector_x;
  // "march, stage" for rows_y): with any other strategy the tunable takes
  // `plain` unless set explicitly.
  std::string only_with_strategy;
  TunableValue plain;
  std::string values_note;  // why this spec may take fewer values than the family has (TunableOffer)

  // Whether `strategy` has this tunable (every strategy has it where
  // only_with_strategy is empty).
  bool belongs_to(const std::string& strategy) const;
};

// Whether `strategy` is one of `list` ("march" or "march, stage").
bool strategy_listed(const std::string& list, const std::string& strategy);
// Why value v of tunable t cannot go with `strategy` ("ring_ahead = 2 with
// strategy rolling: only the march and stage strategies have it"): t is
// another strategy's and v is not its plain value. nullopt where they go.
std::optional<std::string> off_strategy(const TunableDecl& t, const TunableValue& v, const std::string& strategy);

// "block_x * block_y <= 512": see constraints.hpp.
struct ConstraintDecl {
  std::string text;
  std::string pointer;  // /constraints/<i>
  std::string op;       // <=, <, >=, >, ==, !=
  AstPtr lhs, rhs;
};

// The "scan" object of a scan spec: out[i] = op(...op(op(in[0], in[1]), in[2])..., in[i])
// along one axis (inclusive), or the same over in[0..i-1] starting from the
// identity (exclusive); reverse runs from the last index down.
struct ScanDecl : AssociativeOp {
  int axis = 0;         // user axis
  bool exclusive = false;
  bool reverse = false;
  std::string pointer;  // /scan
};

// The "sbp" object of an SBP spec: out = sum over `axes` of (D u) / h^derivative,
// D being a summation-by-parts operator: the interior stencil away from the
// boundaries, closure rows at them. Row i of `left` holds the coefficients
// of u[0], u[1], ... for the output at point i; row i of `right` those of
// u[n-1], u[n-2], ... for the output at point n-1-i (derived from `left` by
// symmetry, sign (-1)^derivative, when not given).
struct SbpDecl {
  std::string source_text;  // the literature the coefficients come from
  int derivative = 1;
  int order = 2;            // interior order of accuracy
  int boundary_order = 1;   // closure rows' order of accuracy
  std::vector<int> axes;    // user axes, in the spec's order
  std::vector<int> spacing; // per entry of `axes`: index into Spec::params, or -1 (h = 1)
  std::vector<Rational> interior;  // centred, odd length
  std::vector<std::vector<Rational>> left, right;
  bool right_given = false;
  std::vector<Rational> norm;                 // H's weights at the closure points (1 inside)
  std::vector<Rational> boundary_derivative;  // second derivatives: the first row of S (optional)
  // "sat": "neumann" (second derivatives, with boundary_derivative): the
  // closures with the SAT term of a homogeneous Neumann condition folded in,
  // D2 - H^-1 B S = -H^-1 M, whose energy u^T M u a wave equation keeps.
  // left[0] and right[0] hold the folded rows once the operator is checked.
  bool neumann_sat = false;
  std::string pointer;                        // /sbp

  int radius() const { return static_cast<int>(interior.size() / 2); }
  int rows() const { return static_cast<int>(left.size()); }
  int left_width() const;
  int right_width() const;
  // The shortest line the operator applies to: each closure reaches only
  // its own rows and interior points.
  long long min_length() const;
};

// One value a pair expression reads: an input field (or, on a grid, a
// cell's integer coordinate ix, iy, iz) at the target (suffix _i) or at the
// source (_j). Pair expressions are lowered with these as their inputs:
// Access::field indexes PairwiseDecl::values.
struct PairValue {
  std::string name;     // as written: "x_i", "m_j", "ix_j"
  bool source = false;  // _j
  int field = -1;       // index into Spec::fields, or -1 for a cell coordinate
  int axis = -1;        // cell coordinate: its user axis
  std::string member;   // its member in the generated Target/Source struct: "f_x", "ix"
};

const char* to_string(Reduce r);

// The "pairwise" object of a pairwise spec: every output at target i is the
// reduction over sources j of its expression of the pair, e.g.
// phi_i = sum_j m_j / sqrt(|x_i - x_j|^2 + eps2). Lets and outputs are
// lowered against `values` (see PairValue).
struct PairwiseDecl {
  bool grid = false;         // domain "grid": targets and sources are the cells of a dims-D grid
  bool same_set = true;      // "sources": "targets" (one set of N) or "separate" (N targets, M sources)
  bool skip_self = false;    // "self": "skip" leaves out the pair i == j
  bool grouped = false;      // "pairs": "grouped": per-target-group source ranges (a tree or cell list)
  std::vector<PairValue> values;
  std::string pointer;         // /pairwise

  // The values a side reads, in `values` order (the members of its struct).
  std::vector<int> read_by(bool source, const std::vector<IrPtr>& exprs) const;
};

// A stencil's declaration: nothing beyond the shared part of a Spec.
struct StencilDecl {};

// The "reduce" object of a reduction spec: each output is its expression
// (of the inputs at a point, stencil operators included) combined by its
// AssociativeOp over the interior along `axes`; the result keeps the other
// axes (length 1 along the reduced ones).
struct ReduceDecl {
  unsigned axes = 0;          // bit a: user axis a is reduced (all of the spec's by default)
  bool accumulate64 = false;  // values combined, and results kept, in float64 (float64 inputs, or "accumulate": "float64")
  std::string pointer;        // /reduce
};

using FamilyDecl = std::variant<StencilDecl, ScanDecl, SbpDecl, PairwiseDecl, ReduceDecl>;

// The chosen value of every tunable (defaults with --set overrides applied).
using TunableChoice = std::map<std::string, TunableValue>;

// How a spec's math functions are evaluated on the GPU ("math": "accurate"
// or "fast"): CUDA's math library, or the hardware approximations (float32
// exp, log, sin, cos, pow, sqrt, rsqrt, division; float64 rsqrt, sqrt and
// division from a seed and one correction), whose error bounds
// specs/README.md gives and the verification allows for.
enum class MathPolicy { Accurate, Fast };

struct Spec {
  std::string name;
  std::string kind;  // "stencil", "scan", "sbp", "pairwise" or "reduce"
  std::string description;
  Dtype dtype = Dtype::Float64;
  MathPolicy math = MathPolicy::Accurate;
  int dims = 3;
  std::vector<FieldDecl> fields;
  std::vector<ParamDecl> params;
  std::vector<OperatorDecl> operators;
  std::vector<LetDecl> lets;
  std::vector<OutputDecl> outputs;
  std::vector<TunableDecl> tunables;
  std::vector<ConstraintDecl> constraints;
  // The kind's own declaration: its alternative is the kind's (a stencil's
  // math is all in the shared part above). Read through scan(), sbp() and
  // pairwise(), which are internal errors for another kind.
  FamilyDecl decl;
  std::string hash;                   // sha256 of the canonical JSON, hex
  std::vector<std::string> warnings;  // things that are legal but likely mistakes
  std::shared_ptr<const JsonSource> source;

  const ScanDecl& scan() const { return decl_of<ScanDecl>(); }
  const SbpDecl& sbp() const { return decl_of<SbpDecl>(); }
  const PairwiseDecl& pairwise() const { return decl_of<PairwiseDecl>(); }
  const ReduceDecl& reduce() const { return decl_of<ReduceDecl>(); }
  ScanDecl& scan() { return const_cast<ScanDecl&>(std::as_const(*this).scan()); }
  SbpDecl& sbp() { return const_cast<SbpDecl&>(std::as_const(*this).sbp()); }
  PairwiseDecl& pairwise() { return const_cast<PairwiseDecl&>(std::as_const(*this).pairwise()); }
  ReduceDecl& reduce() { return const_cast<ReduceDecl&>(std::as_const(*this).reduce()); }
  std::vector<const FieldDecl*> inputs() const;
  std::vector<const FieldDecl*> output_fields() const;
  // Every output's expression, in `outputs` order.
  std::vector<IrPtr> output_exprs() const;
  const FieldDecl* find_field(const std::string& n) const;
  const TunableDecl* find_tunable(const std::string& n) const;
  Footprint footprint() const;  // per input slot, user axes
  // The footprint as parsing found it, for the kinds whose reads reach into
  // ghost zones: plans ask for it per variant, and a fused spec's IR has
  // thousands of reads (empty otherwise: footprint() walks the IR).
  std::optional<Footprint> parsed_footprint;

  // Defaults, then each "name=value" override (a --set); throws UsageError
  // naming the override when it is no name=value, names no tunable, gives
  // a value the spec does not allow, or sets another strategy's tunable (a
  // later override of the same tunable wins); and, for a variant to run
  // (`whole`; not the values a search keeps fixed while it varies the rest,
  // nor a point read back from a log or the database), when the overrides
  // break one of the spec's constraints.
  TunableChoice choose(const std::vector<std::string>& overrides = {}, bool whole = true) const;

 private:
  template <class D>
  const D& decl_of() const {
    const D* d = std::get_if<D>(&decl);
    if (!d) throw InternalError("spec '" + name + "' of kind '" + kind + "' has no declaration of that kind", __FILE__, __LINE__);
    return *d;
  }
};

// A field's dtype (its own, else the spec's), and its shape for an interior
// of `interior` points (length 1 along the axes a reduction's result is reduced along).
Dtype field_dtype(const Spec& spec, const FieldDecl& f);
std::array<long long, 3> field_shape(const FieldDecl& f, const std::array<long long, 3>& interior);

// `dtype` overrides the spec's dtype (e.g. to benchmark a float64 spec in
// float32); the hash then covers the override.
Spec parse_spec(std::shared_ptr<const JsonSource> src, std::optional<Dtype> dtype = std::nullopt);
Spec load_spec(const std::string& path, std::optional<Dtype> dtype = std::nullopt);
Spec load_spec_string(const std::string& json, const std::string& name = "<string>");

// Axis names as written in specs.
const char* axis_name(int axis);

}  // namespace gpen
