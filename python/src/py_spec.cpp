#include "py_spec.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "bind_arrays.hpp"
#include "py_args.hpp"
#include "spec_dict.hpp"
#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/problem.hpp"
#include "gpen/families/common/runtime_family.hpp"
#include "gpen/families/common/spec_program.hpp"
#include "gpen/families/pairwise/pairwise_run.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/json_source.hpp"
#include "gpen/generator/overrides.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/runtime/arch.hpp"
#include "gpen/runtime/driver.hpp"
#include "gpen/runtime/kernel_cache.hpp"

namespace gpen::py_api {

std::optional<Dtype> dtype_arg(const py::object& dtype) {
  if (dtype.is_none()) return std::nullopt;
  const std::string d = py::str(dtype);
  if (auto t = parse_dtype(d)) return t;
  throw UsageError(fmt::format("dtype={}: expected \"float32\" or \"float64\"", d));
}

py::object tunable_value(const TunableValue& v) {
  if (const auto* i = std::get_if<long long>(&v)) return py::int_(*i);
  return py::str(std::get<std::string>(v));
}

py::dict choice_dict(const TunableChoice& c) {
  py::dict d;
  for (const auto& [name, v] : c) d[py::str(name)] = tunable_value(v);
  return d;
}

namespace {

py::list fields_list(const Spec& s) {
  py::list out;
  for (const FieldDecl& f : s.fields) {
    py::dict d;
    d["name"] = f.name;
    d["role"] = f.role == FieldDecl::Role::Input ? "input" : "output";
    d["ghost"] = f.ghost;
    d["dtype"] = to_string(field_dtype(s, f));
    if (f.set != FieldDecl::Set::Both) d["set"] = f.set == FieldDecl::Set::Targets ? "targets" : "sources";
    if (f.reduced_axes) {
      py::list axes;  // NumPy's axes: x is the last
      for (int ax = s.dims - 1; ax >= 0; --ax)
        if (f.reduced_axes & (1u << ax)) axes.append(s.dims - 1 - ax);
      d["reduced_axes"] = axes;
    }
    out.append(d);
  }
  return out;
}

py::dict tunables_dict(const Spec& s) {
  const auto table = family_of(s).tunables();
  py::dict out;
  for (const TunableDecl& t : s.tunables) {
    py::list values;
    for (const auto& v : t.values) values.append(tunable_value(v));
    py::dict d;
    d["values"] = values;
    d["default"] = tunable_value(t.default_value);
    d["strategy"] = t.only_with_strategy;
    for (const TunableInfo& i : table)
      if (i.name == t.name) d["doc"] = i.doc;
    out[py::str(t.name)] = d;
  }
  return out;
}

// generate(), a plan error that the keywords brought being theirs (plan_with_overrides).
Variant generate_with(const Spec& s, const std::vector<std::string>& overrides) {
  Variant g = plan_with_overrides(s, choose(s, overrides), overrides, fmt::format("{}", fmt::join(overrides, " ")));
  print_unit(s, g);
  return g;
}

}  // namespace

PySpec to_spec(py::handle obj, const py::object& dtype) {
  if (py::isinstance<PySpec>(obj)) {
    const PySpec& given = obj.cast<const PySpec&>();
    if (dtype.is_none()) return given;
    return {std::make_shared<const Spec>(parse_spec(given.spec->source, dtype_arg(dtype)))};
  }
  const auto d = dtype_arg(dtype);
  if (py::isinstance<py::dict>(obj)) {
    return {std::make_shared<const Spec>(parse_spec(std::make_shared<JsonSource>(JsonSource::from_string(spec_dict_json(obj), "<dict>")), d))};
  }
  if (!py::isinstance<py::str>(obj) && !py::hasattr(obj, "__fspath__"))
    throw UsageError(fmt::format("load_spec: expected a path or a dict, not a {}", std::string(py::str(py::type::handle_of(obj).attr("__name__")))));
  return {std::make_shared<const Spec>(load_spec(path_arg(obj, "spec"), d))};
}

std::vector<std::string> tunable_overrides(py::handle tunables, const std::string& what) {
  if (!py::isinstance<py::dict>(tunables))
    throw UsageError(fmt::format("{}={}: expected a dict {{name: value}}, e.g. {{\"strategy\": \"direct\", \"block_x\": 64}}", what, repr_of(tunables)));
  std::vector<std::string> out;
  for (const auto& [k, v] : py::reinterpret_borrow<py::dict>(tunables)) {
    if (!py::isinstance<py::str>(k)) throw UsageError(fmt::format("{}: the key {} is no tunable's name (a str)", what, repr_of(k)));
    const std::string name = k.cast<std::string>();
    // A tunable's values are ints and names: 64.0 or True is neither.
    if (!py::isinstance<py::str>(v) && !is_integer(v))
      throw UsageError(fmt::format("{}={}: expected an int or a str", what.empty() ? name : fmt::format("{}['{}']", what, name), repr_of(v)));
    out.push_back(fmt::format("{}={}", name, py::isinstance<py::str>(v) ? v.cast<std::string>() : int_digits(v)));
  }
  return out;
}

std::string size_text(const py::object& size, bool numpy_order) {
  const auto refuse = [&] {
    return UsageError(fmt::format("size={}: expected an int, a tuple of ints or a string like \"256x128x64\"", repr_of(size)));
  };
  if (py::isinstance<py::str>(size)) return size.cast<std::string>();
  if (is_integer(size)) return int_digits(size);
  if (!py::isinstance<py::tuple>(size) && !py::isinstance<py::list>(size)) throw refuse();
  std::vector<std::string> v;
  for (const py::handle n : size) {
    if (!is_integer(n)) throw refuse();
    v.push_back(int_digits(n));
  }
  if (numpy_order) std::reverse(v.begin(), v.end());
  return fmt::format("{}", fmt::join(v, "x"));
}

UsageError size_error(const UsageError& e, const py::object& size) {
  std::string what = e.what();
  if (what.rfind("--size ", 0) == 0) {
    const std::size_t colon = what.find(": ");
    what = "size=" + std::string(py::repr(size)) + (colon == std::string::npos ? "" : what.substr(colon));
  }
  return UsageError(what);
}

std::string checked_size(const Spec& spec, const py::object& size) {
  const bool particles = std::holds_alternative<PairwiseDecl>(spec.decl) && !spec.pairwise().grid;
  try {
    const std::string text = size_text(size, !particles);
    check_problem_size(spec, text);
    return text;
  } catch (const UsageError& e) {
    throw size_error(e, size);
  }
}

std::array<long long, 3> interior_size(const Spec& spec, const py::object& size) {
  const std::string text = checked_size(spec, size);
  try {
    return parse_size(text, spec.dims);
  } catch (const UsageError& e) {
    throw size_error(e, size);
  }
}

TunableChoice choose(const Spec& spec, const std::vector<std::string>& overrides, bool whole) {
  try {
    return spec.choose(overrides, whole);
  } catch (const UsageError& e) {
    std::string what = e.what();
    for (std::size_t at; (at = what.find("--set ")) != std::string::npos;) what.erase(at, 6);
    throw UsageError(what);
  }
}

const Context& context(int device) {
  // Kept to the process's end: the primary context outlives every kernel,
  // and is not released while the interpreter tears modules down.
  static std::map<int, Context*> made;
  auto it = made.find(device);
  if (it == made.end()) {
    std::string why;
    if (!driver_available(&why)) throw NoDeviceError("no GPU: " + why);
    int count = 0;
    GPEN_CU(cuDeviceGetCount(&count), "counting the GPUs");
    if (device < 0 || device >= count)
      throw UsageError(count == 1 ? fmt::format("device={}: this machine has 1 GPU, device 0", device)
                                  : fmt::format("device={}: this machine has {} GPUs, devices 0 to {}", device, count, count - 1));
    CUcontext before = nullptr;
    driver().cuCtxGetCurrent(&before);
    it = made.emplace(device, new Context(device)).first;  // makes it current
    if (before) driver().cuCtxSetCurrent(before);
  }
  return *it->second;
}

ContextScope::ContextScope(const Context& ctx) {
  driver().cuCtxGetCurrent(&before_);
  ctx.make_current();
  driver().cuCtxGetCurrent(&mine_);
}

ContextScope::~ContextScope() {
  if (before_ && before_ != mine_) driver().cuCtxSetCurrent(before_);
}

void bind_spec(py::module_& m) {
  py::class_<PySpec>(m, "Spec", "A kernel spec, read and checked (gpen.load_spec)")
      .def_property_readonly("name", [](const PySpec& s) { return s.spec->name; })
      .def_property_readonly("kind", [](const PySpec& s) { return s.spec->kind; })
      .def_property_readonly("dtype", [](const PySpec& s) { return std::string(to_string(s.spec->dtype)); })
      .def_property_readonly("dims", [](const PySpec& s) { return s.spec->dims; })
      .def_property_readonly("hash", [](const PySpec& s) { return s.spec->hash; })
      .def_property_readonly("description", [](const PySpec& s) { return s.spec->description; })
      .def_property_readonly("warnings", [](const PySpec& s) { return s.spec->warnings; })
      .def_property_readonly("fields", [](const PySpec& s) { return fields_list(*s.spec); },
                             "Each field: name, role (input/output), ghost, dtype; a reduction's results their reduced_axes (NumPy's)")
      .def_property_readonly("params", [](const PySpec& s) {
        py::dict d;
        for (const ParamDecl& p : s.spec->params) d[py::str(p.name)] = p.value;
        return d;
      }, "Each param's default value")
      .def_property_readonly("tunables", [](const PySpec& s) { return tunables_dict(*s.spec); },
                             "Each tunable: allowed values, default, strategy it belongs to, what it changes")
      .def("check", [](const PySpec& s) {
        generate(*s.spec, s.spec->choose());
        return family_of(*s.spec).describe(*s.spec);
      }, "Checks that the default variant generates (as gpen check does); returns the summary line")
      .def("generate", [](const PySpec& s, const py::kwargs& tunables) { return generate_with(*s.spec, tunable_overrides(tunables, "")).source; },
           "The CUDA unit of the defaults with these tunables set, e.g. spec.generate(strategy=\"direct\", block_x=64)")
      .def("choose", [](const PySpec& s, const py::kwargs& tunables) { return choice_dict(choose(*s.spec, tunable_overrides(tunables, ""))); },
           "Every tunable's value: the defaults with these set")
      .def("compile", [](const PySpec& s, const py::object& arch, const py::kwargs& tunables) {
        const Variant g = generate_with(*s.spec, tunable_overrides(tunables, ""));
        std::string a;
        std::string why;
        if (!arch.is_none()) a = py::str(arch);
        else a = driver_available(&why) ? context(0).info().arch() : "sm_90";  // the arch alone: no launch
        if (const std::string bad = arch_problem(a); !bad.empty()) throw UsageError(fmt::format("arch={}: {}", a, bad));
        KernelCache::Result r;
        {
          py::gil_scoped_release unlocked;
          r = process_cache().get(spec_program(*s.spec, g), a);
        }
        const auto& u = r.kernel.usage;
        py::dict d;
        d["unit"] = g.name;
        d["kernel"] = g.kernel_name;
        d["arch"] = a;
        d["tunables"] = choice_dict(g.choice);
        d["variant"] = describe(s.spec->tunables, g.choice);
        d["cache"] = to_string(r.source);
        d["ms"] = r.ms;
        d["key"] = r.key;
        d["registers"] = u.registers;
        d["spill_stores"] = u.spill_stores;
        d["spill_loads"] = u.spill_loads;
        d["shared_bytes"] = u.shared_bytes;
        d["stack_bytes"] = u.stack_bytes;
        d["cubin_bytes"] = r.kernel.cubin.size();
        return d;
      }, py::arg("arch") = py::none(),
           "Generates and compiles with NVRTC through the kernel cache (no GPU needed: arch defaults to the GPU's, else sm_90); returns registers, spills, cache")
      .def("bind", [](const PySpec& s, const py::object& size, const py::object& ghost, const py::object& device_obj, const py::kwargs& kw) {
        const Spec& spec = *s.spec;
        const int device = device_arg(device_obj);
        // Arrays by field, params by name, as a launch takes them.
        py::dict arrays, params;
        for (const auto& [k, v] : kw) {
          const std::string name = k.cast<std::string>();
          (!spec.find_field(name) && is_param(spec, name) ? params : arrays)[k] = v;  // the unknown among the arrays: "no field named"
        }
        param_values(spec, params);
        BindRequest rq;
        if (!size.is_none()) {
          if (std::holds_alternative<PairwiseDecl>(spec.decl)) rq.pairs = parse_pair_size(spec, checked_size(spec, size));
          else rq.interior = interior_size(spec, size);
        }
        rq.ghost = ghost;
        rq.device = device;
        rq.stream = py::int_(0);
        rq.allocate = false;
        rq.order_producers = false;
        rq.check_devices = false;  // after the launch's own checks, which need no driver
        const BoundArrays b = bind_arrays(spec, rq, arrays);
        check_bindings(spec, b.fields, {}, runtime_family_of(spec).pitches());
        check_devices(b, device);
        py::list out;
        for (const FieldDecl& f : spec.fields) {
          const auto it = b.fields.find(f.name);
          if (it == b.fields.end()) continue;
          const DeviceBuffer& v = *it->second;
          py::list interior;
          for (int ax = spec.dims - 1; ax >= 0; --ax) interior.append(v.shape()[ax]);
          py::dict d;
          d["field"] = f.name;
          d["dtype"] = to_string(v.dtype());
          d["interior"] = py::tuple(interior);
          d["ghost"] = v.ghost();
          d["pitch"] = py::make_tuple(v.pitch().row, v.pitch().plane);
          d["packed"] = v.packed();
          d["offset"] = static_cast<long long>((v.get() - b.bases[static_cast<std::size_t>(&v - b.views.data())]) / size_of(v.dtype()));
          out.append(d);
        }
        return out;
      }, py::arg("size") = py::none(), py::arg("ghost") = py::none(), py::arg("device") = 0,
           "How a launch would see these arrays (by field name), checked as a launch checks them (params by name too) but not launched: each field's interior (NumPy's "
           "order), ghost width, pitch, whether it is packed, and where the view starts in the array (elements). Raises BindingError as the launch would.")
      .def("__repr__", [](const PySpec& s) { return fmt::format("<gpen.Spec '{}' ({}, {}-D {})>", s.spec->name, s.spec->kind, s.spec->dims, to_string(s.spec->dtype)); });

  m.def("load_spec", [](const py::object& spec, const py::object& dtype) { return to_spec(spec, dtype); }, py::arg("spec"), py::arg("dtype") = py::none(),
        "Reads a spec from a file path or from a dict of its JSON; dtype overrides the spec's. Raises gpen.SpecError (with pointer, line, column, expected)");
}

}  // namespace gpen::py_api
