// A program's time loop, on either back end: initial values (or a
// snapshot), the time step (fixed or from the CFL conditions), diagnostics
// every N steps into a CSV time series, snapshots (.npy per field and a
// JSON of time, step and grid), a stop by steps, by simulated time, by a
// request (Ctrl-C) or at the first non-finite value a diagnostic sees.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpen/simulate/backend.hpp"
#include "gpen/simulate/program.hpp"
#include "gpen/simulate/rank_links.hpp"

namespace gpen::sim {

struct RunOptions {
  long long steps = -1;    // stop after this many steps (of this run); -1: not by steps
  double until = -1;       // stop at this simulated time; -1: not by time
  std::string out_dir;     // diagnostics.csv and snap_NNNNNNNNN/; "" writes nothing
  // Polled once a step (Ctrl-C): a final snapshot, then stop. A CPU
  // reference step also polls it within (from several threads at once) and
  // ends part way, its state put back.
  std::function<bool()> stop_requested;
};

// What a progress display is told, once a step.
struct StepReport {
  long long step = 0;
  long long taken = 0;  // steps of this run
  double t = 0, dt = 0;
  double ms_per_step = 0;  // of the last steps
  double cell_updates_per_s = 0;
  double fraction_done = 0;  // of the run's steps or time; negative when unknown
};

struct RunResult {
  long long steps = 0;  // taken by this run
  double t = 0;
  enum class Stop { Steps, Time, Requested, NonFinite } stop = Stop::Steps;
  std::string message;           // NonFinite: which field, where; Time without a step: --until was already past
  std::string last_snapshot;     // its folder, "" when none was written (or the one a restart read, where it took no step into that folder)
  std::vector<std::string> diagnostic_names;
  std::vector<double> last_diagnostics;
};

class Simulation {
 public:
  Simulation(const Program& p, std::unique_ptr<Backend> backend);
  // One rank of a run over several processes (issue 30), `links` its way
  // to the others: the back end holds this rank's subdomain (its
  // set_field and field take and give that part), every rank runs the
  // same steps. Each rank writes its part of a snapshot into the one .npy
  // a field (the whole grid's, byte for byte what an undecomposed run
  // writes), rank 0 the snapshot.json once every part is in, and the
  // diagnostics.csv alone; a stop asked for (Ctrl-C) is looked for on
  // every rank every few steps and taken together.
  void set_rank(std::shared_ptr<RankLinks> links);

  // The program's initial values: its init expressions at each point's
  // coordinates, plus the seeded noise.
  void initialize();
  // The fields, time and step of the snapshot in `dir` (written by this
  // program's runs: the same fields, size and dtype). Both set the fields
  // one at a time: where either throws, the fields are a mix of old and new
  // (every file's header is checked first) until one of them succeeds.
  void restart(const std::string& dir);
  // The fields as the back end holds them (e.g. the caller's arrays, which
  // it wrote), at time t and step `step`: their ghost zones filled.
  void resume(double t = 0, long long step = 0);

  // Steps until `opt` says stop. On return the state is where the back end's
  // caller keeps it (Backend::settle).
  RunResult run(const RunOptions& opt, const std::function<void(const StepReport&)>& progress = {});

  // The next step's dt: fixed, or from the CFL conditions on the device's
  // state; capped so that `until` is met exactly, and whether it lands there.
  struct NextStep {
    double dt;
    bool lands;
  };
  NextStep next_dt(double until);
  // A snapshot of the state now into `dir` (created).
  void write_snapshot(const std::string& dir) const;

  double time() const { return t_; }
  long long step() const { return step_; }
  Backend& backend() { return *backend_; }

 private:
  const Program& p_;
  std::unique_ptr<Backend> backend_;
  double t_ = 0;
  long long step_ = 0;
  double last_speed_ = 0;  // the CFL reduction's last result (for messages)
  // The snapshot folder restart() read, and its step (-1: the state is no
  // snapshot's): a run into that folder that takes no step does not write
  // the same state over it.
  std::string restarted_from_;
  long long restarted_step_ = -1;
  std::shared_ptr<RankLinks> links_;  // a rank's of a run over several processes, or null

  bool writes_files() const { return !links_ || links_->rank() == 0; }

  RunResult run_steps(const RunOptions& opt, const std::function<void(const StepReport&)>& progress);
};

// The initial interior of a program's field `f` (x fastest), as
// initialize() sets it: of the whole grid, or of subdomain `part` alone
// (the same values there); and every field's.
std::vector<double> initial_field(const Program& p, std::size_t f, const Subdomain* part = nullptr);
std::vector<std::vector<double>> initial_values(const Program& p, const Subdomain* part = nullptr);

}  // namespace gpen::sim
