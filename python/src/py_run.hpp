// gpen.tune and gpen.simulate.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every file of the module: one caster of std::vector for all

namespace gpen::py_api {

namespace py = pybind11;

void bind_run(py::module_& m);

}  // namespace gpen::py_api
