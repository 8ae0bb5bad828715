// A spec given to the Python module as a dict (the spec's JSON as Python
// values): written out as JSON text, which gpen then reads as it reads a
// file, so that its errors name JSON pointers and lines alike.
#pragma once

#include <string>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every file of the module: one caster of std::vector for all

namespace gpen::py_api {

namespace py = pybind11;

// The dict as JSON, indented by 2, in its keys' order. Values JSON holds:
// dicts with str keys, lists and tuples, str, int (NumPy's integers too),
// finite numbers (NumPy's floats too), True, False, None. Anything else (a
// set, NaN, a dict that holds itself, nesting past the spec reader's
// depth) is a SpecError at its JSON pointer, in "<dict>".
std::string spec_dict_json(py::handle spec);

}  // namespace gpen::py_api
