#include "spec_dict.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "py_args.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/generator/json_source.hpp"
#include "gpen/generator/limits.hpp"

namespace gpen::py_api {

namespace {

using Json = nlohmann::ordered_json;  // the dict's order: its errors' lines follow it

constexpr const char* kJsonValues = "a dict with str keys, a list, a str, an int, a finite number, True, False or None";

class Writer {
 public:
  Json value(py::handle v, const std::string& pointer) {
    // As deep as the spec reader takes (the root at depth 0), and no deeper
    // than this stack can go.
    if (static_cast<int>(open_.size()) > kMaxJsonDepth)
      fail(pointer, fmt::format("the dict nests deeper than {} levels", kMaxJsonDepth), "a spec of fewer nested dicts and lists");
    if (v.is_none()) return nullptr;
    if (is_bool(v)) return PyObject_IsTrue(v.ptr()) == 1;
    if (py::isinstance<py::str>(v)) return text(v, pointer);
    if (is_integer(v)) {
      if (const auto i = integer_of(v)) return *i;
      if (const auto u = unsigned_of(v)) return *u;
      fail(pointer, fmt::format("{} is past the 64-bit integers JSON is read with", repr_of(v)), "an int from -2^63 to 2^64 - 1");
    }
    if (const auto x = number_of(v)) {
      if (!std::isfinite(*x)) fail(pointer, fmt::format("{} cannot be written as JSON", repr_of(v)), "a finite number");
      return *x;
    }
    const bool dict = py::isinstance<py::dict>(v), list = py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v);
    if (!dict && !list)
      fail(pointer, fmt::format("{} (a {}) cannot be written as JSON", repr_of(v), std::string(py::str(py::type::handle_of(v).attr("__name__")))), kJsonValues);
    // A dict or list that holds itself would be written without end.
    if (std::find(open_.begin(), open_.end(), v.ptr()) != open_.end()) fail(pointer, "the value holds itself (a circular reference)", "a dict or list that holds copies, not itself");
    open_.push_back(v.ptr());
    Json out = dict ? object(py::reinterpret_borrow<py::dict>(v), pointer) : array(v, pointer);
    open_.pop_back();
    return out;
  }

 private:
  Json object(const py::dict& d, const std::string& pointer) {
    Json out = Json::object();
    for (const auto& [k, v] : d) {
      if (!py::isinstance<py::str>(k)) fail(pointer, fmt::format("the key {} is no str", repr_of(k)), "str keys, as JSON has");
      const std::string key = text(k, pointer);
      out[key] = value(v, json_pointer_join(pointer, key));
    }
    return out;
  }
  Json array(py::handle list, const std::string& pointer) {
    Json out = Json::array();
    std::size_t i = 0;
    for (const py::handle v : list) out.push_back(value(v, json_pointer_join(pointer, i++)));
    return out;
  }
  // A str as UTF-8; one that has none (a lone surrogate) is refused in words.
  static std::string text(py::handle str, const std::string& pointer) {
    Py_ssize_t n = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(str.ptr(), &n);
    if (!utf8) {
      PyErr_Clear();
      fail(pointer, fmt::format("the str {} is no UTF-8 text (it holds a lone surrogate)", repr_of(str)), "text of Unicode characters");
    }
    return std::string(utf8, static_cast<std::size_t>(n));
  }
  [[noreturn]] static void fail(const std::string& pointer, const std::string& what, const std::string& expected) {
    throw SpecError(SpecError::Detail{"<dict>", pointer, {}, what, expected, ""});
  }

  std::vector<PyObject*> open_;  // the dicts and lists being written, outermost first
};

}  // namespace

std::string spec_dict_json(py::handle spec) { return Writer().value(spec, "").dump(2); }

}  // namespace gpen::py_api
