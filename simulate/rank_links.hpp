// What a GPU time loop on one rank's subdomain (issue 30) needs from the
// other ranks, whatever carries it: the ghost-zone exchange of an axis, the
// CFL speed's maximum in stream order, and host values gathered from every
// rank. Two transports implement it: NCCL between processes (halo_nccl.hpp)
// and threads of one process sharing a GPU (local_links.hpp), which runs
// the same loop with P subdomains on one GPU.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "gpen/families/common/device_buffer.hpp"
#include "gpen/simulate/backend.hpp"
#include "gpen/simulate/decomposition.hpp"
#include "gpen/simulate/program.hpp"

namespace gpen {
struct AssociativeOp;
}

namespace gpen::sim {

class RankLinks {
 public:
  virtual ~RankLinks() = default;
  virtual const Decomposition& decomposition() const = 0;
  virtual int rank() const = 0;
  // The loop's arrays and stream, once, before anything else: states[q][f]
  // is field f's array in state q (a 2N loop's pair has two states, rk4
  // one), shaped as this rank's subdomain with the field's ghost width;
  // gather() runs after what the loop queued on `stream`.
  virtual void attach(const std::vector<std::vector<const DeviceBuffer*>>& states, CUstream stream) = 0;
  // Every field's ghosts across the faces of `axis` that have a neighbour,
  // in state `state`, from the neighbours' slabs, in `stream`'s order. Every
  // rank calls it for the same axis and state in the same order.
  virtual void exchange_axis(int axis, int state, CUstream stream) = 0;
  // `count` values of `dtype` at `values` replaced, in `stream`'s order,
  // by their maximum over the ranks (the same bits on every rank).
  virtual void max_in_place(CUdeviceptr values, std::size_t count, Dtype dtype, CUstream stream) = 0;
  // Every rank's `mine` (each rank as many values), rank after rank, on
  // every rank; waits for all of them, and for the loop's stream. No values:
  // a meeting of every rank alone.
  virtual std::vector<double> gather(const std::vector<double>& mine) = 0;
};

// Whether field f's face (axis, side) on `rank` is filled by the exchange
// (an axis split over several ranks, a neighbour across the face: inside
// the grid, or wrapped where f is periodic there) rather than by its
// boundary condition.
bool exchanged_face(const ProgramField& f, const Decomposition& d, int rank, int axis, int side);

// Per rank, per output of `ops`, a value, folded output by output by its
// operation, rank after rank: what a reduction over the whole grid gives
// (a maximum bit for bit, a sum to rounding).
std::vector<double> fold_over_ranks(const std::vector<const AssociativeOp*>& ops, const std::vector<std::vector<double>>& per_rank);

// Every output's operation of reductions `rs`, reduction by reduction:
// the order of their results (Backend::diagnostics).
std::vector<const AssociativeOp*> output_ops(const std::vector<ReduceUse>& rs);

// `gathered` (every rank's `per_rank` values, rank after rank) cut per rank.
std::vector<std::vector<double>> per_rank_values(const std::vector<double>& gathered, int ranks);

// Whether `op` is a maximum on sampled values (its fold over ranks may then
// be NCCL's max).
bool acts_as_max(const AssociativeOp& op);

// A rank's first non-finite value (global coordinates) and every rank's
// gathered: the first in the whole grid's order (field by field, then z,
// y, x), on every rank.
std::optional<NonFinite> first_over_ranks(const std::optional<NonFinite>& mine, const Subdomain& s, RankLinks& links);

}  // namespace gpen::sim
