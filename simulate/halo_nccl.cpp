#include "halo_nccl.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpen/families/common/kernel.hpp"
#include "gpen/runtime/driver.hpp"

namespace gpen::sim {

NcclHaloExchange::NcclHaloExchange(const ProgramField& f, const Decomposition& d, int rank, const DeviceBuffer& part, ncclComm_t comm, const Context& ctx)
    : part_((check_halo_part(f, d, rank, &part, part.dtype()), part)),
      dims_(d.dims()),
      ghost_(f.ghost),
      comm_(comm),
      faces_(f, d, rank, part.dtype()),
      copier_(part.dtype(), ctx) {}

namespace {

// One field's faces and its array in the state being exchanged.
struct FieldPart {
  const HaloFaces* faces;
  const DeviceBuffer* part;
};

ncclDataType_t nccl_type(Dtype dtype) { return dtype == Dtype::Float64 ? ncclFloat64 : ncclFloat32; }

// The slabs of `axis` of every field: packed, sent and received in one
// group (sends lower face first, receives upper face first, field after
// field, so that a peer on both sides matches each slab), unpacked.
void exchange_through_nccl(const std::vector<FieldPart>& fields, int ax, const HaloCopier& copier, ncclComm_t comm, CUstream stream) {
  for (const FieldPart& f : fields) f.faces->pack(ax, copier, *f.part, stream);
  const NcclApi& n = nccl();
  nccl_check(n.ncclGroupStart(), "starting a ghost-zone exchange's group");
  for (const FieldPart& f : fields)
    for (int side = 0; side < 2; ++side) {
      const auto& fc = f.faces->face[static_cast<std::size_t>(ax)][static_cast<std::size_t>(side)];
      if (fc.peer >= 0)
        nccl_check(n.ncclSend(reinterpret_cast<const void*>(fc.sent.get()), static_cast<std::size_t>(fc.send.points()), nccl_type(f.part->dtype()), fc.peer,
                              comm, stream),
                   "sending a ghost-zone slab");
    }
  for (const FieldPart& f : fields)
    for (int side = 1; side >= 0; --side) {
      const auto& fc = f.faces->face[static_cast<std::size_t>(ax)][static_cast<std::size_t>(side)];
      if (fc.peer >= 0)
        nccl_check(n.ncclRecv(reinterpret_cast<void*>(fc.received.get()), static_cast<std::size_t>(fc.receive.points()), nccl_type(f.part->dtype()),
                              fc.peer, comm, stream),
                   "receiving a ghost-zone slab");
    }
  nccl_check(n.ncclGroupEnd(), "ending a ghost-zone exchange's group");
  for (const FieldPart& f : fields) f.faces->unpack(ax, copier, *f.part, stream);
}

// gather()'s values a rank at most (diagnostics, a non-finite value's place).
constexpr std::size_t kGatherValues = 256;

}  // namespace

void NcclHaloExchange::exchange_axis(int ax, CUstream stream) const {
  exchange_through_nccl({FieldPart{&faces_, &part_}}, ax, copier_, comm_, stream);
}

void NcclHaloExchange::exchange(CUstream stream) const {
  if (ghost_ == 0) return;
  for (int ax = 0; ax < dims_; ++ax) exchange_axis(ax, stream);
}

NcclRankLinks::NcclRankLinks(const Program& p, const Decomposition& d, int rank, ncclComm_t comm, const Context& ctx)
    : p_(p),
      d_(d),
      rank_(rank),
      comm_(comm),
      copier_(p.dtype, ctx),
      values_(static_cast<std::size_t>(d.count()) * kGatherValues * sizeof(double)) {
  for (const ProgramField& f : p.fields) faces_.emplace_back(f, d_, rank_, p.dtype);
}

void NcclRankLinks::attach(const std::vector<std::vector<const DeviceBuffer*>>& states, CUstream stream) {
  for (const auto& arrays : states) {
    if (arrays.size() != p_.fields.size())
      throw BindingError(fmt::format("rank {}: {} arrays for the program's {} fields", rank_, arrays.size(), p_.fields.size()));
    for (std::size_t f = 0; f < arrays.size(); ++f) check_halo_part(p_.fields[f], d_, rank_, arrays[f], p_.dtype);
  }
  states_ = states;
  stream_ = stream;
  // NCCL connects ranks on a kind of operation's first use: the all-reduce
  // and all-gather here, at setup, not in a run's first steps (the
  // exchange's send and receive connect at the first boundary fill).
  all_ranks_max(values_.get(), 1, Dtype::Float64, comm_, stream_);
  gather({0.0});
}

void NcclRankLinks::exchange_axis(int axis, int state, CUstream stream) {
  if (state < 0 || static_cast<std::size_t>(state) >= states_.size())
    throw std::logic_error(fmt::format("rank {}: an exchange of state {}, {} attached", rank_, state, states_.size()));
  std::vector<FieldPart> fields;
  for (std::size_t f = 0; f < faces_.size(); ++f) fields.push_back({&faces_[f], states_[static_cast<std::size_t>(state)][f]});
  exchange_through_nccl(fields, axis, copier_, comm_, stream);
}

void NcclRankLinks::max_in_place(CUdeviceptr values, std::size_t count, Dtype dtype, CUstream stream) { all_ranks_max(values, count, dtype, comm_, stream); }

std::vector<double> NcclRankLinks::gather(const std::vector<double>& mine) {
  if (mine.size() > kGatherValues) throw std::logic_error(fmt::format("gather through NCCL: {} values a rank, at most {}", mine.size(), kGatherValues));
  const std::size_t count = std::max<std::size_t>(1, mine.size());  // none: a meeting alone
  std::vector<double> all(count * static_cast<std::size_t>(d_.count()), 0.0);
  std::copy(mine.begin(), mine.end(), all.begin() + static_cast<std::ptrdiff_t>(count * static_cast<std::size_t>(rank_)));
  const CUdeviceptr mine_at = values_.get() + count * static_cast<std::size_t>(rank_) * sizeof(double);
  if (states_.empty()) throw std::logic_error(fmt::format("rank {}: gather before the loop attached its arrays and stream", rank_));
  // In the loop's stream, after the steps it holds. The exchanges of
  // stages that overlap run on the shell's stream, but between events that
  // order them with the loop's (each stage's shell waits for the loop, the
  // loop for the shell): every rank makes the communicator's NCCL calls in
  // one order, and none run at once.
  // A copy from pageable memory may still be in flight when it returns:
  // waited for, as DeviceMemory::upload does (the last gather's all-gather
  // had ended before it returned).
  GPEN_CU(cuMemcpyHtoD(mine_at, all.data() + count * static_cast<std::size_t>(rank_), count * sizeof(double)), "uploading a rank's values to gather");
  GPEN_CU(cuStreamSynchronize(nullptr), "waiting for the upload");
  nccl_check(nccl().ncclAllGather(reinterpret_cast<const void*>(mine_at), reinterpret_cast<void*>(values_.get()), count, ncclFloat64, comm_, stream_),
             "gathering every rank's values (all-gather)");
  GPEN_CU(cuStreamSynchronize(stream_), "waiting for the all-gather");
  GPEN_CU(cuMemcpyDtoH(all.data(), values_.get(), all.size() * sizeof(double)), "reading every rank's values back");
  if (mine.empty()) return {};
  return all;
}

void all_ranks_max(CUdeviceptr values, std::size_t count, Dtype dtype, ncclComm_t comm, CUstream stream) {
  void* v = reinterpret_cast<void*>(values);
  nccl_check(nccl().ncclAllReduce(v, v, count, dtype == Dtype::Float64 ? ncclFloat64 : ncclFloat32, ncclMax, comm, stream),
             "the maximum over the ranks (all-reduce)");
}

}  // namespace gpen::sim
