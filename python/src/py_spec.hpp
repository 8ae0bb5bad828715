// gpen.Spec: a loaded spec, shared by the kernels made from it; and the
// things every binding file needs: the contexts, tunables from keywords.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every file of the module: one caster of std::vector for all

#include "gpen/generator/error.hpp"
#include "gpen/generator/spec.hpp"
#include "gpen/runtime/device.hpp"

namespace gpen::py_api {

namespace py = pybind11;

struct PySpec {
  std::shared_ptr<const Spec> spec;
};

// A path (str or os.PathLike), a dict (the spec's JSON as Python objects)
// or a gpen.Spec; `dtype` "float32"/"float64" overrides the spec's.
PySpec to_spec(py::handle obj, const py::object& dtype = py::none());

// {"block_x": 32, "strategy": "stage"} as the CLI's --set strings; a
// UsageError naming keyword `what` (empty: the values are keywords
// themselves, as spec.generate(block_x=32) has them) for anything else.
std::vector<std::string> tunable_overrides(py::handle tunables, const std::string& what);
// Spec::choose(overrides), its UsageError worded for keywords ("block_x=33: ...").
TunableChoice choose(const Spec& spec, const std::vector<std::string>& overrides, bool whole = true);

// "NXxNYxNZ", as the CLI's --size and the tuning database have it, from a
// size given as that string, as one number, or as a tuple: in NumPy's
// order (z, y, x) where `numpy_order`, else as it is (pairwise "N", "NxM").
std::string size_text(const py::object& size, bool numpy_order);

// The size as the CLI's --size text for `spec` (NumPy's order reversed but
// for pairwise particles: "N", "NxM"), checked for the spec's kind;
// UsageError worded for the keyword ("size=(64, 32): ...").
std::string checked_size(const Spec& spec, const py::object& size);
// The interior (x, y, z) a grid spec's size gives, checked the same way.
std::array<long long, 3> interior_size(const Spec& spec, const py::object& size);
// A UsageError about "--size TEXT" reworded for the keyword size=.
UsageError size_error(const UsageError& e, const py::object& size);

// A tunable choice, a spec's dtype keyword: Python values from and to gpen's.
py::dict choice_dict(const TunableChoice& c);
std::optional<Dtype> dtype_arg(const py::object& dtype);

// The device's primary context, made once a process and kept to its end
// (CuPy and PyTorch use the same one).
const Context& context(int device);

// `ctx` current on this thread for the scope; the context current before
// (another device's, say) current again after it.
class ContextScope {
 public:
  explicit ContextScope(const Context& ctx);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  CUcontext before_ = nullptr, mine_ = nullptr;
};


void bind_spec(py::module_& m);

}  // namespace gpen::py_api
