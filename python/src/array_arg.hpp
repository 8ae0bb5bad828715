// A launch's array from Python, read without a copy: CuPy and PyTorch
// arrays through their own attributes (the fast path), anything else
// through __cuda_array_interface__ (Numba, JAX, ...) or __dlpack__. Host
// arrays (NumPy), other dtypes, other devices, rows that are not
// contiguous and negative or overlapping strides are refused in words.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every file of the module: one caster of std::vector for all

#include "gpen/families/common/device_buffer.hpp"

namespace gpen::py_api {

namespace py = pybind11;

// An array as gpen sees it: x first (NumPy's last axis), strides in elements.
struct ArrayArg {
  CUdeviceptr ptr = 0;
  Dtype dtype = Dtype::Float64;
  int ndim = 0;
  std::array<long long, 3> extent{1, 1, 1};  // x, y, z
  std::array<long long, 3> stride{1, 1, 1};  // elements, x, y, z
  std::string library;                       // "cupy", "torch", ... for messages and allocation
  bool readonly = false;                     // __cuda_array_interface__'s flag
  std::uintptr_t producer_stream = 0;        // __cuda_array_interface__'s "stream" (0: none given)
  bool device_checked = false;               // read from the library (torch, DLPack), else check_device asks the driver
  std::shared_ptr<void> keep;                // a DLPack tensor, released (its deleter called) when the last copy goes
};

// `module.name`, looked up once and kept for the process's life: a static
// py::object would be released after the interpreter is gone.
py::handle kept(const char* module, const char* name);

// Reads `obj`, bound to field `field`. `stream`: the stream the launch will
// use, which a __dlpack__ producer is asked to order its work before.
// Throws BindingError (host arrays, dtypes, strides, a device other than
// `device` where the library says it) naming the field. Asks no driver.
ArrayArg read_array(py::handle obj, const std::string& field, int device, std::uintptr_t stream);

// Throws BindingError unless `a` is GPU memory of `device` (the driver is
// asked where the library did not say).
void check_device(const ArrayArg& a, const std::string& field, int device);

// The view of `a` for field `f` of `spec`: `interior` points (x, y, z) with
// `ghost` points of the array around them on each axis it has (at least
// the field's declared ghost; wider arrays are viewed from inside, pitched).
// Throws BindingError when the array's shape is not interior + 2 ghost.
DeviceBuffer view_of(const ArrayArg& a, const Spec& spec, const FieldDecl& f, const std::array<long long, 3>& interior, int ghost);

// A shape (x, y, z) as NumPy has it for a `dims`-D array: "(z, y, x)".
std::string numpy_shape(const std::array<long long, 3>& v, int dims);

// The array's own interior when it is padded by `ghost` on each axis it has.
std::array<long long, 3> interior_of(const ArrayArg& a, const Spec& spec, const FieldDecl& f, int ghost);

// The ghost width of `a` around `interior`: the same on every axis the
// spec has, or BindingError.
int ghost_of(const ArrayArg& a, const Spec& spec, const FieldDecl& f, const std::array<long long, 3>& interior);

}  // namespace gpen::py_api
