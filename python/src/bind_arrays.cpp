#include "bind_arrays.hpp"

#include <cmath>
#include <optional>
#include <variant>

#include <fmt/format.h>

#include "array_arg.hpp"
#include "py_args.hpp"
#include "gpen/families/common/grid_run.hpp"
#include "gpen/generator/error.hpp"

namespace gpen::py_api {

namespace {

bool is_pairwise(const Spec& s) { return std::holds_alternative<PairwiseDecl>(s.decl); }

std::string field_names(const Spec& s) {
  std::vector<std::string> names;
  for (const auto& f : s.fields) names.push_back(f.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// The stream the array's library calls current on `device`: CuPy's or
// PyTorch's; else the one its __cuda_array_interface__ names; else the
// legacy default.
std::uintptr_t current_stream_of(const ArrayArg& a, int device) {
  if (a.library == "cupy") {
    static const py::handle get = kept("cupy.cuda", "get_current_stream");
    return get(device).attr("ptr").cast<std::uintptr_t>();
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

// A ghost width: no wider than an axis may be long.
int ghost_arg(py::handle v, const std::string& what) { return static_cast<int>(int_arg(v, what, 0, kMaxSizeAxis)); }

// ghost= as a dict names fields: a key that names none is a mistake (a
// typo would otherwise leave that field at the spec's width).
void check_ghost_keys(const Spec& s, const py::object& ghost) {
  if (!py::isinstance<py::dict>(ghost)) return;
  for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(ghost)) {
    (void)v;
    if (!py::isinstance<py::str>(k) || !s.find_field(k.cast<std::string>()))
      throw UsageError(fmt::format("ghost={}: {} is no field of spec '{}' (fields: {})", repr_of(ghost), repr_of(k), s.name, field_names(s)));
  }
}

// The ghost width `ghost=` gives field `f`: an int gives every input's, a
// dict the named fields'; nothing otherwise (the spec's, or the array's
// shape says).
std::optional<int> ghost_given(const py::object& ghost, const FieldDecl& f) {
  if (ghost.is_none()) return std::nullopt;
  if (py::isinstance<py::dict>(ghost)) {
    const py::dict d = ghost;
    if (!d.contains(f.name.c_str())) return std::nullopt;
    return ghost_arg(d[f.name.c_str()], "ghost['" + f.name + "']");
  }
  const int g = ghost_arg(ghost, "ghost");
  return f.role == FieldDecl::Role::Input ? std::optional<int>(g) : std::nullopt;
}

// A Python context manager entered here and left at the end of the scope.
class Entered {
 public:
  explicit Entered(py::object cm) : cm_(std::move(cm)) { cm_.attr("__enter__")(); }
  ~Entered() { cm_.attr("__exit__")(py::none(), py::none(), py::none()); }

 private:
  py::object cm_;
};

// A zeroed array for output `f` beside `like`, in its library (CuPy or
// PyTorch), on `device`, made and zeroed in `stream` where one was given.
py::object allocate_like(const Spec& s, py::handle like, const std::string& library, const FieldDecl& f, const std::array<long long, 3>& interior,
                         int device, const std::optional<std::uintptr_t>& stream) {
  py::list shape;  // NumPy's order, ghosts included (a result has none)
  for (int ax = s.dims - 1; ax >= 0; --ax) shape.append(interior[ax] + 2LL * f.ghost);
  const std::string dtype = to_string(field_dtype(s, f));
  if (library == "cupy") {
    const py::object cuda = py::module_::import("cupy.cuda");
    Entered on_device(cuda.attr("Device")(device));
    std::optional<Entered> in_stream;
    if (stream) {
      // CuPy 14 takes another library's stream through the CUDA stream
      // protocol (ExternalStream, which takes the handle, is deprecated there).
      const py::object cls = cuda.attr("Stream");
      in_stream.emplace(py::hasattr(cls, "from_external") ? cls.attr("from_external")(py::module_::import("gpen").attr("_StreamHandle")(*stream))
                                                         : cuda.attr("ExternalStream")(*stream));
    }
    return py::module_::import("cupy").attr("zeros")(py::tuple(shape), py::arg("dtype") = dtype);
  }
  if (library == "torch") {
    const py::object torch = py::module_::import("torch");
    std::optional<Entered> in_stream;
    if (stream) in_stream.emplace(torch.attr("cuda").attr("stream")(torch.attr("cuda").attr("ExternalStream")(*stream, py::arg("device") = like.attr("device"))));
    return torch.attr("zeros")(*py::tuple(shape), py::arg("dtype") = torch.attr(dtype.c_str()), py::arg("device") = like.attr("device"));
  }
  throw BindingError(fmt::format("spec '{}': output '{}' not given; gpen makes outputs only beside CuPy or PyTorch arrays ({} here)", s.name, f.name,
                                 library.empty() ? "another library" : library));
}

bool own_shape(const Spec& s, const FieldDecl& f) { return is_pairwise(s) || f.set == FieldDecl::Set::Sources; }

// A pairwise spec's arrays against the size the kernel or bind() was
// given: N targets and M sources, or the grid.
void check_pair_sizes(const Spec& s, const PairSizes& n, const FieldBindings& fields) {
  for (const FieldDecl& f : s.fields) {
    const auto it = fields.find(f.name);
    if (it == fields.end()) continue;
    const auto& got = it->second->shape();
    const bool source = f.set == FieldDecl::Set::Sources;
    if (s.pairwise().grid && got != n.grid)
      throw BindingError(fmt::format("field '{}': shape {}; the size given says {}", f.name, numpy_shape(got, s.dims), numpy_shape(n.grid, s.dims)));
    if (!s.pairwise().grid && got[0] != (source ? n.sources : n.targets))
      throw BindingError(fmt::format("field '{}': {} values; the size given says {} {}", f.name, got[0], source ? n.sources : n.targets, source ? "sources" : "targets"));
  }
}

constexpr const char* kStreamExpected = "a stream handle (an int from 0 up: a live CUstream of the kernel's context, or 0), a cupy.cuda.Stream or a torch.cuda.Stream";

}  // namespace

std::uintptr_t stream_handle(const py::handle& s) {
  if (is_integer(s)) return handle_arg(s, "stream", kStreamExpected);
  if (py::hasattr(s, "cuda_stream")) return s.attr("cuda_stream").cast<std::uintptr_t>();  // torch.cuda.Stream
  if (py::hasattr(s, "ptr")) return s.attr("ptr").cast<std::uintptr_t>();                  // cupy.cuda.Stream
  throw UsageError(fmt::format("stream={}: expected {}", repr_of(s), kStreamExpected));
}

BoundArrays bind_arrays(const Spec& s, const BindRequest& rq, const py::dict& given) {
  check_ghost_keys(s, rq.ghost);
  BoundArrays out;
  py::dict arrays = given;  // copied before an output made here is added: not into the caller's dict
  for (const auto& [k, v] : arrays) {
    (void)v;
    const std::string name = py::str(k);
    if (!s.find_field(name)) throw BindingError(fmt::format("spec '{}': no field named '{}' (fields: {})", s.name, name, field_names(s)));
  }
  const bool explicit_stream = !rq.stream.is_none();
  out.stream = explicit_stream ? stream_handle(rq.stream) : 0;

  // Each array read once; the interior from the request, else the first input's.
  std::vector<std::optional<ArrayArg>> read(s.fields.size());
  std::vector<bool> made(s.fields.size(), false);
  out.interior = rq.interior;
  py::handle first;
  std::string first_library;
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
      if (!explicit_stream) out.stream = current_stream_of(*read[i], rq.device);
    }
    if (!out.interior && f.role == FieldDecl::Role::Input && !own_shape(s, f))
      out.interior = interior_of(*read[i], s, f, ghost_given(rq.ghost, f).value_or(f.ghost));
  }
  if (!first) throw BindingError(fmt::format("spec '{}': no arrays given; its fields: {}", s.name, field_names(s)));

  // Outputs not given are made beside the first array, in its library.
  for (std::size_t i = 0; i < s.fields.size(); ++i) {
    const FieldDecl& f = s.fields[i];
    if (f.role != FieldDecl::Role::Output) continue;
    if (!read[i] && rq.allocate) {
      std::optional<std::array<long long, 3>> shape = out.interior;
      if (!shape && is_pairwise(s)) {  // outputs live on the targets: the first target input's points
        for (std::size_t j = 0; j < s.fields.size() && !shape; ++j)
          if (read[j] && s.fields[j].role == FieldDecl::Role::Input && s.fields[j].set != FieldDecl::Set::Sources)
            shape = interior_of(*read[j], s, s.fields[j], s.fields[j].ghost);
      }
      if (!shape) throw BindingError(fmt::format("spec '{}': output '{}' not given, and no input says its size", s.name, f.name));
      // Made and zeroed in the launch's stream where one was given: the launch follows it there.
      py::object m = allocate_like(s, first, first_library, f, field_shape(f, *shape), rq.device,
                                   explicit_stream ? std::optional<std::uintptr_t>(out.stream) : std::nullopt);
      if (arrays.is(given)) arrays = given.attr("copy")();
      arrays[f.name.c_str()] = m;
      read[i] = read_array(m, f.name, rq.device, out.stream);
      made[i] = true;
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
      const int g = ghost_given(rq.ghost, f).value_or(f.ghost);
      out.views.push_back(view_of(a, s, f, interior_of(a, s, f, g), g));
    } else {
      const std::optional<int> g = made[i] ? std::optional<int>(f.ghost) : ghost_given(rq.ghost, f);
      out.views.push_back(view_of(a, s, f, *out.interior, g ? *g : ghost_of(a, s, f, *out.interior)));
    }
    out.bases.push_back(a.ptr);
    out.arrays.emplace_back(f.name, a);
    out.fields[f.name] = &out.views.back();
    if (f.role == FieldDecl::Role::Output) out.outputs.push_back(&out.views.back());
    if (a.keep) out.keep.push_back(a.keep);
  }
  if (rq.pairs) check_pair_sizes(s, *rq.pairs, out.fields);
  if (rq.check_devices) check_devices(out, rq.device);
  // A __cuda_array_interface__ producer's stream: the launch's waits for it.
  if (rq.order_producers)
    for (const auto& a : read)
      if (a && a->producer_stream && a->producer_stream != out.stream) {
        out.waits.emplace_back();
        out.waits.back().record(reinterpret_cast<CUstream>(a->producer_stream));
        out.waits.back().make_wait(reinterpret_cast<CUstream>(out.stream));
      }
  return out;
}

void check_devices(const BoundArrays& bound, int device) {
  for (const auto& [field, a] : bound.arrays) check_device(a, field, device);
}

bool is_param(const Spec& s, const std::string& name) {
  return std::any_of(s.params.begin(), s.params.end(), [&](const ParamDecl& p) { return p.name == name; });
}

ParamValues param_values(const Spec& s, const py::dict& params) {
  ParamValues values;
  for (const auto& [k, v] : params) {
    const std::string name = py::str(k);
    if (!is_param(s, name)) {
      std::vector<std::string> names;
      for (const auto& p : s.params) names.push_back(p.name);
      for (const auto& f : s.fields) names.push_back(f.name);
      throw BindingError(fmt::format("spec '{}': no field or param named '{}' (it has: {})", s.name, name, fmt::join(names, ", ")));
    }
    // Finite, as a spec's JSON has its params' values.
    const std::optional<double> x = number_of(v);
    if (!x || !std::isfinite(*x)) throw BindingError(fmt::format("spec '{}': param '{}' is {}; expected a finite number", s.name, name, repr_of(v)));
    values[name] = *x;
  }
  return values;
}

}  // namespace gpen::py_api
