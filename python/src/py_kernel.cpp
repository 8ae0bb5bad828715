// gpen.Kernel: a spec's kernel, compiled and loaded, launched on the
// caller's GPU arrays in place, in the caller's stream.
#include "py_kernel.hpp"

#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bind_arrays.hpp"
#include "py_args.hpp"
#include "py_spec.hpp"
#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/problem.hpp"
#include "gpen/families/pairwise/pairwise_kernel.hpp"
#include "gpen/families/pairwise/pairwise_run.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/generator/overrides.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/measure/tune/tuned_kernel.hpp"
#include "gpen/runtime/driver.hpp"

namespace gpen::py_api {

PyKernel::PyKernel(const py::object& spec, const py::object& size, const py::object& tunables, const py::object& device, const py::object& tuned)
    : spec_(to_spec(spec).spec), device_(device_arg(device)) {
  const bool use_tuned = bool_arg(tuned, "tuned");
  const Spec& s = *spec_;
  std::vector<std::string> overrides;
  if (!tunables.is_none()) overrides = tunable_overrides(tunables, "tunables");
  // Arguments checked before any GPU work.
  if (!size.is_none()) {
    size_ = checked_size(s, size);
    if (std::holds_alternative<PairwiseDecl>(s.decl)) pairs_ = parse_pair_size(s, size_);
    else interior_ = interior_size(s, size);
  }
  if (!tunables.is_none()) choice_ = choose(s, overrides);
  const Context& ctx = context(device_);
  const ContextScope on_device(ctx);
  if (tunables.is_none() && !size_.empty() && use_tuned) {
    TunedChoice t = tuned_choice(s, size_, ctx.info());
    choice_ = t.choice;
    tuned_ = t.record;
  } else if (tunables.is_none()) {
    choice_ = s.choose();
  }
  // A plan the keywords' tunables refuse is their mistake (UsageError).
  Variant unit = plan_with_overrides(s, choice_, overrides, fmt::format("{}", fmt::join(overrides, " ")));
  py::gil_scoped_release unlocked;  // NVRTC on a cache miss
  kernel_ = make_kernel(s, std::move(unit), ctx);
  if (interior_) kernel_->prepare(*interior_);
}

py::object PyKernel::call(const py::kwargs& kw) {
  py::dict fields, params;
  py::object stream = py::none(), ghost = py::none(), groups = py::none(), host = py::bool_(false);
  for (const auto& [k, v] : kw) {
    const std::string key = py::str(k);
    if (spec_->find_field(key)) fields[k] = v;
    else if (key == "stream") stream = py::reinterpret_borrow<py::object>(v);
    else if (key == "ghost") ghost = py::reinterpret_borrow<py::object>(v);
    else if (key == "host") host = py::reinterpret_borrow<py::object>(v);
    else if (key == "groups") groups = py::reinterpret_borrow<py::object>(v);
    else params[k] = v;
  }
  return launch(fields, params, stream, ghost, host, groups);
}

py::object PyKernel::launch(const py::dict& arrays, const py::dict& params, const py::object& stream, const py::object& ghost, const py::object& host_arg,
                            const py::object& groups) {
  const Spec& s = *spec_;
  const bool host = bool_arg(host_arg, "host");
  const ContextScope on_device(context(device_));
  BindRequest rq;
  rq.interior = interior_;
  rq.pairs = pairs_;
  rq.device = device_;
  rq.stream = stream;
  rq.ghost = ghost;
  const BoundArrays b = bind_arrays(s, rq, arrays);
  const ParamValues values = param_values(s, params);
  const auto cu_stream = reinterpret_cast<CUstream>(b.stream);
  if (!groups.is_none()) {
    const auto* pk = dynamic_cast<const PairwiseKernel*>(kernel_.get());
    if (!pk || !s.pairwise().grouped) throw BindingError(fmt::format("spec '{}': groups= is for pairwise specs with \"pairs\": \"grouped\"", s.name));
    if (!py::isinstance<PairGroups>(groups)) throw BindingError(fmt::format("spec '{}': groups= takes a gpen.PairGroups", s.name));
    pk->launch(b.fields, &groups.cast<const PairGroups&>(), values, cu_stream);
  } else {
    if (std::holds_alternative<PairwiseDecl>(s.decl) && s.pairwise().grouped) throw BindingError(fmt::format("spec '{}': a grouped pairwise spec needs groups= (a gpen.PairGroups)", s.name));
    kernel_->launch(b.fields, values, cu_stream);
  }
  if (host) return to_host(b.outputs, cu_stream);
  if (b.output_objects.size() == 1) return b.output_objects[0];
  return py::tuple(b.output_objects);
}

py::object PyKernel::to_host(const std::vector<const DeviceBuffer*>& outputs, CUstream stream) const {
  const Spec& s = *spec_;
  const py::object numpy = py::module_::import("numpy");
  std::vector<py::array> copies;
  for (const DeviceBuffer* b : outputs) {
    if (!b->packed()) throw BindingError(fmt::format("spec '{}': host=True copies packed outputs only, not pitched ones", s.name));
    py::list shape;  // NumPy's order
    const auto padded = b->padded();
    for (int ax = s.dims - 1; ax >= 0; --ax) shape.append(padded[ax]);
    copies.push_back(numpy.attr("empty")(py::tuple(shape), py::arg("dtype") = to_string(b->dtype())));
    b->copy_to_host_async(copies.back().mutable_data(), stream);
  }
  {
    py::gil_scoped_release unlocked;  // other Python threads run while the GPU works
    GPEN_CU(cuStreamSynchronize(stream), "waiting for the results to reach the host");
  }
  py::list out;
  for (std::size_t i = 0; i < copies.size(); ++i)
    out.append(outputs[i]->elements() == 1 ? py::object(copies[i].attr("item")()) : py::object(copies[i]));
  if (out.size() == 1) return out[0];
  return py::tuple(out);
}

py::dict PyKernel::launch_copies(const py::dict& host_arrays, const py::dict& params, const py::object& groups) {
  const Spec& s = *spec_;
  const ContextScope on_device(context(device_));
  const py::object numpy = py::module_::import("numpy");
  auto interior_of_host = [&](const py::array_t<double>& a, int ghost) {
    std::array<long long, 3> n{1, 1, 1};
    for (int ax = 0; ax < s.dims && ax < a.ndim(); ++ax) n[ax] = a.shape(a.ndim() - 1 - ax) - 2LL * ghost;
    return n;
  };
  std::optional<std::array<long long, 3>> interior;
  for (const FieldDecl& f : s.fields)
    if (!interior && f.role == FieldDecl::Role::Input && f.set != FieldDecl::Set::Sources && host_arrays.contains(f.name.c_str()))
      interior = interior_of_host(numpy.attr("ascontiguousarray")(host_arrays[f.name.c_str()], py::arg("dtype") = "float64"), f.ghost);
  if (!interior) throw BindingError(fmt::format("spec '{}': no input given", s.name));
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  FieldBindings fields;
  for (const FieldDecl& f : s.fields) {
    std::vector<double> values;
    std::array<long long, 3> n = field_shape(f, *interior);
    if (host_arrays.contains(f.name.c_str())) {
      const py::array_t<double> a = numpy.attr("ascontiguousarray")(host_arrays[f.name.c_str()], py::arg("dtype") = "float64");
      n = interior_of_host(a, f.ghost);
      values.assign(a.data(), a.data() + a.size());
    }
    buffers.push_back(std::make_unique<DeviceBuffer>(field_dtype(s, f), s.dims, n, f.ghost));
    if (values.empty()) values.assign(buffers.back()->elements(), std::nan(""));
    buffers.back()->upload(values);
    fields[f.name] = buffers.back().get();
  }
  const ParamValues values = param_values(s, params);
  if (!groups.is_none()) dynamic_cast<const PairwiseKernel&>(*kernel_).launch(fields, &groups.cast<const PairGroups&>(), values, nullptr);
  else kernel_->launch(fields, values, nullptr);
  GPEN_CU(cuCtxSynchronize(), "waiting for the launch");
  py::dict out;
  for (std::size_t i = 0; i < s.fields.size(); ++i) {
    const FieldDecl& f = s.fields[i];
    if (f.role != FieldDecl::Role::Output) continue;
    const DeviceBuffer& b = *buffers[i];
    std::vector<py::ssize_t> shape;
    const auto padded = b.padded();
    for (int ax = s.dims - 1; ax >= 0; --ax) shape.push_back(padded[ax]);
    py::array_t<double> a(shape);
    const std::vector<double> got = b.download();
    std::copy(got.begin(), got.end(), a.mutable_data());
    out[f.name.c_str()] = a;
  }
  return out;
}

std::string PyKernel::variant() const { return describe(spec_->tunables, choice_); }

void bind_kernel(py::module_& m) {
  py::class_<PairGroups>(m, "PairGroups", "A grouped pairwise spec's interaction lists, checked and uploaded once")
      .def(py::init([](std::vector<int> target_groups, std::vector<int> range_offsets, std::vector<int> source_ranges, long long targets, long long sources,
                       int device) {
             const ContextScope on_device(context(device));
             return std::make_unique<PairGroups>(PairGroupLists{std::move(target_groups), std::move(range_offsets), std::move(source_ranges)}, targets,
                                                 sources);
           }),
           py::arg("target_groups"), py::arg("range_offsets"), py::arg("source_ranges"), py::arg("targets"), py::arg("sources"), py::arg("device") = 0,
           "Group g's targets are [target_groups[g], target_groups[g+1]); its sources the ranges [source_ranges[2r], source_ranges[2r+1]) for r in "
           "[range_offsets[g], range_offsets[g+1])")
      .def_property_readonly("groups", [](const PairGroups& g) { return g.lists().groups(); });

  py::class_<PyKernel>(m, "Kernel", "A spec's kernel, compiled (through the cache) and loaded on a GPU")
      .def(py::init<const py::object&, const py::object&, const py::object&, const py::object&, const py::object&>(), py::arg("spec"), py::arg("size") = py::none(),
           py::arg("tunables") = py::none(), py::arg("device") = 0, py::arg("tuned") = true,
           "spec: a gpen.Spec, path or dict. size: the interior in NumPy's order (a tuple), one number (a cube) or the CLI's \"NXxNYxNZ\"; with a "
           "size the variant gpen tune stored for it is taken (unless tuned=False). tunables: a dict of tunables to set (the defaults otherwise).")
      .def("__call__", &PyKernel::call,
           "k(u=a, lap=b, inv_h2=1.0): arrays by field name, params by name; stream= (default: the arrays' library's current stream), ghost= "
           "(an int, or a dict by field: the arrays' ghost width when it is wider than the spec's), host=True (the outputs copied back: a float "
           "for one value), groups= (a gpen.PairGroups). Outputs not given are made (CuPy or PyTorch, zeroed). Returns the outputs.")
      .def("launch", &PyKernel::launch, py::arg("fields"), py::arg("params") = py::dict(), py::arg("stream") = py::none(), py::arg("ghost") = py::none(),
           py::arg("host") = false, py::arg("groups") = py::none(), "As calling it, with the fields and params in dicts (for names that are keywords here)")
      .def("_launch_copies", &PyKernel::launch_copies, py::arg("arrays"), py::arg("params") = py::dict(), py::arg("groups") = py::none(),
           "For tests: the C++ path alone. The NumPy arrays (padded, NumPy's order) uploaded into gpen's own buffers (outputs not given: NaN), "
           "launched, waited for; returns the outputs as float64 NumPy arrays")
      .def_property_readonly("spec", [](const PyKernel& k) { return PySpec{k.spec()}; })
      .def_property_readonly("variant", &PyKernel::variant)
      .def_property_readonly("tunables", [](const PyKernel& k) { return choice_dict(k.choice()); })
      .def_property_readonly("tuned", [](const PyKernel& k) -> py::object {
        if (!k.tuned()) return py::none();
        const TuningRecord& r = *k.tuned();
        py::dict d;
        d["size"] = r.size;
        d["date"] = r.date;
        d["ms"] = r.ms;
        d["teff_gbs"] = r.teff_gbs;
        d["evaluations"] = r.evaluations;
        return d;
      }, "Where the variant came from: the tuning database's record, or None (the spec's defaults or the tunables given)")
      .def_property_readonly("registers", [](const PyKernel& k) { return k.kernel().compiled().kernel.usage.registers; })
      .def_property_readonly("device", &PyKernel::device)
      .def("__repr__", [](const PyKernel& k) { return fmt::format("<gpen.Kernel '{}' ({})>", k.spec()->name, k.variant()); });
}

}  // namespace gpen::py_api
