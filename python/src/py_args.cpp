#include "py_args.hpp"

#include <climits>
#include <cmath>

#include <fmt/format.h>

#include "gpen/generator/error.hpp"

namespace gpen::py_api {

namespace {

[[noreturn]] void refuse(py::handle v, const std::string& what, const std::string& expected) {
  throw UsageError(fmt::format("{}={}: expected {}", what, repr_of(v), expected));
}

// NumPy's bool_ (numpy.bool in NumPy 2) by its type's name: numpy need not be imported.
bool is_numpy_bool(py::handle v) {
  const std::string name = Py_TYPE(v.ptr())->tp_name;
  return name == "numpy.bool_" || name == "numpy.bool";
}

// An array (it has a length) is no scalar, even of one element, which
// NumPy would convert. Asked of the type's slots: an attribute lookup on
// the type also finds its metaclass's, and every Enum class has a length
// (PyTorch's __dlpack_device__() gives an IntEnum member).
bool is_sized(py::handle v) {
  const PyTypeObject* t = Py_TYPE(v.ptr());
  return (t->tp_as_sequence && t->tp_as_sequence->sq_length) || (t->tp_as_mapping && t->tp_as_mapping->mp_length);
}

// operator.index(v), or a null object (the Python error cleared).
py::object index_of(py::handle v) {
  PyObject* i = PyNumber_Index(v.ptr());
  if (!i) PyErr_Clear();
  return py::reinterpret_steal<py::object>(i);
}

}  // namespace

bool is_bool(py::handle v) { return PyBool_Check(v.ptr()) || is_numpy_bool(v); }

// Cut: 10**400 or a large dict would bury the message.
std::string repr_of(py::handle v) { return quoted_text(py::repr(v), 80); }

bool is_integer(py::handle v) { return PyIndex_Check(v.ptr()) && !is_bool(v) && !is_sized(v); }

std::optional<long long> integer_of(py::handle v) {
  const py::object i = is_integer(v) ? index_of(v) : py::object();
  if (!i) return std::nullopt;
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow) return std::nullopt;
  return x;
}

std::optional<std::uint64_t> unsigned_of(py::handle v) {
  const py::object i = is_integer(v) ? index_of(v) : py::object();
  if (!i) return std::nullopt;
  const unsigned long long x = PyLong_AsUnsignedLongLong(i.ptr());  // negative or past 2^64 - 1: OverflowError
  if (x == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    return std::nullopt;
  }
  return x;
}

long long int_arg(py::handle v, const std::string& what, long long lo, long long hi) {
  const std::optional<long long> x = integer_of(v);
  if (!x || *x < lo || *x > hi) refuse(v, what, fmt::format("an int from {} to {}", lo, hi));
  return *x;
}

std::string int_digits(py::handle v) { return py::str(index_of(v)); }

std::uint64_t handle_arg(py::handle v, const std::string& what, const std::string& expected) {
  const std::optional<std::uint64_t> x = unsigned_of(v);
  if (!x) refuse(v, what, expected);
  return *x;
}

bool is_finite(double x) { return std::isfinite(x); }

std::optional<double> number_of(py::handle v) {
  const bool number = !is_bool(v) && !is_sized(v) && (PyFloat_Check(v.ptr()) || is_integer(v) || py::hasattr(v, "__float__"));
  if (!number) return std::nullopt;
  const double x = PyFloat_AsDouble(v.ptr());
  if (x == -1.0 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) throw py::error_already_set();  // a __float__ of its own that failed: its words
    PyErr_Clear();  // 10**400
    return std::nullopt;
  }
  return x;
}

double number_arg(py::handle v, const std::string& what, bool (*valid)(double), const std::string& expected) {
  const std::optional<double> x = number_of(v);
  if (!x || !valid(*x)) refuse(v, what, expected);
  return *x;
}

bool bool_arg(py::handle v, const std::string& what) {
  if (!is_bool(v)) refuse(v, what, "True or False");
  return PyObject_IsTrue(v.ptr()) == 1;
}

std::string str_arg(py::handle v, const std::string& what) {
  if (!py::isinstance<py::str>(v)) refuse(v, what, "a str");
  return v.cast<std::string>();
}

std::string path_arg(py::handle v, const std::string& what) {
  if (!py::isinstance<py::str>(v) && !py::hasattr(v, "__fspath__")) refuse(v, what, "a path (a str or an os.PathLike)");
  const py::object p = py::module_::import("os").attr("fspath")(v);  // str or bytes
  const std::string path = py::isinstance<py::bytes>(p) ? std::string(p.cast<py::bytes>()) : p.cast<std::string>();
  // The file system would read the path up to the NUL: another file.
  if (path.find('\0') != std::string::npos) refuse(v, what, "a path without a NUL byte");
  return path;
}

int device_arg(py::handle v) { return static_cast<int>(int_arg(v, "device", 0, INT_MAX)); }

}  // namespace gpen::py_api
