// One spec being read from its JSON: what the shared parts (fields, params,
// expressions; generator/src/spec/spec_parse.cpp) and the family's own object
// (Family::read, in families/<kind>/<kind>_decl.cpp) read in turn, and what
// failed so far, so that what depends on a failed part is skipped rather
// than blamed. Every independent part is a unit of `diag`.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/expr_ast.hpp"
#include "gpen/generator/json_reader.hpp"
#include "gpen/generator/json_source.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

// How the parts every spec shares read for a family.
struct SpecShape {
  // The keys of the root object (the family's own among them, e.g. "scan").
  std::vector<std::string> required, optional;
  // The family's own object, if it has one ("scan"); listed among the keys
  // of a spec whose kind cannot be told.
  const char* own_key = nullptr;
  // /params, /operators, /lets and /outputs read here (else the family reads what it has).
  bool expressions = false;
  // Expressions are over pairs: they read fields as name_i and name_j (names
  // may not end so), fields may take the roles target and source, and each
  // output says how its terms reduce.
  bool pair_expressions = false;
  // Each input's ghost width must cover what the outputs reach.
  bool ghost_reach = false;
  // Each output says how its values combine over the reduced axes: "reduce"
  // is "sum" (the default), "min", "max" or {"op": "a * b", "identity": 1}
  // (OutputDecl::op).
  bool output_reductions = false;
};

class SpecReading {
 public:
  explicit SpecReading(std::shared_ptr<const JsonSource> source) : src(std::move(source)), reader(*src, diag) {}
  virtual ~SpecReading() = default;

  // /params, as every kind that has them reads them.
  virtual void params() = 0;
  // The fields are one input and one output with no ghost zones, as kind
  // `kind` needs (why_no_ghosts says why).
  virtual void one_input_one_output(const std::string& kind, const char* why_no_ghosts) = 0;

  Diagnostics diag;  // before reader, which records into it
  std::shared_ptr<const JsonSource> src;
  JsonReader reader;
  Spec spec;

  std::set<std::string> broken;  // names whose declaration failed
  bool names_sound = true;       // false: a declaration failed before its name was known
  bool fields_whole = true;      // every field entry was read
  bool dims_ok = true;           // false: dims taken as 3
  bool tunables_known = true;    // the kind's built-in tunables can be told

  // What the family's expressions see, when not the spec's own names (pair
  // values); the field each of its values reads (Access::field -> index in
  // spec.fields), for the check that every input is read; and a check of
  // the names an expression uses, run before it is lowered.
  std::optional<Spec> expression_scope;
  std::vector<int> access_fields;
  std::function<void(const Ast& expr, const std::string& ptr)> check_names;
};

}  // namespace gpen
