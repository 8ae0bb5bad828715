// What runs a program's steps: the CPU reference (cpu_backend.hpp) or the
// GPU. The Simulation (simulation.hpp) drives either the same way, so that
// the time loop, its diagnostics, snapshots and restarts are one code.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpen::sim {

// Where a field first holds a NaN or an infinity.
struct NonFinite {
  int field = 0;
  std::array<long long, 3> at{0, 0, 0};  // interior coordinates
  double value = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Field f's interior (x fastest, the program's size), as a snapshot
  // holds it, one field at a time (a large grid's fields need not all be
  // on the host at once): set every field, then fill_boundaries().
  virtual void set_field(std::size_t f, const std::vector<double>& interior) = 0;
  virtual std::vector<double> field(std::size_t f) const = 0;
  virtual std::size_t field_count() const = 0;
  // Every field's interior, then the boundary conditions fill the ghost zones.
  void set_fields(const std::vector<std::vector<double>>& interiors) {
    if (interiors.size() != field_count())
      throw std::invalid_argument("Backend::set_fields: " + std::to_string(interiors.size()) + " fields' values for " + std::to_string(field_count()) + " fields");
    for (std::size_t f = 0; f < interiors.size(); ++f) set_field(f, interiors[f]);
    fill_boundaries();
  }
  std::vector<std::vector<double>> fields() const {
    std::vector<std::vector<double>> out;
    out.reserve(field_count());
    for (std::size_t f = 0; f < field_count(); ++f) out.push_back(field(f));
    return out;
  }
  // The ghost zones from the interiors as they are (the caller wrote them).
  virtual void fill_boundaries() = 0;
  // One step of the program's integrator, the boundaries filled after each stage.
  virtual void step(double dt) = 0;
  // Whether step() may end part way, throwing Cancelled, where a
  // CancelScope asks it to (the CPU reference, whose step at a large size
  // takes seconds); the caller then puts the fields back.
  virtual bool steps_cancellable() const { return false; }
  // Puts the state where the caller keeps it (a GPU loop on the caller's
  // arrays may hold it in its own array of a pair after a step).
  virtual void settle() {}
  // The first result of the program's CFL reduction (the largest signal speed).
  virtual double max_speed() = 0;

  // Steps whose time step the device computes (the CFL conditions, as
  // Simulation::next_dt does on the host) and reads there, so that the
  // host launches a step without waiting for the last: a back end that
  // can returns true, and the Simulation then runs launch_step and
  // wait_step in place of next_dt and step.
  virtual bool steps_on_device() const { return false; }
  // The time the next launched step starts from.
  virtual void set_clock(double t) { (void)t; }
  // Launches a step landing on `stop` where it would pass it (< 0: none);
  // returns at once.
  virtual void launch_step(double stop) { (void)stop; }
  // The oldest launched step's clock, waiting for it: t where it ended, its
  // dt and largest speed; not `valid` where it was no step (t would not
  // advance: at `stop` already, or a NaN) and changed no state.
  struct Clock {
    double t = 0, dt = 0, speed = 0;
    bool valid = false;
  };
  virtual Clock wait_step() { return {}; }
  // Every diagnostic reduction's results, in the program's order.
  virtual std::vector<double> diagnostics() = 0;
  virtual std::optional<NonFinite> first_non_finite() const = 0;
  virtual std::string name() const = 0;
};

}  // namespace gpen::sim
