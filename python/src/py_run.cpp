// gpen.tune and gpen.simulate: the CLI's long commands from Python, with
// its progress line on stderr and its clean stop on Ctrl-C (then
// KeyboardInterrupt, once the work stopped and stored what it had).
#include "py_run.hpp"

#include <chrono>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "../../cli/interrupt.hpp"
#include "../../cli/progress.hpp"
#include "../../cli/run_limits.hpp"
#include "../../cli/tune_progress.hpp"
#include "py_args.hpp"
#include "py_spec.hpp"
#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/problem.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/generator/tunables.hpp"
#include "gpen/measure/tune/tune.hpp"
#include "gpen/simulate/cpu_backend.hpp"
#include "gpen/simulate/gpu_backend.hpp"
#include "gpen/simulate/simulation.hpp"

namespace gpen::py_api {

namespace {

py::dict variant_dict(const TunedVariant& v, const RateScale& scale) {
  py::dict d;
  d["variant"] = v.variant;
  d["tunables"] = choice_dict(v.choice);
  d["ms"] = v.ms ? py::object(py::float_(*v.ms)) : py::object(py::none());
  d[py::str(scale.rate)] = v.rate;
  d["percent_of_bound"] = scale.percent_of_unit(v.rate);
  d["registers"] = v.registers;
  d["refused"] = v.refused;
  d["reason"] = v.reason;
  return d;
}

const char* stop_name(SearchStop s) {
  switch (s) {
    case SearchStop::Time: return "time";
    case SearchStop::Interrupted: return "interrupted";
    case SearchStop::Budget: return "budget";
    case SearchStop::Done: break;
  }
  return "done";
}

// KeyboardInterrupt, as Python would have raised at the Ctrl-C.
[[noreturn]] void keyboard_interrupt() {
  PyErr_SetNone(PyExc_KeyboardInterrupt);
  throw py::error_already_set();
}

SearchStrategy strategy_arg(const py::object& strategy) {
  try {
    return parse_search_strategy(str_arg(strategy, "strategy"));
  } catch (const std::invalid_argument&) {
    throw UsageError(fmt::format("strategy={}: expected \"local\", \"exhaustive\" or \"random\"", repr_of(strategy)));
  }
}

// steps= and until= into `ro` (-1 there: not given), by gpen simulate's
// rules for --steps and --until.
void set_run_length(sim::RunOptions& ro, const py::object& steps, const py::object& until) {
  if (steps.is_none() && until.is_none()) throw UsageError("gpen.simulate: give steps=N or until=T (how long to run)");
  if (!steps.is_none()) ro.steps = int_arg(steps, "steps", 0, cli::kMaxSteps);
  if (!until.is_none()) ro.until = number_arg(until, "until", cli::valid_until, cli::kUntilExpected);
}

}  // namespace

py::dict tune(const py::object& spec_arg, const py::object& size_obj, const py::object& time, const py::object& strategy, const py::object& budget,
              const py::object& fixed, const py::object& progress_arg, const py::object& save, const py::object& device_obj) {
  const auto started = std::chrono::steady_clock::now();
  const PySpec ps = to_spec(spec_arg);
  const Spec& s = *ps.spec;
  const std::string size = checked_size(s, size_obj);
  TuneOptions to;
  to.started = started;
  to.strategy = strategy_arg(strategy);
  to.budget = static_cast<std::size_t>(int_arg(budget, "budget", 0, cli::kMaxBudget));
  const double time_s = number_arg(time, "time", cli::valid_tune_seconds, cli::kTuneSecondsExpected);
  to.time_limit_s = time_s;
  to.save = bool_arg(save, "save");
  const bool progress = bool_arg(progress_arg, "progress");
  const int device = device_arg(device_obj);
  to.abandon_compiles = false;  // the interpreter goes on: wait for compiles in flight
  if (!fixed.is_none()) to.fixed = tunable_overrides(fixed, "fixed");
  choose(s, to.fixed);  // with the defaults, the reference: it keeps the constraints too
  const Context& ctx = context(device);
  const ContextScope on_device(ctx);
  TuneResult r;
  bool interrupted = false;
  {
    py::gil_scoped_release unlocked;
    cli::InterruptFlag interrupt("the current measurement");
    to.interrupt = &interrupt.flag();
    std::optional<cli::ProgressLine> bar;
    if (progress) bar.emplace();
    cli::TuneProgressText text(time_s);
    if (bar) {
      to.on_phase = [&](const std::string& what) { bar->note("  " + what); };
      to.on_variant = [&](const TunedVariant& v, const TuneProgress& p) { bar->update(text(v, p)); };
      bar->note(fmt::format("tuning {} ({}) at {} on {}: {} search, {}", s.name, to_string(s.dtype), size, ctx.info().name, to_string(to.strategy),
                            time_s > 0 ? fmt::format("time {} s (setup included)", time_s) : std::string("no time limit")));
    }
    const auto problem = make_problem(ctx, s, size);
    r = gpen::tune(ctx, *problem, to);
    if (bar) bar->finish();
    interrupted = interrupt.raised();
  }
  if (interrupted) keyboard_interrupt();
  py::dict d;
  d["spec"] = s.name;
  d["size"] = size;
  d["gpu"] = ctx.info().name;
  d["stop"] = stop_name(r.stop);
  d["bound"] = r.scale.bound_short();
  d["default"] = variant_dict(r.reference, r.scale);
  d["best"] = r.best ? py::object(variant_dict(r.evaluated[*r.best], r.scale)) : py::object(py::none());
  py::list all;
  for (const auto& v : r.evaluated) all.append(variant_dict(v, r.scale));
  d["evaluated"] = all;
  d["space_valid"] = r.space_valid;
  d["setup_s"] = r.setup_s;
  d["total_s"] = r.total_s;
  d["saved"] = r.saved ? py::object(py::str(r.key.str())) : py::object(py::none());
  d["save_error"] = r.save_error.empty() ? py::object(py::none()) : py::object(py::str(r.save_error));
  return d;
}

py::dict simulate(const py::object& program_arg, const py::object& steps, const py::object& until, const py::object& size, const py::object& dtype,
                  const py::object& out, const py::object& restart, const py::object& device_obj, const py::object& progress_arg) {
  const std::string program = path_arg(program_arg, "program");
  sim::RunOptions ro;
  set_run_length(ro, steps, until);
  if (!out.is_none()) ro.out_dir = path_arg(out, "out");
  const std::string restart_dir = restart.is_none() ? std::string() : path_arg(restart, "restart");
  const std::optional<Dtype> dt = dtype_arg(dtype);
  const std::string device = py::isinstance<py::str>(device_obj) ? device_obj.cast<std::string>() : std::string();
  if (device != "gpu" && device != "cpu") throw UsageError(fmt::format("device={}: expected \"gpu\" or \"cpu\"", repr_of(device_obj)));
  const bool progress = bool_arg(progress_arg, "progress");
  sim::SizeOverride size_override;
  if (!size.is_none()) {
    const std::string text = size_text(size, true);
    size_override = [text](int dims) { return parse_size(text, dims); };
  }
  const sim::Program p = [&] {
    try {
      return sim::load_program(program, size_override, dt);
    } catch (const UsageError& e) {
      throw size_error(e, size);
    }
  }();
  std::optional<ContextScope> on_device;
  std::unique_ptr<sim::Backend> backend;
  if (device == "cpu") {
    backend = std::make_unique<sim::CpuBackend>(p);
  } else {
    on_device.emplace(context(0));
    backend = std::make_unique<sim::GpuBackend>(p, context(0));
  }
  sim::Simulation s(p, std::move(backend));
  if (restart.is_none()) s.initialize();
  else s.restart(restart_dir);
  sim::RunResult r;
  std::vector<std::vector<double>> fields;
  double run_s = 0;
  {
    py::gil_scoped_release unlocked;
    cli::InterruptFlag interrupt(cli::simulation_interrupt_note(device == "cpu"));
    std::optional<cli::ProgressLine> bar;
    if (progress) bar.emplace();
    ro.stop_requested = [&] { return interrupt.raised(); };
    const auto started = std::chrono::steady_clock::now();
    r = s.run(ro, [&](const sim::StepReport& rep) {
      if (bar) bar->update(fmt::format("step {}  t {:.6g}  dt {:.3g}  {:.3g} ms/step", rep.step, rep.t, rep.dt, rep.ms_per_step));
    });
    if (bar) bar->finish();
    run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    fields = s.backend().fields();
  }
  if (r.stop == sim::RunResult::Stop::Requested) keyboard_interrupt();
  py::dict d;
  d["program"] = p.name;
  d["device"] = s.backend().name();
  d["step"] = s.step();
  d["time"] = s.time();
  d["steps"] = r.steps;
  d["seconds"] = run_s;
  d["stop"] = r.stop == sim::RunResult::Stop::Steps ? "steps" : r.stop == sim::RunResult::Stop::Time ? "time" : "non_finite";
  d["message"] = r.message;
  py::dict diagnostics;
  for (std::size_t i = 0; i < r.last_diagnostics.size() && i < r.diagnostic_names.size(); ++i) diagnostics[py::str(r.diagnostic_names[i])] = r.last_diagnostics[i];
  d["diagnostics"] = diagnostics;
  d["last_snapshot"] = r.last_snapshot.empty() ? py::object(py::none()) : py::object(py::str(r.last_snapshot));
  py::dict arrays;  // interiors in NumPy's order (z, y, x), float64
  std::vector<py::ssize_t> shape;
  for (int ax = p.dims - 1; ax >= 0; --ax) shape.push_back(p.size[ax]);
  for (std::size_t i = 0; i < fields.size() && i < p.fields.size(); ++i) {
    py::array_t<double> a(shape);
    std::copy(fields[i].begin(), fields[i].end(), a.mutable_data());
    arrays[py::str(p.fields[i].name)] = a;
  }
  d["fields"] = arrays;
  return d;
}

void bind_run(py::module_& m) {
  m.def("tune", &tune, py::arg("spec"), py::arg("size"), py::arg("time") = 60.0, py::arg("strategy") = "local", py::arg("budget") = 0,
        py::arg("fixed") = py::none(), py::arg("progress") = true, py::arg("save") = true, py::arg("device") = 0,
        "Searches the spec's tunables on the GPU at this size for at most `time` seconds (setup included; 0 to 1e7, 0: no limit), verifying every "
        "variant, and stores "
        "the best in the tuning database: gpen.Kernel(spec, size=size) takes it at once. fixed: a dict of tunables not searched. Shows "
        "gpen tune's progress line on stderr; Ctrl-C stops the search cleanly (the best so far stored), then raises KeyboardInterrupt.");
  m.def("simulate", &simulate, py::arg("program"), py::arg("steps") = py::none(), py::arg("until") = py::none(), py::arg("size") = py::none(),
        py::arg("dtype") = py::none(), py::arg("out") = py::none(), py::arg("restart") = py::none(), py::arg("device") = "gpu", py::arg("progress") = true,
        "Runs a program (kind \"program\") as gpen simulate does: steps=N (0 to 2^40) or until=T (finite, >= 0); out=FOLDER for diagnostics.csv and snapshots (none "
        "by default); device=\"cpu\" runs the CPU reference. Returns the step, time, stop, last diagnostics and the fields' interiors (NumPy, "
        "float64, in (z, y, x) order).");
}

}  // namespace gpen::py_api
