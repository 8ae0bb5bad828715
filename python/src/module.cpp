// The gpen Python module's C++ half (gpen._gpen): specs, kernels on the
// caller's GPU arrays, tuning and programs; and gpen's errors as Python
// exceptions that keep what the C++ ones carry.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "py_kernel.hpp"
#include "py_run.hpp"
#include "py_spec.hpp"
#include "gpen/families/common/kernel.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/runtime/driver.hpp"

namespace py = pybind11;

namespace {

// One entry of a SpecError as a dict: file, pointer, line, column, message, expected.
py::dict detail_dict(const gpen::SpecError& e) {
  const auto& d = e.detail();
  py::dict out;
  out["file"] = d.file;
  out["pointer"] = d.pointer;
  out["line"] = d.where.line;
  out["column"] = d.where.column;
  out["message"] = d.message;
  out["expected"] = d.expected;
  return out;
}

}  // namespace

PYBIND11_MODULE(_gpen, m) {
  m.doc() = "gpen: kernel specs in JSON turned into specialised CUDA kernels, launched on CuPy and PyTorch arrays";
  static auto& spec_error = *new py::exception<gpen::SpecError>(m, "SpecError", PyExc_ValueError);
  static auto& usage_error = *new py::exception<gpen::UsageError>(m, "UsageError", PyExc_ValueError);
  static auto& binding_error = *new py::exception<gpen::BindingError>(m, "BindingError", PyExc_ValueError);
  static auto& no_device_error = *new py::exception<gpen::NoDeviceError>(m, "NoDeviceError", PyExc_RuntimeError);
  // (Made once and never destroyed: a static py::object would be released
  // after the interpreter is gone.)
  for (PyObject* e : {spec_error.ptr(), usage_error.ptr(), binding_error.ptr(), no_device_error.ptr()}) py::handle(e).attr("__module__") = "gpen";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const gpen::SpecError& e) {
      // The first error's place as attributes, and every error in `errors`.
      py::object ex = py::handle(spec_error.ptr())(e.what());
      const py::dict first = detail_dict(e);
      for (const char* key : {"file", "pointer", "line", "column", "expected"}) ex.attr(key) = first[key];
      ex.attr("message") = first["message"];
      py::list all;
      if (const auto* many = dynamic_cast<const gpen::SpecErrors*>(&e))
        for (const auto& one : many->errors()) all.append(detail_dict(one));
      else
        all.append(first);
      ex.attr("errors") = all;
      PyErr_SetObject(spec_error.ptr(), ex.ptr());
    } catch (const gpen::UsageError& e) {
      usage_error(e.what());
    } catch (const gpen::BindingError& e) {
      binding_error(e.what());
    } catch (const gpen::NoDeviceError& e) {
      no_device_error(e.what());
    }
  });
  m.def("gpu_available", [] {
    std::string why;
    const bool ok = gpen::driver_available(&why);
    return py::make_tuple(ok, why);
  }, "(True, \"\") when a CUDA driver and a GPU are there, else (False, why)");
  gpen::py_api::bind_spec(m);
  gpen::py_api::bind_kernel(m);
  gpen::py_api::bind_run(m);
}
