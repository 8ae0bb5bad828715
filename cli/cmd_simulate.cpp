// gpen simulate PROGRAM.json: a program's time loop (kind "program",
// docs/programs.md), with a progress line, diagnostics, snapshots, a
// restart, and Ctrl-C writing a last snapshot.
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fmt/format.h>
#include <memory>

#include "commands.hpp"
#include "json_output.hpp"
#include "interrupt.hpp"
#include "progress.hpp"
#include "run_limits.hpp"
#include "gpen/families/common/grid_run.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/runtime/driver.hpp"
#include "gpen/simulate/cpu_backend.hpp"
#include "gpen/simulate/decomposed_cpu_backend.hpp"
#include "gpen/simulate/decomposed_gpu_backend.hpp"
#include "gpen/simulate/gpu_backend.hpp"
#ifdef GPEN_HAVE_MPI
#include "gpen/simulate/halo_nccl.hpp"
#include "mpi_ranks.hpp"
#endif
#include "spec_options.hpp"
#include "gpen/simulate/picture.hpp"
#include "gpen/simulate/simulation.hpp"

namespace gpen::cli {

class MpiRanks;  // mpi_ranks.hpp, where MPI is built in

namespace {

struct SimulateOptions {
  std::string program, size, dtype, out = "gpen-out", restart, device = "gpu", ranks, periodic_ghosts = "measured";
  long long steps = -1;
  double until = -1;
  int parts = 0;
  bool no_output = false, json = false, no_overlap = false;
};

// Why the run stopped, in words.
std::string stop_words(const sim::RunResult& r) {
  switch (r.stop) {
    case sim::RunResult::Stop::Steps: return "the steps asked for";
    case sim::RunResult::Stop::Time: return r.message.empty() ? "the time asked for" : r.message;  // --until already past
    case sim::RunResult::Stop::Requested: return "Ctrl-C";
    case sim::RunResult::Stop::NonFinite: return "a non-finite value";
  }
  return "?";
}

int simulate_here(const SimulateOptions& o, MpiRanks* mpi);

// The processes a launcher started with this one, from its environment
// (Open MPI's mpirun, or a PMI launcher's); 1 without one.
int launched_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* s = std::getenv(name)) return std::max(1, std::atoi(s));
  return 1;
}

// The processes of the run (mpirun's), where MPI is built in.
int mpi_processes(const MpiRanks& mpi) {
#ifdef GPEN_HAVE_MPI
  return mpi.size();
#else
  (void)mpi;
  return 1;
#endif
}

int simulate(const SimulateOptions& o) {
  if (launched_ranks() > 1) {
#ifdef GPEN_HAVE_MPI
    // Every rank runs to the end or none does: a failure anywhere aborts them all.
    MpiRanks mpi;
    try {
      return simulate_here(o, &mpi);
    } catch (const UsageError& e) {
      mpi.abort(e.what(), kExitUsage);
    } catch (const NoDeviceError& e) {
      mpi.abort(e.what(), kExitNoDevice);
    } catch (const std::exception& e) {
      mpi.abort(e.what(), kExitInvalid);
    }
#else
    throw UsageError(fmt::format("started as one of {} processes (mpirun), but this gpen was built without MPI or nccl.h: each would run the whole "
                                 "program alone. Build with libopenmpi-dev and NCCL, or run one process",
                                 launched_ranks()));
#endif
  }
  return simulate_here(o, nullptr);
}

// The run of this process: the whole grid, every subdomain on this GPU,
// or (mpi) this rank's subdomain.
int simulate_here(const SimulateOptions& o, MpiRanks* mpi) {
  if (o.steps < 0 && o.until == -1) throw UsageError("gpen simulate: give --steps N or --until T (how long to run)");
  std::optional<Dtype> dtype;
  if (!o.dtype.empty()) dtype = o.dtype == "float32" ? Dtype::Float32 : Dtype::Float64;
  sim::SizeOverride size;  // --size is read against the program's dims
  if (!o.size.empty()) size = [&](int dims) { return parse_size(o.size, dims); };
  const auto setup_started = std::chrono::steady_clock::now();
  const sim::Program p = sim::load_program(o.program, size, dtype);
  std::unique_ptr<sim::Backend> backend;
  std::optional<Context> ctx;
  // The split is checked against the program before any GPU work.
  const sim::RankGrid ranks = o.ranks.empty() ? sim::RankGrid{} : sim::parse_ranks(o.ranks, p.dims);
  // The output folder is made before any GPU work, by the process that
  // writes the files: one that cannot be made is the --out's mistake, said
  // before the setup rather than after it.
  bool writes = !o.no_output;
#ifdef GPEN_HAVE_MPI
  if (mpi) writes = writes && mpi->rank() == 0;
#endif
  if (writes) {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) throw UsageError(fmt::format("--out {}: cannot make the folder: {}", o.out, ec.message()));
  }
  sim::GpuOptions go;
  go.periodic_ghosts = o.periodic_ghosts == "stores"  ? sim::GpuOptions::PeriodicGhosts::Stores
                       : o.periodic_ghosts == "fills" ? sim::GpuOptions::PeriodicGhosts::Fills
                                                      : sim::GpuOptions::PeriodicGhosts::Measured;
  go.overlap = !o.no_overlap;
  bool overlapped = false;  // the stages overlap their exchanges
  std::shared_ptr<sim::RankLinks> links;  // this rank's, under mpirun
  sim::GpuBackend* timed = nullptr;         // --parts: the loop of this process
  bool speaks = true;                      // the process that reports (rank 0 of several)
  if (mpi) {
#ifdef GPEN_HAVE_MPI
    speaks = mpi->rank() == 0;
    if (o.device == "cpu") throw UsageError("--device cpu runs in one process: start it without mpirun");
    if (ranks.count() != mpi->size())
      throw UsageError(fmt::format("--ranks {} makes {} subdomain{}, and mpirun started {} processes: one a subdomain", o.ranks.empty() ? "1" : o.ranks,
                                   ranks.count(), ranks.count() == 1 ? "" : "s", mpi->size()));
    const sim::Decomposition d = sim::decompose(p, ranks);
    fmt::print(stderr, "{}: compiling or loading the GPU loop's kernels\n", p.name);
    links = std::make_shared<sim::NcclRankLinks>(p, d, mpi->rank(), mpi->comm(), mpi->context());
    go.links = links;
    auto gpu = std::make_unique<sim::GpuBackend>(p, mpi->context(), go);
    timed = gpu.get();
    overlapped = gpu->overlapped();
    for (const std::string& c : gpu->periodic_ghost_choices()) fmt::print(stderr, "{}: {}\n", p.name, c);
    backend = std::move(gpu);
#endif
  } else if (o.device == "cpu") {
    if (ranks.count() > 1) backend = std::make_unique<sim::DecomposedCpuBackend>(p, ranks);
    else backend = std::make_unique<sim::CpuBackend>(p);
  } else {
    if (ranks.count() > 1) sim::decompose(p, ranks);  // refused before any GPU work
    std::string why;
    if (!driver_available(&why)) throw NoDeviceError(fmt::format("no GPU for gpen simulate ({}); --device cpu runs the program's CPU reference", why));
    ctx.emplace(0);
    // A first run compiles every kernel (rk3: two per right-hand side and
    // stage where faces are periodic, to time their ghosts both ways),
    // seconds for heavy specs; later runs load them from the cache.
    fmt::print(stderr, "{}: compiling or loading the GPU loop's kernels\n", p.name);
    const sim::GpuBackend* first = nullptr;  // whose choices are printed
    if (ranks.count() > 1) {
      // Every subdomain on this GPU, a thread each (local_links.hpp).
      auto parts = std::make_unique<sim::DecomposedGpuBackend>(p, ranks, *ctx, go);
      first = &parts->rank(0);
      backend = std::move(parts);
    } else {
      auto gpu = std::make_unique<sim::GpuBackend>(p, *ctx, go);
      first = timed = gpu.get();
      backend = std::move(gpu);
    }
    overlapped = first->overlapped();
    for (const std::string& c : first->periodic_ghost_choices()) fmt::print(stderr, "{}: {}\n", p.name, c);
  }
  if (overlapped) fmt::print(stderr, "{}: each stage computes its subdomains' shells and exchanges them while their cores run (--no-overlap: not)\n", p.name);
  // A large grid's start takes a while on the host: say where it went.
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count(); };
  const double backend_s = seconds_since(setup_started);
  if (speaks) fmt::print(stderr, "{}: program read, kernels loaded and arrays allocated in {:.1f} s\n", p.name, backend_s);
  const auto fields_started = std::chrono::steady_clock::now();
  sim::Simulation s(p, std::move(backend));
  if (links) s.set_rank(links);
#ifdef GPEN_HAVE_MPI
  // A throw on this rank ends the communicator before the loop's
  // destructor waits for its stream, which may hold an exchange no other
  // rank will join; simulate() then aborts every rank.
  struct EndCommunicatorOnThrow {
    MpiRanks* mpi;
    int before = std::uncaught_exceptions();
    ~EndCommunicatorOnThrow() {
      if (mpi && std::uncaught_exceptions() > before) mpi->abort_communicator();
    }
  } end_on_throw{mpi};
#endif
  if (o.restart.empty()) s.initialize();
  else s.restart(o.restart);
  const double fields_s = seconds_since(fields_started);
  if (speaks) fmt::print(stderr, "{}: {} in {:.1f} s\n", p.name, o.restart.empty() ? "initial values set" : "fields read from " + o.restart, fields_s);
  if (o.parts > 0) {
    if (!timed) throw UsageError("--parts times the GPU loop of one process (the whole grid, or a rank's under mpirun)");
    const std::vector<sim::GpuBackend::PartTime> parts = timed->time_parts(1e-3, o.parts);
    std::vector<double> ms;
    for (const auto& part : parts) ms.push_back(part.ms);
    // Under mpirun: every rank's, the fastest and the slowest beside rank 0's.
    const std::vector<std::vector<double>> ranks_ms = links ? sim::per_rank_values(links->gather(ms), links->decomposition().count())
                                                            : std::vector<std::vector<double>>{ms};
    fmt::print(stderr, "{}: a step's parts, each repeated {} times alone (ms a step{}):\n", p.name, o.parts,
               links ? "; rank 0's, the fastest rank's, the slowest rank's" : "");
    for (std::size_t i = 0; i < parts.size(); ++i) {
      double lo = ms[i], hi = ms[i];
      for (const auto& r : ranks_ms) lo = std::min(lo, r[i]), hi = std::max(hi, r[i]);
      if (links) fmt::print(stderr, "  {:9.3f} {:9.3f} {:9.3f}  {}\n", ms[i], lo, hi, parts[i].what);
      else fmt::print(stderr, "  {:9.3f}  {}\n", ms[i], parts[i].what);
    }
  }
  fmt::print(stderr, "{}: {}-D {}, {} field{}, {}, {} on {}; output: {}\n", p.name, p.dims,
             fmt::join(std::vector<long long>(p.size.begin(), p.size.begin() + p.dims), "x"), p.fields.size(), p.fields.size() == 1 ? "" : "s", to_string(p.integrator),
             p.dtype == Dtype::Float32 ? "float32" : "float64", s.backend().name(), o.no_output ? "none (--no-output)" : o.out + "/");
  if (p.snapshots.picture && !sim::png_available())
    fmt::print(stderr, "gpen simulate: warning: the program asks for pictures, but this gpen was built without libpng: snapshots will have none\n");
  InterruptFlag interrupt(simulation_interrupt_note(o.device == "cpu"));
  ProgressLine bar;
  sim::RunOptions ro;
  ro.steps = o.steps;
  ro.until = o.until;
  ro.out_dir = o.no_output ? "" : o.out;
  ro.stop_requested = [&] { return interrupt.raised(); };
  const auto started = std::chrono::steady_clock::now();
  const sim::RunResult r = s.run(ro, [&](const sim::StepReport& rep) {
    std::string eta;
    if (rep.fraction_done > 0 && rep.fraction_done < 1) {
      // Time left from the rate so far.
      const double elapsed_s = rep.ms_per_step * 1e-3 * static_cast<double>(rep.taken);
      eta = fmt::format(", ETA {}", format_duration(elapsed_s * (1 - rep.fraction_done) / rep.fraction_done));
    }
    bar.update(fmt::format("step {}  t {:.6g}  dt {:.3g}  {:.3g} ms/step  {:.4g} Mcell-updates/s{}", rep.step, rep.t, rep.dt, rep.ms_per_step,
                           rep.cell_updates_per_s / 1e6, eta));
  });
  bar.finish();
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fmt::print(stderr, "stopped at step {}, t = {:.9g} ({}); {} step{} this run in {:.3f} s", s.step(), s.time(), stop_words(r), r.steps, r.steps == 1 ? "" : "s", run_s);
  if (r.steps > 0)
    fmt::print(stderr, ": {:.4g} ms a step, {:.4g} million cell updates per second (diagnostics and snapshots included)",
               1e3 * run_s / static_cast<double>(r.steps), static_cast<double>(p.size[0] * p.size[1] * p.size[2]) * static_cast<double>(r.steps) / run_s / 1e6);
  fmt::print(stderr, "\n");
  for (std::size_t i = 0; i < r.last_diagnostics.size() && i < r.diagnostic_names.size(); ++i)
    fmt::print(stderr, "  {} = {:.9g}\n", r.diagnostic_names[i], r.last_diagnostics[i]);
  if (!r.last_snapshot.empty()) {
    fmt::print(stderr, "last snapshot: {}\n", r.last_snapshot);
    if (p.snapshots.picture && sim::png_available())
      fmt::print(stderr, "its picture: {}/{}_{}.png\n", r.last_snapshot, p.fields[p.snapshots.picture->field].name, p.dims == 3 ? "xyz"[p.snapshots.picture->axis] : 'z');
  }
  if (o.json && speaks) {
    Json doc = json_document("simulate");
    Json diagnostics = Json::object();
    for (std::size_t i = 0; i < r.last_diagnostics.size() && i < r.diagnostic_names.size(); ++i) diagnostics[r.diagnostic_names[i]] = r.last_diagnostics[i];
    doc.update(Json{{"program", p.name},
                    {"program_hash", p.hash},
                    {"dtype", p.dtype == Dtype::Float32 ? "float32" : "float64"},
                    {"size", std::vector<long long>(p.size.begin(), p.size.begin() + p.dims)},
                    {"device", s.backend().name()},
                    {"ranks", std::vector<int>(ranks.ranks.begin(), ranks.ranks.begin() + p.dims)},
                    {"processes", mpi ? mpi_processes(*mpi) : 1},
                    {"overlap", overlapped},
                    {"integrator", to_string(p.integrator)},
                    {"step", s.step()},
                    {"time", s.time()},
                    {"steps", r.steps},
                    {"seconds", run_s},
                    {"setup_seconds", Json{{"backend", backend_s}, {"fields", fields_s}}},
                    {"ms_per_step", r.steps > 0 ? Json(1e3 * run_s / static_cast<double>(r.steps)) : Json(nullptr)},
                    {"stop", r.stop == sim::RunResult::Stop::Steps     ? "steps"
                             : r.stop == sim::RunResult::Stop::Time    ? "time"
                             : r.stop == sim::RunResult::Stop::Requested ? "interrupted"
                                                                         : "non_finite"},
                    {"message", r.message.empty() ? Json(nullptr) : Json(r.message)},
                    {"diagnostics", diagnostics},
                    {"last_snapshot", r.last_snapshot.empty() ? Json(nullptr) : Json(r.last_snapshot)}});
    JsonChannel::emit(doc);
  }
  if (r.stop == sim::RunResult::Stop::NonFinite) {
    fmt::print(stderr, "gpen simulate: {}\n", r.message);
    return kExitInvalid;
  }
  return r.stop == sim::RunResult::Stop::Requested ? kExitInterrupted : kExitOk;
}

}  // namespace

void add_simulate(CLI::App& app, Runner& run) {
  auto o = std::make_shared<SimulateOptions>();
  auto* cmd = app.add_subcommand("simulate", "Run a program (kind \"program\"): its time loop, diagnostics and snapshots");
  cmd->add_option("program", o->program, "The program's JSON file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--steps", o->steps, "Steps to take")->check(CLI::Range(0LL, kMaxSteps));
  cmd->add_option("--until", o->until, "Simulated time to stop at")
      ->check(number_where(valid_until, kUntilExpected, "TIME", "time"));
  cmd->add_option("--size", o->size, "Grid NX[xNY[xNZ]] in place of the program's (one number: every axis)")->check(non_empty());
  cmd->add_option("--dtype", o->dtype, "float64 or float32 in place of the program's")->check(CLI::IsMember({"float64", "float32"}));
  cmd->add_option("--out", o->out, "Folder of diagnostics.csv and the snapshots")->check(output_folder());
  cmd->add_flag("--no-output", o->no_output, "Write nothing (no diagnostics.csv, no snapshots): for timing runs");
  // Checked by the restart itself, which names a whole DIR.part where DIR is missing.
  cmd->add_option("--restart", o->restart, "Go on from this snapshot folder (its snapshot.json and .npy files)");
  cmd->add_option("--ranks", o->ranks,
                  "PX[xPY[xPZ]]: the grid split into that many subdomains, their ghost zones exchanged; bitwise the undecomposed run with the same "
                  "--periodic-ghosts (fills, or stores with --no-overlap). Under "
                  "mpirun -np PX*PY*PZ: a process and a GPU a subdomain (NCCL); without: every subdomain on this process's GPU, a thread "
                  "each; with --device cpu: the CPU reference on each")
      ->check(non_empty());
  cmd->add_option("--periodic-ghosts", o->periodic_ghosts,
                  "measured (the default: per right-hand side, the faster way, timed at setup; a decomposed run: stores), stores (each "
                  "stage's kernel stores its periodic images) or fills (launches after it). The ghosts are the same either way; the two "
                  "kernels may round the interior in other places, so runs compared bit for bit take the same")
      ->check(CLI::IsMember({"measured", "stores", "fills"}));
  cmd->add_flag("--no-overlap", o->no_overlap,
                "A decomposed run computes each stage whole, then exchanges its ghosts (by default a subdomain's shell goes first, on a "
                "stream of high priority, and its exchange hides behind the core; its kernels then store no periodic ghosts along split "
                "axes)");
  cmd->add_option("--parts", o->parts,
                  "Before the run, time each part of a step (right-hand sides, fills, exchanges) repeated N times alone (each right-hand side "
                  "whole, the exchanges in the loop's stream: what an overlapped stage hides is the run's time against --no-overlap's)")
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--device", o->device, "gpu (the default), or cpu: the CPU reference (double precision; for small grids and checks)")
      ->check(CLI::IsMember({"gpu", "cpu"}));
  cmd->add_flag("--json", o->json, "Print the run's result as JSON (gpen.simulate/1, docs/json.md); the rest goes to stderr");
  cmd->callback([&run, o] {
    if (o->json) JsonChannel::open();
    run = [o] { return simulate(*o); };
  });
}

}  // namespace gpen::cli
