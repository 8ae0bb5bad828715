#include "array_arg.hpp"

#include <cstdint>
#include <map>

#include <fmt/format.h>

#include "py_args.hpp"
#include "gpen/families/common/kernel.hpp"
#include "gpen/runtime/driver.hpp"

namespace gpen::py_api {

namespace {

// DLPack's C ABI (dlpack.h, version 0.x/1.x unversioned capsule "dltensor"):
// the layout is the protocol's, declared here for the few fields read.
struct DLDevice {
  std::int32_t device_type;  // 1 CPU, 2 CUDA, 3 CUDA host, 13 CUDA managed
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;  // 2: IEEE float
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // elements; null: compact row-major
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
constexpr std::int32_t kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13;

[[noreturn]] void refuse(const std::string& field, const std::string& why) { throw BindingError(fmt::format("field '{}': {}", field, why)); }

// How an object is read. Torch and CuPy: decided once a type (their
// attributes are the class's); any other object by what it has itself,
// each time (its class may make arrays and non-arrays alike).
enum class Path { Torch, Cupy, Object };
struct TypeInfo {
  std::string library;  // "cupy", "torch", "jax", ...: the type's top package
  Path path;
};
const TypeInfo& type_info(py::handle obj) {
  static std::map<PyTypeObject*, TypeInfo> known;
  PyTypeObject* t = Py_TYPE(obj.ptr());
  auto it = known.find(t);
  if (it != known.end()) return it->second;
  const py::handle type(reinterpret_cast<PyObject*>(t));
  std::string module = py::str(type.attr("__module__"));
  module = module.substr(0, module.find('.'));
  Path path = Path::Object;
  if (module == "torch" && py::hasattr(type, "data_ptr") && py::hasattr(type, "get_device")) path = Path::Torch;
  else if (module == "cupy" && py::hasattr(type, "data") && py::hasattr(type, "strides") && py::hasattr(type, "dtype")) path = Path::Cupy;
  Py_INCREF(t);  // the cache keeps the type alive
  return known.emplace(t, TypeInfo{module, path}).first->second;
}

// obj.__cuda_array_interface__, or None where it has none. What the
// attribute raises otherwise is the array's own error: it goes on as it is.
py::object interface_of(py::handle obj) {
  PyObject* cai = PyObject_GetAttrString(obj.ptr(), "__cuda_array_interface__");
  if (cai) return py::reinterpret_steal<py::object>(cai);
  if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw py::error_already_set();
  PyErr_Clear();
  return py::none();
}

[[noreturn]] void wrong_device(const std::string& field, int on, int device) {
  refuse(field, fmt::format("it is on GPU {}, the kernel on GPU {}", on, device));
}

std::string host_advice(const std::string& library) {
  return fmt::format("a host array ({}); gpen launches on GPU arrays: copy it first, e.g. cupy.asarray(a) or torch.as_tensor(a, device=\"cuda\")",
                     library);
}

Dtype dtype_from_bits(const std::string& field, int bits, const std::string& name) {
  if (bits == 64) return Dtype::Float64;
  if (bits == 32) return Dtype::Float32;
  refuse(field, fmt::format("dtype '{}'; gpen's arrays are float32 or float64", name));
}

// NumPy-order shape and element strides into `a` (x first), checked.
void set_geometry(ArrayArg& a, const std::string& field, const std::vector<long long>& shape, const std::vector<long long>& strides) {
  a.ndim = static_cast<int>(shape.size());
  if (a.ndim < 1 || a.ndim > 3) refuse(field, fmt::format("a {}-D array; gpen's arrays have 1 to 3 dimensions", a.ndim));
  for (int i = 0; i < a.ndim; ++i) {
    const int ax = a.ndim - 1 - i;  // NumPy's last axis is x
    a.extent[ax] = shape[i];
    a.stride[ax] = strides[i];
    if (shape[i] < 1) refuse(field, "an empty array");
    if (strides[i] < 1 && shape[i] > 1) refuse(field, fmt::format("a stride of {} elements along axis {}; gpen takes positive strides", strides[i], i));
  }
  // A length-1 axis's stride is any number: take the packed one.
  if (a.extent[0] == 1) a.stride[0] = 1;
  if (a.extent[1] == 1) a.stride[1] = a.extent[0] * a.stride[0];
  if (a.extent[2] == 1) a.stride[2] = a.extent[1] * a.stride[1];
  if (a.extent[0] > 1 && a.stride[0] != 1)
    refuse(field, fmt::format("its last axis has a stride of {} elements; gpen takes rows whose elements are contiguous (a row or plane pitch is fine)",
                              a.stride[0]));
}

// A tuple of ints (a shape, strides) without pybind11's generic caster.
std::vector<long long> tuple_values(const py::object& t) {
  if (!PyTuple_Check(t.ptr())) return t.cast<std::vector<long long>>();  // torch.Size is a tuple; anything else the slow way
  const Py_ssize_t n = PyTuple_GET_SIZE(t.ptr());
  std::vector<long long> v(static_cast<std::size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) v[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(t.ptr(), i));
  if (PyErr_Occurred()) throw py::error_already_set();
  return v;
}

std::vector<long long> compact_strides(const std::vector<long long>& shape) {
  std::vector<long long> s(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

ArrayArg from_torch(py::handle obj, const std::string& field, int device) {
  ArrayArg a;
  a.library = "torch";
  a.device_checked = true;
  static const py::handle f64 = kept("torch", "float64"), f32 = kept("torch", "float32");
  const int on = obj.attr("get_device")().cast<int>();  // -1: the host
  if (on < 0) refuse(field, host_advice("a torch tensor on " + std::string(py::str(obj.attr("device")))));
  if (on != device) wrong_device(field, on, device);
  const py::object dt = obj.attr("dtype");
  if (dt.is(f64)) a.dtype = Dtype::Float64;
  else if (dt.is(f32)) a.dtype = Dtype::Float32;
  else refuse(field, fmt::format("dtype {}; gpen's arrays are float32 or float64", std::string(py::str(dt))));
  a.ptr = obj.attr("data_ptr")().cast<std::uintptr_t>();
  set_geometry(a, field, tuple_values(obj.attr("shape")), tuple_values(obj.attr("stride")()));
  return a;
}

// CuPy's ndarray read through its attributes: its __cuda_array_interface__
// builds a dict a call, the larger part of a small launch's cost.
ArrayArg from_cupy(py::handle obj, const std::string& field, int device) {
  ArrayArg a;
  a.library = "cupy";
  static const py::handle f64 = kept("numpy", "float64"), f32 = kept("numpy", "float32");
  static const py::handle dtype_of = kept("numpy", "dtype");
  static const py::handle f64_dtype = dtype_of(f64).release(), f32_dtype = dtype_of(f32).release();
  const py::object dtype = obj.attr("dtype");
  if (dtype.is(f64_dtype)) a.dtype = Dtype::Float64;
  else if (dtype.is(f32_dtype)) a.dtype = Dtype::Float32;
  else if (dtype.equal(f64_dtype)) a.dtype = Dtype::Float64;  // an equal dtype that is another object
  else if (dtype.equal(f32_dtype)) a.dtype = Dtype::Float32;
  else refuse(field, fmt::format("dtype '{}'; gpen's arrays are float32 or float64", std::string(py::str(dtype))));
  const py::object data = obj.attr("data");
  a.ptr = data.attr("ptr").cast<std::uintptr_t>();
  const int on = data.attr("device_id").cast<int>();
  if (on != device) wrong_device(field, on, device);
  a.device_checked = true;
  std::vector<long long> st = tuple_values(obj.attr("strides"));
  const long long elem = static_cast<long long>(size_of(a.dtype));
  for (long long& bytes : st) {
    if (bytes % elem) refuse(field, fmt::format("a stride of {} bytes, not a multiple of its {}-byte elements", bytes, elem));
    bytes /= elem;
  }
  set_geometry(a, field, tuple_values(obj.attr("shape")), st);
  return a;
}

// The CUDA Array Interface's dict, read entry by entry: a malformed one
// is refused naming the entry, never read in part.
class InterfaceDict {
 public:
  InterfaceDict(const py::object& cai, const std::string& field) : field_(field) {
    if (!py::isinstance<py::dict>(cai)) refuse(field, fmt::format("its __cuda_array_interface__ is {}; expected a dict", repr_of(cai)));
    cai_ = cai;
  }
  // The entry, or None where it is not there and may be left out.
  py::object get(const char* key, bool required) const {
    if (cai_.contains(key)) return cai_[key];
    if (required) refuse(field_, fmt::format("its __cuda_array_interface__ has no '{}'", key));
    return py::none();
  }
  [[noreturn]] void bad(const char* key, py::handle v, const std::string& expected) const {
    refuse(field_, fmt::format("its __cuda_array_interface__'s '{}' is {}; expected {}", key, repr_of(v), expected));
  }
  // A tuple of ints (shape, strides).
  std::vector<long long> ints(const char* key, py::handle v) const {
    if (!py::isinstance<py::tuple>(v)) bad(key, v, "a tuple of ints");
    std::vector<long long> out;
    for (const py::handle x : v) {
      const std::optional<long long> n = integer_of(x);
      if (!n) bad(key, v, "a tuple of ints");
      out.push_back(*n);
    }
    return out;
  }
  // A pointer or a stream handle: an int from 0 up.
  std::uintptr_t handle(const char* key, py::handle v) const {
    const std::optional<std::uint64_t> h = unsigned_of(v);
    if (!h) bad(key, v, "an int from 0 up");
    return static_cast<std::uintptr_t>(*h);
  }

 private:
  py::dict cai_;
  std::string field_;
};

ArrayArg from_interface(const py::object& cai_object, const std::string& field, const std::string& library) {
  const InterfaceDict cai(cai_object, field);
  ArrayArg a;
  a.library = library;
  const py::object type = cai.get("typestr", true);
  if (!py::isinstance<py::str>(type)) cai.bad("typestr", type, "a str such as '<f8'");
  const std::string typestr = type.cast<std::string>();
  if (typestr.size() != 3 || (typestr[0] != '<' && typestr[0] != '=' && typestr[0] != '|') || typestr[1] != 'f')
    refuse(field, fmt::format("dtype '{}' (its __cuda_array_interface__); gpen's arrays are float32 or float64", typestr));
  a.dtype = dtype_from_bits(field, 8 * (typestr[2] - '0'), typestr);
  const py::object data = cai.get("data", true);
  if (!py::isinstance<py::tuple>(data) || py::len(data) != 2 || !py::isinstance<py::bool_>(py::tuple(data)[1]))
    cai.bad("data", data, "(pointer, read-only flag): an int from 0 up and a bool");
  a.ptr = cai.handle("data", py::tuple(data)[0]);
  a.readonly = py::tuple(data)[1].cast<bool>();
  const std::vector<long long> shape = cai.ints("shape", cai.get("shape", true));
  std::vector<long long> strides = compact_strides(shape);
  if (const py::object given = cai.get("strides", false); !given.is_none()) {
    const std::vector<long long> bytes = cai.ints("strides", given);
    if (bytes.size() != shape.size()) cai.bad("strides", given, fmt::format("one stride for each of the {} axes of its shape", shape.size()));
    const long long elem = static_cast<long long>(size_of(a.dtype));
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] % elem) refuse(field, fmt::format("a stride of {} bytes, not a multiple of its {}-byte elements", bytes[i], elem));
      strides[i] = bytes[i] / elem;
    }
  }
  set_geometry(a, field, shape, strides);
  if (!cai.get("mask", false).is_none()) refuse(field, "a masked array (its __cuda_array_interface__ has a mask); gpen takes plain arrays");
  if (const py::object stream = cai.get("stream", false); !stream.is_none()) {
    a.producer_stream = cai.handle("stream", stream);
    if (a.producer_stream == 0) refuse(field, "its __cuda_array_interface__ names stream 0, which the protocol does not allow (1: the legacy default stream)");
  }
  return a;  // its device: check_device, once the shapes are checked
}

ArrayArg from_dlpack(py::handle obj, const std::string& field, int device, std::uintptr_t stream, const std::string& library) {
  if (py::hasattr(obj, "__dlpack_device__")) {
    const py::object dev = obj.attr("__dlpack_device__")();  // (device type, device id)
    const std::optional<long long> kind = py::isinstance<py::tuple>(dev) && py::len(dev) == 2 ? integer_of(py::tuple(dev)[0]) : std::nullopt;
    if (!kind) refuse(field, fmt::format("its __dlpack_device__() gave {}; expected (device type, device id)", repr_of(dev)));
    if (*kind == kDLCPU || *kind == kDLCUDAHost) refuse(field, host_advice(library));
  }
  // The consumer's stream: 1 is the legacy default stream (0 is not allowed).
  // No copy, where the producer takes the keyword: an output must be its memory.
  const std::uintptr_t consumer = stream ? stream : 1;
  py::object capsule;
  try {
    capsule = obj.attr("__dlpack__")(py::arg("stream") = consumer, py::arg("copy") = false);
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    capsule = obj.attr("__dlpack__")(py::arg("stream") = consumer);
  }
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (!m) {
    PyErr_Clear();
    refuse(field, "its __dlpack__ gave no \"dltensor\" capsule");
  }
  // Borrowed until the launch is queued (the holder goes with the last copy
  // of the ArrayArg): a producer may have exported a copy.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  std::shared_ptr<void> keep(m, [](void* p) {
    auto* t = static_cast<DLManagedTensor*>(p);
    if (t->deleter) t->deleter(t);
  });
  const DLTensor& t = m->dl_tensor;
  ArrayArg a;
  a.library = library;
  a.device_checked = true;
  a.keep = keep;
  if (t.device.device_type == kDLCPU || t.device.device_type == kDLCUDAHost) refuse(field, host_advice(library));
  if (t.device.device_type != kDLCUDA && t.device.device_type != kDLCUDAManaged)
    refuse(field, fmt::format("DLPack device type {}; gpen launches on CUDA arrays", t.device.device_type));
  if (t.device.device_id != device) wrong_device(field, t.device.device_id, device);
  if (t.dtype.code != 2 || t.dtype.lanes != 1) refuse(field, fmt::format("DLPack dtype code {} of {} bits; gpen's arrays are float32 or float64", t.dtype.code, t.dtype.bits));
  a.dtype = dtype_from_bits(field, t.dtype.bits, fmt::format("float{}", t.dtype.bits));
  a.ptr = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
  std::vector<long long> shape(t.shape, t.shape + std::max(0, t.ndim));
  std::vector<long long> strides = t.strides ? std::vector<long long>(t.strides, t.strides + t.ndim) : compact_strides(shape);
  set_geometry(a, field, shape, strides);
  return a;
}

}  // namespace

py::handle kept(const char* module, const char* name) {
  py::object o = py::module_::import(module).attr(name);
  return o.release();
}

ArrayArg read_array(py::handle obj, const std::string& field, int device, std::uintptr_t stream) {
  if (obj.is_none()) refuse(field, "None; expected a GPU array (CuPy, PyTorch, or any with __cuda_array_interface__ or __dlpack__)");
  const TypeInfo& type = type_info(obj);
  if (type.path == Path::Torch) return from_torch(obj, field, device);
  if (type.path == Path::Cupy) return from_cupy(obj, field, device);
  if (const py::object cai = interface_of(obj); !cai.is_none()) return from_interface(cai, field, type.library);
  if (py::hasattr(obj, "__dlpack__")) return from_dlpack(obj, field, device, stream, type.library);
  const std::string name = py::str(py::type::handle_of(obj).attr("__name__"));
  if (py::hasattr(obj, "__array_interface__") || py::hasattr(obj, "__array__")) refuse(field, host_advice(type.library + "." + name));
  refuse(field, fmt::format("a {} object, not an array; expected a GPU array (CuPy, PyTorch, or any with __cuda_array_interface__ or __dlpack__)", name));
}

void check_device(const ArrayArg& a, const std::string& field, int device) {
  if (a.device_checked) return;
  int ordinal = -1;
  const CUresult r = driver().cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, a.ptr);
  if (r != CUDA_SUCCESS) refuse(field, fmt::format("its address {:#x} is not GPU memory that CUDA knows ({})", static_cast<unsigned long long>(a.ptr), a.library));
  if (ordinal != device) wrong_device(field, ordinal, device);
}

std::array<long long, 3> interior_of(const ArrayArg& a, const Spec& spec, const FieldDecl& f, int ghost) {
  std::array<long long, 3> n{1, 1, 1};
  for (int ax = 0; ax < spec.dims; ++ax) {
    n[ax] = a.extent[ax] - 2LL * ghost;
    if (n[ax] < 1)
      throw BindingError(fmt::format("field '{}': {} points along {} leave no interior inside ghost zones of {}", f.name, a.extent[ax], axis_name(ax), ghost));
  }
  return n;
}

int ghost_of(const ArrayArg& a, const Spec& spec, const FieldDecl& f, const std::array<long long, 3>& interior) {
  int g = -1;
  for (int ax = 0; ax < spec.dims; ++ax) {
    const long long pad = a.extent[ax] - interior[ax];
    if (pad < 0 || pad % 2 || (g >= 0 && pad / 2 != g))
      throw BindingError(fmt::format("field '{}': the array's shape {} is not the interior {} plus the same ghost zones on each side of each axis", f.name,
                                     numpy_shape(a.extent, spec.dims), numpy_shape(interior, spec.dims)));
    g = static_cast<int>(pad / 2);
  }
  return g;
}

std::string numpy_shape(const std::array<long long, 3>& v, int dims) {
  return fmt::format("({})", fmt::join(std::vector<long long>(v.rbegin() + (3 - dims), v.rend()), ", "));
}

DeviceBuffer view_of(const ArrayArg& a, const Spec& spec, const FieldDecl& f, const std::array<long long, 3>& interior, int ghost) {
  const auto numpy_order = [&](const std::array<long long, 3>& v) { return numpy_shape(v, spec.dims); };
  if (a.ndim != spec.dims)
    throw BindingError(fmt::format("field '{}': a {}-D array; the spec '{}' is {}-D", f.name, a.ndim, spec.name, spec.dims));
  if (a.dtype != field_dtype(spec, f))
    throw BindingError(fmt::format("field '{}': a {} array; the spec '{}' says {}", f.name, to_string(a.dtype), spec.name, to_string(field_dtype(spec, f))));
  if (ghost < f.ghost)
    throw BindingError(fmt::format("field '{}': ghost zones of {} points; the spec needs at least {} ({}/ghost)", f.name, ghost, f.ghost, f.pointer));
  std::array<long long, 3> want{1, 1, 1};
  for (int ax = 0; ax < spec.dims; ++ax) want[ax] = interior[ax] + 2LL * ghost;
  if (want != a.extent)
    throw BindingError(fmt::format("field '{}': shape {}; expected {} (interior {} and ghost zones of {})", f.name, numpy_order(a.extent), numpy_order(want),
                                   numpy_order(interior), ghost));
  if (f.role == FieldDecl::Role::Output && a.readonly) throw BindingError(fmt::format("field '{}': a read-only array bound to an output", f.name));
  // Wider ghost zones than the spec's: the view starts inside them.
  const long long in = ghost - f.ghost;
  long long offset = in;
  Pitch pitch;
  if (spec.dims >= 2) {
    pitch.row = a.stride[1];
    offset += in * a.stride[1];
  }
  if (spec.dims == 3) {
    pitch.plane = a.stride[2];
    offset += in * a.stride[2];
  }
  try {
    return DeviceBuffer::view(a.ptr + static_cast<CUdeviceptr>(offset) * size_of(a.dtype), a.dtype, spec.dims, interior, f.ghost, pitch);
  } catch (const std::invalid_argument& e) {
    throw BindingError(fmt::format("field '{}': {}", f.name, e.what()));
  }
}

}  // namespace gpen::py_api
