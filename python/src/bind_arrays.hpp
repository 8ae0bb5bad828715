// A launch's arrays and params from Python, checked and viewed: which
// interior they share, each array's ghost width, the outputs made where
// not given, the stream. What gpen.Kernel launches on and Spec.bind shows.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every file of the module: one caster of std::vector for all

#include "array_arg.hpp"
#include "gpen/families/common/kernel.hpp"
#include "gpen/families/pairwise/pairwise_kernel.hpp"
#include "gpen/runtime/device.hpp"

namespace gpen::py_api {

namespace py = pybind11;

struct BindRequest {
  std::optional<std::array<long long, 3>> interior;  // x, y, z; else the first input's
  std::optional<PairSizes> pairs;                     // a pairwise spec's size: each array's length checked against it
  int device = 0;
  py::object stream = py::none();  // None: the first array's library's current stream
  py::object ghost = py::none();   // None, an int, or a dict by field: the arrays' ghost width
  bool allocate = true;            // make outputs not given (CuPy or PyTorch, zeroed)
  bool check_devices = true;       // ask the driver where the library did not say
  bool order_producers = true;     // make the stream wait for __cuda_array_interface__ producers' streams
};

struct BoundArrays {
  std::vector<DeviceBuffer> views;          // reserved up front: `fields` points into it
  FieldBindings fields;
  std::vector<const DeviceBuffer*> outputs; // the outputs' views, in spec order
  py::list output_objects;                  // the outputs' arrays, given or made
  std::vector<CUdeviceptr> bases;           // each view's array as given (its first element)
  std::vector<std::pair<std::string, ArrayArg>> arrays;  // each bound field's array as read
  std::uintptr_t stream = 0;
  std::optional<std::array<long long, 3>> interior;
  std::vector<std::shared_ptr<void>> keep;  // DLPack tensors, released when the launch is queued
  std::vector<Event> waits;                 // the launch stream's waits for producers' streams
};

// Throws BindingError naming the field and what was expected.
BoundArrays bind_arrays(const Spec& spec, const BindRequest& request, const py::dict& arrays);

// check_device for each of the bound arrays (BindRequest::check_devices did not).
void check_devices(const BoundArrays& bound, int device);

// Whether `name` is one of the spec's params.
bool is_param(const Spec& spec, const std::string& name);

// The launch's params by name, as numbers (finite: BindingError otherwise).
ParamValues param_values(const Spec& spec, const py::dict& params);

// A stream given as an int, a cupy.cuda.Stream or a torch.cuda.Stream.
std::uintptr_t stream_handle(const py::handle& s);

}  // namespace gpen::py_api
