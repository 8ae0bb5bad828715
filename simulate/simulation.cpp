#include "simulation.hpp"

#include <cerrno>
#include <chrono>
#include <deque>
#include <optional>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <stdexcept>

#include <fcntl.h>
#include <stdio.h>  // renameat2 (glibc 2.28)

#include "gpen/families/common/host_array.hpp"
#include "gpen/families/common/workload.hpp"
#include "gpen/generator/json_source.hpp"
#include "npy.hpp"
#include "picture.hpp"

namespace gpen::sim {
namespace {

namespace fs = std::filesystem;

// Puts the whole folder `part` in the place of `dir`. Where `dir` exists
// the two are exchanged in one step (Linux's renameat2, where the file
// system has it), so that `dir` is never missing: a run killed then leaves
// the new snapshot in place (or, before the exchange, the old folder,
// whose snapshot.json is gone already). The old one, now under `part`, is
// removed after; one left (a kill, a file it cannot remove) is removed by
// the next write of the step. Elsewhere `dir` is removed first.
void replace_folder(const std::string& part, const std::string& dir) {
#ifdef RENAME_EXCHANGE
  if (fs::exists(fs::symlink_status(dir)) && ::renameat2(AT_FDCWD, part.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) == 0) {
    std::error_code ignored;
    fs::remove_all(part, ignored);
    return;
  }
#endif
  fs::remove_all(dir);
  fs::rename(part, dir);
}

// A uniform value in [-1, 1) from (seed, index): SplitMix64, so that a
// point's noise depends on nothing else (any order, any back end).
double noise_at(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

double rounded(double v, Dtype d) { return d == Dtype::Float32 ? static_cast<double>(static_cast<float>(v)) : v; }

std::vector<std::string> diagnostic_names(const Program& p) {
  std::vector<std::string> n;
  for (const ReduceUse& r : p.diagnostics.reductions)
    for (const FieldDecl* o : r.use.spec.output_fields()) n.push_back(o->name);
  return n;
}

}  // namespace

std::vector<double> initial_field(const Program& p, std::size_t field, const Subdomain* part) {
  const ProgramField& f = p.fields.at(field);
  const auto h = p.spacing();
  std::vector<double> env(3);
  for (const ProgramParam& q : p.params) env.push_back(q.value);
  env.push_back(M_PI);
  Subdomain whole;
  whole.extent = p.size;
  const Subdomain& s = part ? *part : whole;
  if (!f.init_npy.empty()) {
    // A file's values (checked when the program was read; read again here, it may have changed since).
    const NpyArray head = read_npy(f.init_npy, true);
    if (head.shape != p.c_order_shape())
      throw std::runtime_error(fmt::format("{} (the initial values at {}/init/npy) has shape ({}) now; the field '{}' needs ({})", f.init_npy, f.pointer,
                                           fmt::join(head.shape, ", "), f.name, fmt::join(p.c_order_shape(), ", ")));
    std::vector<double> v = read_npy_part(f.init_npy, p.size, s);
    std::size_t at = 0;
    for_part_points(p.size, s, [&](long long flat) {
      v[at] = rounded(v[at] + (f.noise != 0 ? f.noise * noise_at(f.seed, static_cast<std::uint64_t>(flat)) : 0.0), p.dtype);
      ++at;
    });
    return v;
  }
  // An expression costs tens of copies a point: a 1024^3 grid's take minutes on one core.
  std::vector<double> v(static_cast<std::size_t>(s.extent[0] * s.extent[1] * s.extent[2]));
  for_rows(s.extent, [&](long long row_j, long long row_k) {
    std::vector<double> e = env;
    const long long j = s.offset[1] + row_j, k = s.offset[2] + row_k;
    e[1] = p.origin[1] + static_cast<double>(j) * h[1];
    e[2] = p.origin[2] + static_cast<double>(k) * h[2];
    std::size_t at = static_cast<std::size_t>(s.extent[0] * (row_j + s.extent[1] * row_k));
    for (long long i = s.offset[0]; i < s.offset[0] + s.extent[0]; ++i) {
      e[0] = p.origin[0] + static_cast<double>(i) * h[0];
      double x = f.init(e.data());
      if (f.noise != 0) x += f.noise * noise_at(f.seed, static_cast<std::uint64_t>(i + p.size[0] * (j + p.size[1] * k)));
      v[at++] = rounded(x, p.dtype);
    }
  }, 64);
  return v;
}

std::vector<std::vector<double>> initial_values(const Program& p, const Subdomain* part) {
  std::vector<std::vector<double>> out;
  for (std::size_t f = 0; f < p.fields.size(); ++f) out.push_back(initial_field(p, f, part));
  return out;
}

Simulation::Simulation(const Program& p, std::unique_ptr<Backend> backend) : p_(p), backend_(std::move(backend)) {}

void Simulation::set_rank(std::shared_ptr<RankLinks> links) {
  const Decomposition& d = links->decomposition();
  if (d.size() != p_.size || d.dims() != p_.dims)
    throw std::invalid_argument(fmt::format("Simulation::set_rank: the links split a grid of {} points, the program's is {}", size_text(d.size(), d.dims()),
                                            size_text(p_.size, p_.dims)));
  links_ = std::move(links);
}

void Simulation::initialize() {
  // A field at a time: a large grid's fields need not all be on the host at once.
  const Subdomain* part = links_ ? &links_->decomposition().subdomain(links_->rank()) : nullptr;
  for (std::size_t f = 0; f < p_.fields.size(); ++f) backend_->set_field(f, initial_field(p_, f, part));
  backend_->fill_boundaries();
  t_ = 0;
  step_ = 0;
  restarted_step_ = -1;
}

void Simulation::resume(double t, long long step) {
  if (!(t >= 0) || !std::isfinite(t) || step < 0) throw std::invalid_argument(fmt::format("Simulation::resume: t = {}, step {}: a finite time >= 0 and a step >= 0", t, step));
  backend_->fill_boundaries();
  t_ = t;
  step_ = step;
  restarted_step_ = -1;  // the state may be another than the snapshot's
}

void Simulation::write_snapshot(const std::string& dir) const {
  // Written into DIR.part and renamed DIR once whole: a run ended at once
  // (a second Ctrl-C, a kill) leaves a folder named unfinished, never a
  // snapshot folder that lacks files.
  const std::string part = dir + ".part";
  if (writes_files()) {
    // A folder of this step written before holds no snapshot from now on.
    if (fs::exists(dir)) fs::remove(dir + "/snapshot.json");
    fs::remove_all(part);
    fs::create_directories(part);
  }
  nlohmann::json files = nlohmann::json::array();
  for (const ProgramField& f : p_.fields) files.push_back(f.name + ".npy");
  const auto& pic = p_.snapshots.picture;
  const bool pictures = pic && png_available();
  std::optional<Image> picture;  // an undecomposed run's, from the field's values
  // Rank 0 makes each file whole (its header, room for every value),
  // every rank writes its part in place, rank 0 then the snapshot.json.
  if (links_ && writes_files())
    for (const auto& file : files) create_npy(part + "/" + file.get<std::string>(), p_.dtype, p_.c_order_shape());
  if (links_) links_->gather({});
  // A field at a time on the host.
  for (std::size_t f = 0; f < p_.fields.size(); ++f) {
    const std::vector<double> v = backend_->field(f);
    const std::string path = part + "/" + files[f].get<std::string>();
    if (links_) write_npy_part(path, p_.dtype, p_.size, links_->decomposition().subdomain(links_->rank()), v);
    else write_npy(path, p_.dtype, p_.c_order_shape(), v);
    if (!links_ && pictures && static_cast<std::size_t>(pic->field) == f) picture = render_slice(p_, v, *pic);
  }
  if (links_) {
    links_->gather({});
    if (!writes_files()) return;
  }
  nlohmann::json j;
  j["program"] = p_.name;
  j["program_hash"] = p_.hash;
  j["step"] = step_;
  j["time"] = fmt::format("{:.17g}", t_);  // as text: the exact double back on restart
  j["time_value"] = t_;
  j["dtype"] = p_.dtype == Dtype::Float32 ? "float32" : "float64";
  j["size"] = std::vector<long long>(p_.size.begin(), p_.size.begin() + p_.dims);
  j["box"] = std::vector<double>(p_.box.begin(), p_.box.begin() + p_.dims);
  j["origin"] = std::vector<double>(p_.origin.begin(), p_.origin.begin() + p_.dims);
  const auto h = p_.spacing();
  j["spacing"] = std::vector<double>(h.begin(), h.begin() + p_.dims);
  j["fields"] = files;
  j["layout"] = "each field's interior, C order (z, y, x): numpy.load gives a[k, j, i]";
  if (pic) {
    const std::string name = fmt::format("{}_{}.png", p_.fields[pic->field].name, p_.dims == 3 ? "xyz"[pic->axis] : 'z');
    if (pictures) {
      const auto field = static_cast<std::size_t>(pic->field);
      // A rank of several holds a part: its slice comes back from the field's file, whole by now.
      if (!picture) picture = render_plane(p_, read_npy_part(part + "/" + files[field].get<std::string>(), p_.size, slice_part(p_, *pic)), *pic);
      write_png(part + "/" + name, *picture);
      j["picture"] = name;
    } else {
      j["picture"] = nullptr;
      j["picture_missing"] = "this gpen was built without libpng";
    }
  }
  {
    const std::string meta = part + "/snapshot.json";
    std::ofstream out(meta, std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out.flush()) throw std::runtime_error("cannot write " + meta);
  }
  // A folder of this step written before (an earlier run into the same
  // --out) is replaced, whatever it held.
  replace_folder(part, dir);
}

void Simulation::restart(const std::string& dir) {
  auto fail = [&](const std::string& why) { throw std::runtime_error(fmt::format("cannot restart {} from {}: {}", p_.name, dir, why)); };
  restarted_step_ = -1;  // a restart that fails part way leaves no snapshot's state
  const std::string file = dir + "/snapshot.json";
  if (!fs::is_regular_file(file)) {
    // A run ended between removing a folder and renaming its successor (a
    // file system without the exchange) left DIR.part alone.
    std::string base = fs::path(dir).lexically_normal().string();
    if (base.size() > 1 && base.back() == '/') base.pop_back();  // snap_X/
    const std::string whole = base + ".part";
    const std::string missing = fs::exists(dir) ? "it holds no snapshot.json" : "it does not exist";
    if (fs::is_regular_file(whole + "/snapshot.json"))
      fail(fmt::format("{}; {} holds a whole snapshot (a run ended while putting it in place): restart from that folder", missing, whole));
    fail(missing);
  }
  const JsonSource src = JsonSource::from_file(file);
  const nlohmann::json& j = src.root();
  auto text = [&](const char* key) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_string()) fail(fmt::format("snapshot.json has no \"{}\" string", key));
    return j[key].get<std::string>();
  };
  if (text("program") != p_.name) fail(fmt::format("it is a snapshot of the program '{}'", quoted_text(text("program"))));
  const std::string dtype = p_.dtype == Dtype::Float32 ? "float32" : "float64";
  if (text("dtype") != dtype) fail(fmt::format("it holds {}, the run is {}", quoted_text(text("dtype")), dtype));
  // The time as written (the exact double in 17 digits), finite, >= 0.
  const std::string time = text("time");
  char* end = nullptr;
  errno = 0;
  const double t = std::strtod(time.c_str(), &end);
  if (time.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(t) || t < 0)
    fail(fmt::format("snapshot.json's \"time\" is '{}', not a finite time >= 0", quoted_text(time)));
  if (!j.contains("step") || !j["step"].is_number_integer() || j["step"].get<long long>() < 0 || j["step"].get<long long>() > (1LL << 53))
    fail("snapshot.json's \"step\" is not a whole number of steps from 0 to 2^53");
  // Every file's header before any field is set, then a field at a time.
  const std::vector<long long> shape = p_.c_order_shape();
  for (const ProgramField& f : p_.fields) {
    const NpyArray head = read_npy(dir + "/" + f.name + ".npy", true);
    if (head.shape != shape) fail(fmt::format("{}.npy has shape ({}), the run ({})", f.name, fmt::join(head.shape, ", "), fmt::join(shape, ", ")));
    if (head.dtype != p_.dtype) fail(fmt::format("{}.npy is not {}", f.name, dtype));
  }
  for (std::size_t f = 0; f < p_.fields.size(); ++f) {
    const std::string path = dir + "/" + p_.fields[f].name + ".npy";
    // A rank of several reads its part alone.
    backend_->set_field(f, links_ ? read_npy_part(path, p_.size, links_->decomposition().subdomain(links_->rank())) : read_npy(path).values);
  }
  backend_->fill_boundaries();
  t_ = t;
  step_ = j["step"].get<long long>();
  restarted_from_ = dir;
  restarted_step_ = step_;
}

// 1 + the fraction of a step that a step landing on its stop may add
// (families/common/device/time_loop.cuh's kLandSlack, the same).
constexpr double kLandSlack = 1.000001;

Simulation::NextStep Simulation::next_dt(double until) {
  const TimeStep& ts = p_.time_step;
  double dt = ts.dt;
  if (!ts.fixed) {
    // families/common/device/time_loop.cuh's time_step, operation for operation.
    const Program::CflConstants c = p_.cfl_constants();
    const double speed = ts.speed ? backend_->max_speed() : 0.0;
    const double adv = speed / c.cdt_h;
    dt = 1.0 / std::sqrt(adv * adv + c.diffusion * c.diffusion);
    if (c.dt_max > 0 && dt > c.dt_max) dt = c.dt_max;  // a NaN stays: run() says why
    last_speed_ = speed;
  }
  // A step that would end within kLandSlack of its dt short of `until`
  // lands on it: no sliver of a step left before it.
  const bool lands = until >= 0 && t_ + dt * kLandSlack >= until;
  if (lands) dt = until - t_;
  return {dt, lands};
}

RunResult Simulation::run(const RunOptions& opt, const std::function<void(const StepReport&)>& progress) {
  RunResult r;
  try {
    r = run_steps(opt, progress);
  } catch (...) {
    try {
      backend_->settle();  // the caller's arrays as the last step left the state, if the device still answers
    } catch (...) {
    }
    throw;
  }
  backend_->settle();
  return r;
}

RunResult Simulation::run_steps(const RunOptions& opt, const std::function<void(const StepReport&)>& progress) {
  using clock = std::chrono::steady_clock;
  RunResult res;
  res.diagnostic_names = diagnostic_names(p_);
  const bool out = !opt.out_dir.empty();
  std::ofstream csv;
  std::vector<std::string> kept;  // the series' rows up to this step, on a restart
  if (out && writes_files()) {
    fs::create_directories(opt.out_dir);
    const std::string path = opt.out_dir + "/diagnostics.csv";
    const std::string header = "step,t,dt" + std::string(res.diagnostic_names.empty() ? "" : ",") + fmt::format("{}", fmt::join(res.diagnostic_names, ","));
    // A run that goes on from step N keeps the series' rows up to N (a
    // later history in the same folder is dropped), under the same header.
    if (step_ > 0 && fs::exists(path)) {
      std::ifstream in(path);
      std::string line;
      if (!std::getline(in, line) || line != header)
        throw std::runtime_error(fmt::format("{} has other columns than this run's ({}): give another --out", path, header));
      while (std::getline(in, line)) {
        const long long row_step = std::atoll(line.c_str());
        if (row_step <= step_) kept.push_back(line);
      }
    }
    csv.open(path, std::ios::trunc);
    if (!csv) throw std::runtime_error("cannot write " + path);
    csv << header << "\n";
    for (const std::string& line : kept) csv << line << "\n";
  }
  auto snapshot_dir = [&] { return fmt::format("{}/snap_{:09d}", opt.out_dir, step_); };
  // A stop asked for: on several processes, taken together (any rank's),
  // looked for every kStopPolls polls, so that every rank stops at the same step.
  constexpr long long kStopPolls = 16;
  long long polls = 0;
  bool asked = false;
  auto stop_requested = [&] {
    if (!opt.stop_requested || asked) return asked;
    if (!links_) return asked = opt.stop_requested();
    if (++polls % kStopPolls != 0) return false;
    for (double x : links_->gather({opt.stop_requested() ? 1.0 : 0.0})) asked = asked || x != 0;
    return asked;
  };
  // The diagnostics of the state now; false where a field went non-finite.
  double last_dt = 0;
  // The run stops on a non-finite value: `what` it is, and what it kept.
  auto stop_non_finite = [&](const std::string& what) {
    res.stop = RunResult::Stop::NonFinite;
    res.message = fmt::format("step {}, t = {:.9g}: {}; the last good snapshot is {}", step_, t_, what,
                              res.last_snapshot.empty() ? "none (none written)" : res.last_snapshot);
  };
  // Whether a field holds a NaN or an infinity now: then the run stops, saying which and where.
  auto went_non_finite = [&]() {
    const std::optional<NonFinite> bad = backend_->first_non_finite();
    if (bad)
      stop_non_finite(fmt::format("field '{}' is {} at the interior point (i, j, k) = ({}, {}, {})", p_.fields[bad->field].name, bad->value,
                                  bad->at[0], bad->at[1], bad->at[2]));
    return bad.has_value();
  };
  // write_row false: the values only (a row the series already has).
  long long diagnosed_at = -1;  // the step last diagnosed, alike on every rank
  auto diagnose = [&](bool write_row = true) {
    // Without diagnostics, non-finite values are looked for at snapshots.
    if (p_.diagnostics.every == 0) return true;
    if (went_non_finite()) return false;
    res.last_diagnostics = backend_->diagnostics();
    diagnosed_at = step_;
    if (csv.is_open() && write_row) {
      csv << fmt::format("{},{:.17g},{:.17g}", step_, t_, last_dt);
      for (double v : res.last_diagnostics) csv << fmt::format(",{:.17g}", v);
      csv << "\n";
      csv.flush();
    }
    // Finite fields, a non-finite diagnostic (an overflow in its expression): said, and the run stops.
    for (std::size_t i = 0; i < res.last_diagnostics.size(); ++i)
      if (!std::isfinite(res.last_diagnostics[i])) {
        stop_non_finite(fmt::format("the diagnostic '{}' is {} while the fields are finite", res.diagnostic_names[i], res.last_diagnostics[i]));
        return false;
      }
    return true;
  };
  auto snapshot = [&]() {
    if (!out) return true;
    if (went_non_finite()) return false;
    write_snapshot(snapshot_dir());
    res.last_snapshot = snapshot_dir();
    return true;
  };

  const long long first = step_;
  const double t_first = t_;
  // The next snapshot time by time: the multiple of every_time after t, found
  // the same way after a restart (bitwise the same steps).
  const double every_time = p_.snapshots.every_time;
  auto snap_time_after = [&](double t) { return every_time > 0 ? (std::floor(t / every_time + 1e-9) + 1) * every_time : -1.0; };
  double next_snap_t = snap_time_after(t_);
  // Steps land on every snapshot time, written or not: an interval that
  // makes more of them than any run should write is refused before a step.
  constexpr double kMaxSnapshotTimes = 1e5;
  if (every_time > 0 && opt.until >= 0 && (opt.steps < 0 || opt.steps > kMaxSnapshotTimes) && (opt.until - t_) / every_time > kMaxSnapshotTimes)
    throw std::runtime_error(fmt::format("{} snapshot times from t = {:.9g} to --until {:.9g} (/snapshots/every_time {:.3g}); at most {:.0f}: a larger every_time, "
                                         "or snapshots by step count (/snapshots/every)",
                                         std::floor((opt.until - t_) / every_time), t_, opt.until, every_time, kMaxSnapshotTimes));
  // A restart's series starts with the state read, as a first run's with
  // step 0, where the folder has no series (another --out); one it has goes
  // on as the run that wrote it would have. Every rank diagnoses (the
  // reductions span them); the rank that writes knows the rows.
  if ((step_ == 0 || out) && !diagnose(step_ == 0 || kept.empty())) return res;
  const double cells = static_cast<double>(p_.size[0] * p_.size[1] * p_.size[2]);
  auto t0 = clock::now();
  // After a step of `dt` that ended at `t`: the diagnostics, snapshots and
  // progress it is due; false where the run stopped (res says why).
  auto account = [&](double dt, double t) {
    last_dt = dt;
    ++step_;
    t_ = t;
    res.steps = step_ - first;
    res.t = t_;
    if (p_.diagnostics.every > 0 && step_ % p_.diagnostics.every == 0 && !diagnose()) return false;
    bool snap = p_.snapshots.every > 0 && step_ % p_.snapshots.every == 0;
    if (next_snap_t > 0 && t_ >= next_snap_t) {
      snap = true;
      next_snap_t = snap_time_after(t_);
    }
    if (snap && !snapshot()) return false;
    if (progress) {
      const double s = std::chrono::duration<double>(clock::now() - t0).count();
      StepReport r;
      r.step = step_;
      r.taken = step_ - first;
      r.t = t_;
      r.dt = dt;
      const double taken = static_cast<double>(step_ - first);
      r.ms_per_step = 1e3 * s / taken;
      r.cell_updates_per_s = cells * taken / s;
      r.fraction_done = opt.steps >= 0 ? taken / static_cast<double>(std::max(1LL, opt.steps))
                        : opt.until > t_first ? (t_ - t_first) / (opt.until - t_first) : -1;
      progress(r);
    }
    return true;
  };
  // The time the next step lands on where it would pass it: --until or the next snapshot time.
  auto stop_time = [&] {
    double until = opt.until;
    if (next_snap_t > 0 && (until < 0 || next_snap_t < until)) until = next_snap_t;
    return until;
  };
  // A time step that is no step: a NaN from the CFL condition is a field
  // gone non-finite (said, and false); one that cannot move t (too small
  // for t's precision, or none at all) would run for ever, and an infinite
  // one (no speed, no diffusion, no cap) would make every field NaN (thrown).
  auto no_step = [&](double dt) {
    if (went_non_finite()) {
      res.steps = step_ - first;
      res.t = t_;
      return false;
    }
    if (std::isinf(dt))
      throw std::runtime_error(fmt::format("step {}: the CFL condition bounds no time step at t = {:.17g}: the largest speed is {:.3g} and the diffusion "
                                           "term 0; give /time_step/cfl a 'dt_max', or --until or snapshot times to land on",
                                           step_, t_, last_speed_));
    throw std::runtime_error(fmt::format("step {}: the time step {:.3g} does not advance t = {:.17g}{}", step_, dt, t_,
                                         p_.time_step.fixed ? "" : fmt::format(" (CFL: largest speed {:.3g})", last_speed_)));
  };
  // A step on the host. Where the backend's step may end part way (the CPU
  // reference) and one process runs, Ctrl-C ends it rather than waiting
  // for it: false, the fields as they were before it (their interiors put
  // back, the ghosts filled from them, as the step had found them).
  auto take_step = [&](double dt) {
    if (!backend_->steps_cancellable() || !opt.stop_requested || links_) {
      backend_->step(dt);
      return true;
    }
    const std::vector<std::vector<double>> before = backend_->fields();
    try {
      const CancelScope scope(opt.stop_requested);
      backend_->step(dt);
      return true;
    } catch (const Cancelled&) {
      for (std::size_t f = 0; f < before.size(); ++f) backend_->set_field(f, before[f]);
      backend_->fill_boundaries();
      return false;
    }
  };
  // Why the run stops before another step, if it does.
  auto stop_now = [&]() -> std::optional<RunResult::Stop> {
    if (opt.steps >= 0 && step_ - first >= opt.steps) return RunResult::Stop::Steps;
    if (opt.until >= 0 && t_ >= opt.until) return RunResult::Stop::Time;
    if (stop_requested()) return RunResult::Stop::Requested;
    return std::nullopt;
  };

  if (backend_->steps_on_device() && !p_.time_step.fixed) {
    // The device computes each step's dt and the host accounts for a step
    // while the next runs: a step is launched before the last is waited
    // for, except past a step whose state a diagnostic or a snapshot by
    // count reads. A step launched after one that landed on its stop (a
    // snapshot time, --until) is no step: dt 0, no state changed.
    backend_->set_clock(t_);
    std::deque<double> in_flight;  // the stop each launched step was given, oldest first
    auto needs_state = [&](long long s) {
      return (p_.diagnostics.every > 0 && s % p_.diagnostics.every == 0) || (out && p_.snapshots.every > 0 && s % p_.snapshots.every == 0);
    };
    bool requested = false;  // a stop asked for stands while the steps in flight are accounted
    // Left with steps in flight (a stop at a non-finite value or a time
    // step that does not advance: those are no steps; an exception from a
    // snapshot or a progress callback): they are waited for and the valid
    // ones counted, so that step and time say what the state is.
    struct InFlightGuard {
      std::deque<double>& in_flight;
      Backend& b;
      long long& step;
      double& t;
      ~InFlightGuard() {
        try {
          for (; !in_flight.empty(); in_flight.pop_front()) {
            const Backend::Clock c = b.wait_step();
            if (c.valid) ++step, t = c.t;
          }
        } catch (...) {  // the device no longer answers: the caller sees the first error
        }
      }
    } guard{in_flight, *backend_, step_, t_};
    for (;;) {
      const std::optional<RunResult::Stop> stop = requested ? std::optional<RunResult::Stop>(RunResult::Stop::Requested) : stop_now();
      requested = stop == RunResult::Stop::Requested;
      const long long ahead = static_cast<long long>(in_flight.size());
      if (!stop && (opt.steps < 0 || step_ - first + ahead < opt.steps) && ahead < 2 && (ahead == 0 || !needs_state(step_ + ahead))) {
        in_flight.push_back(stop_time());
        backend_->launch_step(in_flight.back());
        if (in_flight.size() < 2) continue;
      }
      if (in_flight.empty()) {
        res.stop = stop.value_or(RunResult::Stop::Steps);
        break;
      }
      const double landing = in_flight.front();
      in_flight.pop_front();
      const Backend::Clock c = backend_->wait_step();
      last_speed_ = c.speed;
      if (!c.valid) {
        if (landing >= 0 && t_ >= landing) continue;  // launched after the step that landed there
        if (!no_step(c.dt)) return res;
      }
      if (!account(c.dt, c.t)) return res;
    }
  } else {
    for (;;) {
      if (const auto stop = stop_now()) {
        res.stop = *stop;
        break;
      }
      const double until = stop_time();  // land on snapshot times
      const auto [dt, lands] = next_dt(until);
      if (!(dt > 0) || std::isinf(dt) || !(t_ + dt > t_)) {
        if (!no_step(dt)) return res;
      }
      if (!take_step(dt)) {
        res.stop = RunResult::Stop::Requested;
        break;
      }
      // Land exactly on a target time rather than a rounding short of it.
      if (!account(dt, lands ? until : t_ + dt)) return res;
    }
  }
  // The state at the stop: its diagnostics and a snapshot, unless the
  // last step already wrote them.
  if (p_.diagnostics.every > 0 && step_ % p_.diagnostics.every != 0 && diagnosed_at != step_ && !diagnose()) return res;
  if (p_.diagnostics.every == 0 && !out && went_non_finite()) return res;  // nothing else looked
  // A restart that took no step into the folder it read: that snapshot
  // holds the state already. Rank 0's answer stands for every rank, which
  // then all write or all leave it.
  if (out && step_ == restarted_step_) {
    std::error_code ec;
    bool read_here = fs::equivalent(restarted_from_, snapshot_dir(), ec);
    if (links_) read_here = links_->gather({read_here ? 1.0 : 0.0}).at(0) != 0;
    if (read_here) res.last_snapshot = snapshot_dir();
  }
  if (out && res.last_snapshot != snapshot_dir() && !snapshot()) return res;
  res.steps = step_ - first;
  res.t = t_;
  // A restart whose state lies past --until takes no step: why, in words.
  if (res.stop == RunResult::Stop::Time && res.steps == 0 && opt.until >= 0 && t_ > opt.until)
    res.message = fmt::format("--until {:.9g} was already past: the state read is later", opt.until);
  return res;
}

}  // namespace gpen::sim
