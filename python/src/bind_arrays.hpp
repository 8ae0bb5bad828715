// A launch's arrays and params from Python, checked and viewed: which
// interior they share, each array's ghost width, the outputs made where
// not given, the stream. What gpen.Kernel launches on and Spec.bind shows.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every file of the module: one caster of std::vector for all

#include "gpen/families/common/kernel.hpp"

namespace gpen::py_api {

namespace py = pybind11;

struct BindRequest {
  std::optional<std::array<long long, 3>> interior;  // x, y, z; else the first input's
  int device = 0;
  py::object stream = py::none();  // None: the first array's library's current stream
  py::object ghost = py::none();   // None, an int, or a dict by field: the arrays' ghost width
  bool allocate = true;            // make outputs not given (CuPy or PyTorch, zeroed)
  bool check_devices = true;       // ask the driver where the library did not say
};

struct BoundArrays {
  std::vector<DeviceBuffer> views;          // reserved up front: `fields` points into it
  FieldBindings fields;
  std::vector<const DeviceBuffer*> outputs; // the outputs' views, in spec order
  py::list output_objects;                  // the outputs' arrays, given or made
  std::uintptr_t stream = 0;
  std::optional<std::array<long long, 3>> interior;
};

// Throws BindingError naming the field and what was expected.
BoundArrays bind_arrays(const Spec& spec, const BindRequest& request, const py::dict& arrays);

// The launch's params by name, as numbers.
ParamValues param_values(const Spec& spec, const py::dict& params);

// A stream given as an int, a cupy.cuda.Stream or a torch.cuda.Stream.
std::uintptr_t stream_handle(const py::handle& s);

}  // namespace gpen::py_api
