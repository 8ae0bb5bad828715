// Python values given to gpen's keywords, checked and converted in one
// place: each refusal a UsageError that starts with the keyword and the
// value as given, then what was expected ("steps=2.5: expected an int
// from 0 to 1099511627776"), never a pybind11 cast error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every file of the module: one caster of std::vector for all

namespace gpen::py_api {

namespace py = pybind11;

// repr(v) for messages, cut to 80 characters.
std::string repr_of(py::handle v);

// Whether `v` is True or False: Python's bool or NumPy's.
bool is_bool(py::handle v);

// Whether `v` is an integer as Python's operator.index takes it (int,
// NumPy's integers), bool left out: True is no size, count or width.
bool is_integer(py::handle v);

// `v` as a long long / an unsigned 64-bit integer where it is an integer
// (is_integer) in that type's range; else nothing.
std::optional<long long> integer_of(py::handle v);
std::optional<std::uint64_t> unsigned_of(py::handle v);

// An integer from `lo` to `hi`; else UsageError "what=v: expected an int
// from lo to hi".
long long int_arg(py::handle v, const std::string& what, long long lo, long long hi);

// The decimal digits of an integer (is_integer), however large: the
// caller's own check says what is too large, in its words.
std::string int_digits(py::handle v);

// A handle (a pointer: a stream's, an address): an int from 0 to 2^64 - 1;
// else UsageError "what=v: expected <expected>".
std::uint64_t handle_arg(py::handle v, const std::string& what, const std::string& expected);

// `v` as a double where it is a real number: an int, a float, NumPy's
// scalars, anything with __float__; not a bool, a str or an array (even
// of one element). Nothing for an int past a double's range.
std::optional<double> number_of(py::handle v);

// number_of(v) where `valid` accepts it (it sees NaN and infinities too);
// else UsageError "what=v: expected <expected>".
double number_arg(py::handle v, const std::string& what, bool (*valid)(double), const std::string& expected);
bool is_finite(double x);

// True or False (NumPy's bool_ too): no other value is taken as one.
bool bool_arg(py::handle v, const std::string& what);

// A str, as it is.
std::string str_arg(py::handle v, const std::string& what);

// A path: a str or an os.PathLike, without a NUL byte (which would cut it).
std::string path_arg(py::handle v, const std::string& what);

// A GPU's number, 0 up (whether this machine has it: context()).
int device_arg(py::handle v);

}  // namespace gpen::py_api
