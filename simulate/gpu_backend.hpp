// A program's time loop on the GPU: its stencils on the fields' buffers
// (rk3 and euler: each fused with its stage's update, fused_update.hpp;
// rk4: as written, the tuned variant for the size where `gpen tune` stored
// one, then an update pass), the boundary conditions (an axis of every
// field a launch) and the reductions, all in one stream. A step waits for
// nothing but the largest speed of the CFL condition (one value read
// back); diagnostics and snapshots read back what they show.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpen/families/common/device_buffer.hpp"
#include "gpen/simulate/backend.hpp"
#include "gpen/simulate/program.hpp"
#include "gpen/simulate/rank_links.hpp"
#include "gpen/runtime/device.hpp"

namespace gpen::sim {

struct GpuOptions {
  // Tunables ("name=value") for every right-hand side, over the spec's
  // defaults (benchmarks of variants); without them each runs the variant
  // `gpen tune` stored for its spec as written at this size, else the defaults.
  std::vector<std::string> rhs_set;
  // The fields' arrays, the caller's (views: DeviceBuffer::view, packed or
  // with pitches), one per program field in its order, each with the
  // program's dtype, dims and size and the field's ghost width: the state
  // lives there. The loop allocates a second array per field for its
  // stages and, where a step left the state in it, copies it back when
  // Simulation::run returns (settle). Empty: gpen allocates every array.
  std::vector<const DeviceBuffer*> fields;
  // Where a 2N stage's periodic ghosts come from (fused_update.hpp): the
  // stores of the kernels that make the state, or fill launches after
  // them. Measured: per right-hand side, both timed at setup on the
  // loop's arrays, the faster kept (the ghosts are the same bits either way);
  // on a decomposed grid (links) the stores, so that every rank fills them
  // the same way (an exchange's slabs carry the other axes' ghosts).
  enum class PeriodicGhosts { Measured, Stores, Fills } periodic_ghosts = PeriodicGhosts::Measured;
  // The axes (bit a: axis a) along which the stores may make periodic
  // ghosts; fills make them along the others. A decomposed run whose stages
  // overlap their exchanges leaves its split axes out as well (a box's
  // images there would land in another box): a whole run given the same
  // axes runs its kernels, bit for bit (comparisons).
  unsigned image_axes = ~0u;
  // A 2N loop with a CFL step: the time step computed on the device and
  // read there by the stages' kernels (Backend::steps_on_device), so that
  // no step waits for the host. false: the host computes it from the
  // largest speed it reads back, and each step waits for that.
  bool device_time_step = true;
  // One rank's subdomain of a decomposed grid (issue 30): the loop then
  // runs on the links' subdomain, p's params and spacing; its faces with a
  // neighbour are filled by the links' exchange, an axis at a time after
  // that axis's boundary fill (no stores of periodic images along split
  // axes); the CFL speed, diagnostics and the non-finite search combine
  // every rank's (collective: every rank calls the same methods in the same
  // order). set_field and field take and give the subdomain's interiors.
  // Null: the whole grid.
  std::shared_ptr<RankLinks> links;
  // With links, a 2N loop: each stage computes its shell (the points within
  // the widest ghost of every face the exchange fills; overlap_regions.hpp)
  // first, on a stream of high priority, and exchanges it there while its
  // core runs on the loop's stream; the loop's fills wait for both. The
  // boxes span the axes that are not split, and store periodic images
  // along those alone (`image_axes`). false: each stage whole, then its
  // exchange.
  bool overlap = true;
};

class GpuBackend : public Backend {
 public:
  // Compiles (through the cache) and loads every kernel, allocates every
  // array: nothing is allocated or compiled once steps run.
  GpuBackend(const Program& p, const Context& ctx, const GpuOptions& options = {});
  ~GpuBackend() override;

  void set_field(std::size_t f, const std::vector<double>& interior) override;
  std::vector<double> field(std::size_t f) const override;
  std::size_t field_count() const override;
  // Waits for the fills (a caller's array may be read in another stream).
  void fill_boundaries() override;
  void settle() override;
  void step(double dt) override;
  double max_speed() override;
  bool steps_on_device() const override;
  void set_clock(double t) override;
  void launch_step(double stop) override;
  Clock wait_step() override;
  std::vector<double> diagnostics() override;
  std::optional<NonFinite> first_non_finite() const override;
  std::string name() const override;
  // Per right-hand side of a 2N loop with periodic faces: where its fields'
  // periodic ghosts come from, and what both ways cost where they were measured.
  const std::vector<std::string>& periodic_ghost_choices() const;
  // Whether the stages overlap their exchanges (GpuOptions::overlap, where it applies).
  bool overlapped() const;
  // The points of the core, which runs beside the shell (overlapped()), else 0.
  long long core_points() const;

  // A step's launches a kind at a time, each repeated `repeat` times back to
  // back and timed with events: what a step's parts cost without the loop
  // around them, per step (ms). `rhs` marks the right-hand sides (with
  // their fused updates); the rest is the loop's overhead. The fields'
  // state is left as it was (rk4's update passes, which change it, are not
  // among the parts). On a decomposed grid also each split axis's exchange
  // (collective: every rank calls it).
  struct PartTime {
    std::string what;
    double ms = 0;
    bool rhs = false;
    double bytes = 0;  // each array it reads or writes once, per step: the least it can move
  };
  std::vector<PartTime> time_parts(double dt, int repeat);

  CUstream stream() const;
  // Field f's whole padded array, ghosts included (tests: the boundaries).
  std::vector<double> padded_field(int f) const;
  // Device allocations made since the constructor returned (none, by design).
  std::size_t allocations_since_setup() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace gpen::sim
