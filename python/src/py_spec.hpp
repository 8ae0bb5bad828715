// gpen.Spec: a loaded spec, shared by the kernels made from it; and the
// things every binding file needs: the contexts, tunables from keywords.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every file of the module: one caster of std::vector for all

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

// {"block_x": 32, "strategy": "stage"} as the CLI's --set strings.
std::vector<std::string> tunable_overrides(const py::dict& tunables);
// Spec::choose(overrides), its UsageError worded for keywords ("block_x=33: ...").
TunableChoice choose(const Spec& spec, const std::vector<std::string>& overrides);

// "NXxNYxNZ", as the CLI's --size and the tuning database have it, from a
// size given as that string, as one number, or as a tuple: in NumPy's
// order (z, y, x) where `numpy_order`, else as it is (pairwise "N", "NxM").
std::string size_text(const py::object& size, bool numpy_order);

// check_problem_size(spec, size), its UsageError worded for the keyword size=.
void check_size(const Spec& spec, const std::string& size);

// The device's primary context, made once a process and kept to its end
// (CuPy and PyTorch use the same one), current on the calling thread.
const Context& context(int device);

void bind_spec(py::module_& m);

}  // namespace gpen::py_api
