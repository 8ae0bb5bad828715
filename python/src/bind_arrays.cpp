#include "bind_arrays.hpp"

#include <fmt/format.h>

#include "array_arg.hpp"
#include "gpen/generator/error.hpp"

namespace gpen::py_api {

namespace {

// The stream the array's library calls current: CuPy's or PyTorch's; else
// the one its __cuda_array_interface__ names; else the legacy default.
std::uintptr_t current_stream_of(const ArrayArg& a, int device) {
  if (a.library == "cupy") {
    static const py::handle get = kept("cupy.cuda", "get_current_stream");
    return get().attr("ptr").cast<std::uintptr_t>();
  }
  if (a.library == "torch") {
    // The raw handle (what torch.cuda.current_stream(device).cuda_stream
    // gives, without making a Stream object), where this torch has it.
    static const py::handle raw = [] {
      const py::object c = py::module_::import("torch._C");
      return py::hasattr(c, "_cuda_getCurrentRawStream") ? kept("torch._C", "_cuda_getCurrentRawStream") : py::handle();
    }();
    if (raw) return raw(device).cast<std::uintptr_t>();
    static const py::handle get = kept("torch.cuda", "current_stream");
    return get(device).attr("cuda_stream").cast<std::uintptr_t>();
  }
  return a.producer_stream;
}

// Waits for the library's current stream (CuPy's or PyTorch's).
void synchronize_current(const std::string& library, int device) {
  if (library == "cupy") py::module_::import("cupy.cuda").attr("get_current_stream")().attr("synchronize")();
  else if (library == "torch") py::module_::import("torch.cuda").attr("current_stream")(device).attr("synchronize")();
}

int ghost_given(const py::object& ghost, const std::string& field, int otherwise) {
  if (ghost.is_none()) return otherwise;
  if (py::isinstance<py::int_>(ghost)) return ghost.cast<int>();
  if (!py::isinstance<py::dict>(ghost)) throw UsageError(fmt::format("ghost={}: expected an int or a dict of ints by field", std::string(py::repr(ghost))));
  const py::dict d = ghost;
  return d.contains(field.c_str()) ? d[field.c_str()].cast<int>() : otherwise;
}

// A zeroed array for output `f` beside `like`, in its library (CuPy or PyTorch).
py::object allocate_like(const Spec& s, py::handle like, const std::string& library, const FieldDecl& f, const std::array<long long, 3>& interior) {
  py::list shape;  // NumPy's order, ghosts included (a result has none)
  for (int ax = s.dims - 1; ax >= 0; --ax) shape.append(interior[ax] + 2LL * f.ghost);
  const std::string dtype = to_string(field_dtype(s, f));
  if (library == "cupy") return py::module_::import("cupy").attr("zeros")(py::tuple(shape), py::arg("dtype") = dtype);
  if (library == "torch") {
    const py::object torch = py::module_::import("torch");
    return torch.attr("zeros")(*py::tuple(shape), py::arg("dtype") = torch.attr(dtype.c_str()), py::arg("device") = like.attr("device"));
  }
  throw BindingError(fmt::format("spec '{}': output '{}' not given; gpen makes outputs only beside CuPy or PyTorch arrays ({} here)", s.name, f.name,
                                 library.empty() ? "another library" : library));
}

bool own_shape(const Spec& s, const FieldDecl& f) { return s.kind == "pairwise" || f.set == FieldDecl::Set::Sources; }

}  // namespace

std::uintptr_t stream_handle(const py::handle& s) {
  if (py::isinstance<py::int_>(s)) return s.cast<std::uintptr_t>();
  if (py::hasattr(s, "cuda_stream")) return s.attr("cuda_stream").cast<std::uintptr_t>();  // torch.cuda.Stream
  if (py::hasattr(s, "ptr")) return s.attr("ptr").cast<std::uintptr_t>();                  // cupy.cuda.Stream
  throw UsageError(fmt::format("stream={}: expected a stream handle (int), a cupy.cuda.Stream or a torch.cuda.Stream", std::string(py::repr(s))));
}

BoundArrays bind_arrays(const Spec& s, const BindRequest& rq, const py::dict& given) {
  BoundArrays out;
  py::dict arrays = given;  // copied before an output made here is added: not into the caller's dict
  for (const auto& [k, v] : arrays) {
    (void)v;
    const std::string name = py::str(k);
    if (!s.find_field(name)) {
      std::vector<std::string> names;
      for (const auto& f : s.fields) names.push_back(f.name);
      throw BindingError(fmt::format("spec '{}': no field named '{}' (fields: {})", s.name, name, fmt::join(names, ", ")));
    }
  }
  out.stream = rq.stream.is_none() ? 0 : stream_handle(rq.stream);

  // Each array read once; the interior from the request, else the first input's.
  std::vector<std::optional<ArrayArg>> read(s.fields.size());
  out.interior = rq.interior;
  py::handle first;
  std::string first_library;
  ArrayArg first_arg;
  for (std::size_t i = 0; i < s.fields.size(); ++i) {
    const FieldDecl& f = s.fields[i];
    if (!arrays.contains(f.name.c_str())) continue;
    const py::handle obj = arrays[f.name.c_str()];
    read[i] = read_array(obj, f.name, rq.device, out.stream);
    if (read[i]->ndim != s.dims)
      throw BindingError(fmt::format("field '{}': a {}-D array; the spec '{}' is {}-D", f.name, read[i]->ndim, s.name, s.dims));
    if (!first) {
      first = obj;
      first_library = read[i]->library;
      first_arg = *read[i];
      if (rq.stream.is_none()) out.stream = current_stream_of(*read[i], rq.device);
    }
    if (!out.interior && f.role == FieldDecl::Role::Input && !own_shape(s, f))
      out.interior = interior_of(*read[i], s, f, ghost_given(rq.ghost, f.name, f.ghost));
  }
  if (!first) {
    std::vector<std::string> names;
    for (const auto& f : s.fields) names.push_back(f.name);
    throw BindingError(fmt::format("spec '{}': no arrays given; its fields: {}", s.name, fmt::join(names, ", ")));
  }

  // Outputs not given are made beside the first array, in its library.
  for (std::size_t i = 0; i < s.fields.size(); ++i) {
    const FieldDecl& f = s.fields[i];
    if (f.role != FieldDecl::Role::Output) continue;
    if (!read[i] && rq.allocate) {
      std::optional<std::array<long long, 3>> shape = out.interior;
      if (!shape && s.kind == "pairwise") {  // outputs live on the targets: the first target input's points
        for (std::size_t j = 0; j < s.fields.size() && !shape; ++j)
          if (read[j] && s.fields[j].role == FieldDecl::Role::Input && s.fields[j].set != FieldDecl::Set::Sources)
            shape = interior_of(*read[j], s, s.fields[j], s.fields[j].ghost);
      }
      if (!shape) throw BindingError(fmt::format("spec '{}': output '{}' not given, and no input says its size", s.name, f.name));
      py::object made = allocate_like(s, first, first_library, f, field_shape(f, *shape));
      // Zeroed in the library's current stream: the launch's own waits for it.
      if (!rq.stream.is_none() && current_stream_of(first_arg, rq.device) != out.stream) synchronize_current(first_library, rq.device);
      if (arrays.is(given)) arrays = given.attr("copy")();
      arrays[f.name.c_str()] = made;
      read[i] = read_array(made, f.name, rq.device, out.stream);
    }
    if (read[i]) out.output_objects.append(arrays[f.name.c_str()]);
  }

  // Views: nothing is copied.
  out.views.reserve(s.fields.size());
  for (std::size_t i = 0; i < s.fields.size(); ++i) {
    if (!read[i]) continue;
    const FieldDecl& f = s.fields[i];
    const ArrayArg& a = *read[i];
    if (f.reduced_axes) {
      if (!out.interior) throw BindingError(fmt::format("spec '{}': result '{}' bound, but no input says the interior it reduces", s.name, f.name));
      out.views.push_back(view_of(a, s, f, field_shape(f, *out.interior), f.ghost));
    } else if (own_shape(s, f) || !out.interior) {
      const int g = ghost_given(rq.ghost, f.name, f.ghost);
      out.views.push_back(view_of(a, s, f, interior_of(a, s, f, g), g));
    } else {
      const int g = rq.ghost.is_none() ? ghost_of(a, s, f, *out.interior) : ghost_given(rq.ghost, f.name, f.ghost);
      out.views.push_back(view_of(a, s, f, *out.interior, g));
    }
    out.fields[f.name] = &out.views.back();
    if (f.role == FieldDecl::Role::Output) out.outputs.push_back(&out.views.back());
  }
  if (rq.check_devices)
    for (std::size_t i = 0; i < s.fields.size(); ++i)
      if (read[i]) check_device(*read[i], s.fields[i].name, rq.device);
  return out;
}

ParamValues param_values(const Spec& s, const py::dict& params) {
  ParamValues values;
  for (const auto& [k, v] : params) {
    const std::string name = py::str(k);
    const bool known = std::any_of(s.params.begin(), s.params.end(), [&](const ParamDecl& p) { return p.name == name; });
    if (!known) {
      std::vector<std::string> names;
      for (const auto& p : s.params) names.push_back(p.name);
      for (const auto& f : s.fields) names.push_back(f.name);
      throw BindingError(fmt::format("spec '{}': no field or param named '{}' (it has: {})", s.name, name, fmt::join(names, ", ")));
    }
    if (py::isinstance<py::bool_>(v) || !(py::isinstance<py::float_>(v) || py::isinstance<py::int_>(v) || py::hasattr(v, "__float__")))
      throw BindingError(fmt::format("spec '{}': param '{}' is {}; expected a number", s.name, name, std::string(py::repr(v))));
    values[name] = v.cast<double>();
  }
  return values;
}

}  // namespace gpen::py_api
