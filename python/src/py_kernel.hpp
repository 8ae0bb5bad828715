// gpen.Kernel and gpen.PairGroups.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // every file of the module: one caster of std::vector for all

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/pairwise/pairwise_kernel.hpp"
#include "gpen/measure/tune/tuning_db.hpp"

namespace gpen::py_api {

namespace py = pybind11;

class PyKernel {
 public:
  // spec: a gpen.Spec, path or dict; size: None, a NumPy-order tuple, a
  // number or the CLI's "NXxNYxNZ"; tunables: None or a dict of them.
  PyKernel(const py::object& spec, const py::object& size, const py::object& tunables, const py::object& device, const py::object& use_tuned);

  // k(u=a, lap=b, inv_h2=1.0, stream=..., ghost=..., host=..., groups=...)
  py::object call(const py::kwargs& kw);
  py::object launch(const py::dict& arrays, const py::dict& params, const py::object& stream, const py::object& ghost, const py::object& host,
                    const py::object& groups);

  // The C++ path alone, on gpen's own buffers made from host arrays (tests).
  py::dict launch_copies(const py::dict& host_arrays, const py::dict& params, const py::object& groups);

  const std::shared_ptr<const Spec>& spec() const { return spec_; }
  const TunableChoice& choice() const { return choice_; }
  const std::optional<TuningRecord>& tuned() const { return tuned_; }
  const Kernel& kernel() const { return *kernel_; }
  int device() const { return device_; }
  std::string variant() const;

 private:
  // The outputs copied to NumPy arrays once `stream` is done (a float for one value).
  py::object to_host(const std::vector<const DeviceBuffer*>& outputs, CUstream stream) const;

  std::shared_ptr<const Spec> spec_;
  int device_;
  std::string size_;
  std::optional<std::array<long long, 3>> interior_;
  std::optional<PairSizes> pairs_;  // a pairwise spec's size
  TunableChoice choice_;
  std::optional<TuningRecord> tuned_;
  std::unique_ptr<Kernel> kernel_;
};

void bind_kernel(py::module_& m);

}  // namespace gpen::py_api
