// The ghost-zone exchange between subdomains on the GPU (issue 30): the
// pack and unpack kernels against the host model for every face of every
// axis at odd sizes (packed and pitched arrays, both dtypes), and several
// subdomains of one field on one GPU through the local transport, bitwise
// the periodic fill of the undecomposed array and the host model.
#include <cstring>
#include <limits>

#include <doctest/doctest.h>

#include "gpen/families/common/ghost_fill.hpp"
#include "gpen/simulate/boundaries.hpp"
#include "gpen/simulate/halo_gpu.hpp"
#include "halo_support.hpp"
#ifdef GPEN_HAVE_NCCL
#include "gpen/simulate/halo_nccl.hpp"
#include "nccl_support.hpp"
#endif

using namespace gpen;
using namespace gpen::sim;

namespace {

Context& halo_ctx() {
  static Context c(0);
  return c;
}

// Field f's subdomains on one GPU (rank r's array parts[r]), each face
// that has a neighbour filled from that neighbour's slab, an axis at a
// time, x first, through HaloFaces::copy_from_peers: the local ranks'
// transport without their threads.
class SequentialExchange {
 public:
  SequentialExchange(const ProgramField& f, const Decomposition& d, std::vector<const DeviceBuffer*> parts)
      : d_(d), parts_(std::move(parts)), copier_(parts_.at(0)->dtype(), halo_ctx()) {
    REQUIRE(static_cast<int>(parts_.size()) == d_.count());
    for (int r = 0; r < d_.count(); ++r) {
      check_halo_part(f, d_, r, parts_[static_cast<std::size_t>(r)], parts_[0]->dtype());
      faces_.emplace_back(f, d_, r, parts_[0]->dtype());
    }
  }
  void exchange(CUstream stream) const {
    for (int ax = 0; ax < d_.dims(); ++ax) {
      for (int r = 0; r < d_.count(); ++r) faces_[static_cast<std::size_t>(r)].pack(ax, copier_, *parts_[static_cast<std::size_t>(r)], stream);
      for (int r = 0; r < d_.count(); ++r) {
        faces_[static_cast<std::size_t>(r)].copy_from_peers(ax, [&](int peer) -> const HaloFaces& { return faces_[static_cast<std::size_t>(peer)]; },
                                                             parts_[0]->dtype(), stream);
        faces_[static_cast<std::size_t>(r)].unpack(ax, copier_, *parts_[static_cast<std::size_t>(r)], stream);
      }
    }
  }

 private:
  Decomposition d_;
  std::vector<const DeviceBuffer*> parts_;
  std::vector<HaloFaces> faces_;  // a rank's
  HaloCopier copier_;
};

std::vector<double> download(CUdeviceptr p, std::size_t count, Dtype dt) {
  std::vector<double> out(count);
  if (dt == Dtype::Float64) {
    GPEN_CU(cuMemcpyDtoH(out.data(), p, count * 8), "test download");
  } else {
    std::vector<float> f(count);
    GPEN_CU(cuMemcpyDtoH(f.data(), p, count * 4), "test download");
    for (std::size_t i = 0; i < count; ++i) out[i] = f[i];
  }
  return out;
}

void upload(CUdeviceptr p, const std::vector<double>& v, Dtype dt) {
  if (dt == Dtype::Float64) {
    GPEN_CU(cuMemcpyHtoD(p, v.data(), v.size() * 8), "test upload");
  } else {
    std::vector<float> f(v.begin(), v.end());
    GPEN_CU(cuMemcpyHtoD(p, f.data(), f.size() * 4), "test upload");
  }
}

// A host array laid out with pitches (row, plane, in elements) for a view: the padded array's values at their pitched places, NaN between.
std::vector<double> pitched_image(const HostArray& a, Pitch pitch) {
  const auto pad = a.padded();
  std::vector<double> img(static_cast<std::size_t>(pitch.plane * pad[2]), std::numeric_limits<double>::quiet_NaN());
  for (long long k = 0; k < pad[2]; ++k)
    for (long long j = 0; j < pad[1]; ++j)
      for (long long i = 0; i < pad[0]; ++i) img[static_cast<std::size_t>(i + j * pitch.row + k * pitch.plane)] = a.data[static_cast<std::size_t>(i + pad[0] * (j + pad[1] * k))];
  return img;
}

void check_faces(Dtype dt, int dims, std::array<long long, 3> shape, int g, bool pitched) {
  CAPTURE(to_string(dt));
  CAPTURE(dims);
  CAPTURE(pitched);
  const HaloCopier copier(dt, halo_ctx());
  HostArray host(dims, shape, g);
  fill_random(host, 99, dt);
  const auto pad = host.padded();
  const Pitch pitch = pitched ? Pitch{pad[0] + 5, (pad[0] + 5) * (pad[1] + 3)} : Pitch{pad[0], pad[0] * pad[1]};
  const std::vector<double> image = pitched ? pitched_image(host, pitch) : host.data;
  DeviceMemory mem(image.size() * size_of(dt));
  upload(mem.get(), image, dt);
  const DeviceBuffer a = DeviceBuffer::view(mem.get(), dt, dims, shape, g, dims == 1 || !pitched ? Pitch{} : pitch);
  for (int axis = 0; axis < dims; ++axis)
    for (int side = 0; side < 2; ++side) {
      CAPTURE(axis);
      CAPTURE(side);
      for (const HaloBox& box : {send_box(dims, shape, g, axis, side), receive_box(dims, shape, g, axis, side)}) {
        const auto n = static_cast<std::size_t>(box.points());
        DeviceMemory buf(n * size_of(dt));
        upload(buf.get(), std::vector<double>(n, std::numeric_limits<double>::quiet_NaN()), dt);
        copier.pack(a, box, buf.get(), nullptr);
        CHECK(test::differing_values(download(buf.get(), n, dt), pack(host, box), true) == 0);
        // Unpack new values into the box: they land there, nothing else moves.
        HostArray changed = host;
        std::vector<double> values(n);
        for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(0.5 + static_cast<double>(i) / 7.0);
        unpack(changed, box, values);
        upload(buf.get(), values, dt);
        copier.unpack(a, box, buf.get(), nullptr);
        CHECK(test::differing_values(download(mem.get(), image.size(), dt), pitched ? pitched_image(changed, pitch) : changed.data, true) == 0);
        upload(mem.get(), image, dt);  // back as it was
      }
    }
}

// P subdomains of a field on the GPU exchanged through the local transport:
// each rank's padded array against the window of the undecomposed array
// filled by the GPU's periodic fill (all faces periodic) or by the host
// model (z faces "none"), bit for bit; periodic runs start from NaN ghosts.
void check_local_exchange(Dtype dt, int dims, std::array<long long, 3> size, int g, RankGrid grid, BoundaryKind z) {
  CAPTURE(to_string(dt));
  CAPTURE(grid.ranks[0]);
  CAPTURE(grid.ranks[1]);
  CAPTURE(grid.ranks[2]);
  CAPTURE(to_string(z));
  const ProgramField f = test::periodic_but_z(g, z);
  const Decomposition d(size, dims, grid, g);
  HostArray global(dims, size, g);
  fill_random(global, 7 + static_cast<std::uint64_t>(grid.count()), dt);
  std::vector<DeviceBuffer> parts;
  std::vector<HostArray> model;
  for (int r = 0; r < d.count(); ++r) {
    HostArray w = subdomain_window(global, d.subdomain(r));
    if (z == BoundaryKind::Periodic) fill_ghosts_nan(w);
    parts.emplace_back(dt, dims, d.subdomain(r).extent, g);
    parts.back().upload(w.data);
    model.push_back(w);
  }
  std::vector<const DeviceBuffer*> views;
  for (const auto& b : parts) views.push_back(&b);
  const SequentialExchange exchange(f, d, views);
  const std::size_t before = DeviceMemory::allocations();
  exchange.exchange(nullptr);
  halo_ctx().synchronize();
  CHECK(DeviceMemory::allocations() == before);
  if (z == BoundaryKind::Periodic) {
    DeviceBuffer whole(dt, dims, size, g);
    whole.upload(global.data);
    PeriodicFill(dt, halo_ctx()).launch(whole);
    HostArray filled = global;
    filled.data = whole.download();
    for (int r = 0; r < d.count(); ++r) {
      CAPTURE(r);
      CHECK(test::differing_values(parts[static_cast<std::size_t>(r)].download(), subdomain_window(filled, d.subdomain(r)).data, true) == 0);
    }
  } else {
    exchange_halos(f, d, model);
    for (int r = 0; r < d.count(); ++r) {
      CAPTURE(r);
      CHECK(test::differing_values(parts[static_cast<std::size_t>(r)].download(), model[static_cast<std::size_t>(r)].data, true) == 0);
    }
  }
}

}  // namespace

TEST_CASE("halo pack and unpack kernels: every face's send and receive slab as the host model, packed and pitched") {
  for (Dtype dt : {Dtype::Float64, Dtype::Float32}) {
    check_faces(dt, 3, {13, 11, 9}, 3, false);
    check_faces(dt, 3, {13, 11, 9}, 3, true);
    check_faces(dt, 2, {17, 9, 1}, 2, false);
    check_faces(dt, 2, {17, 9, 1}, 2, true);
    check_faces(dt, 1, {23, 1, 1}, 1, false);
  }
}

TEST_CASE("subdomains on one GPU through the local transport: bitwise the undecomposed periodic fill") {
  for (Dtype dt : {Dtype::Float64, Dtype::Float32}) {
    for (RankGrid grid : {RankGrid{{2, 1, 1}}, RankGrid{{3, 1, 1}}, RankGrid{{2, 2, 1}}, RankGrid{{1, 2, 2}}, RankGrid{{2, 2, 2}}, RankGrid{{4, 2, 1}},
                          RankGrid{{1, 1, 1}}})
      check_local_exchange(dt, 3, {13, 11, 9}, 3, grid, BoundaryKind::Periodic);
    check_local_exchange(dt, 2, {17, 9, 1}, 2, RankGrid{{3, 2, 1}}, BoundaryKind::Periodic);
    check_local_exchange(dt, 1, {23, 1, 1}, 1, RankGrid{{8, 1, 1}}, BoundaryKind::Periodic);
    // z faces "none": the global ones untouched, the inner ones exchanged, as the host model.
    check_local_exchange(dt, 3, {13, 11, 9}, 3, RankGrid{{2, 1, 3}}, BoundaryKind::None);
  }
}

#ifdef GPEN_HAVE_NCCL
TEST_CASE("one rank through NCCL on periodic boundaries: bitwise the fill without NCCL") {
  const test::OneRankComm one(halo_ctx());
  for (Dtype dt : {Dtype::Float64, Dtype::Float32})
    for (int dims : {1, 2, 3}) {
      CAPTURE(to_string(dt));
      CAPTURE(dims);
      const std::array<long long, 3> size = dims == 3 ? std::array<long long, 3>{13, 11, 9} : dims == 2 ? std::array<long long, 3>{17, 9, 1} : std::array<long long, 3>{23, 1, 1};
      const int g = dims == 3 ? 3 : 2;
      const ProgramField f = test::periodic_but_z(g, BoundaryKind::Periodic);
      const Decomposition d(size, dims, RankGrid{}, g);
      HostArray host(dims, size, g);
      fill_random(host, 5, dt);
      DeviceBuffer whole(dt, dims, size, g), through_nccl(dt, dims, size, g);
      whole.upload(host.data);
      fill_ghosts_nan(host);
      through_nccl.upload(host.data);
      PeriodicFill(dt, halo_ctx()).launch(whole);
      const NcclHaloExchange exchange(f, d, 0, through_nccl, one.comm, halo_ctx());
      exchange.exchange(nullptr);
      halo_ctx().synchronize();
      CHECK(test::differing_values(through_nccl.download(), whole.download(), true) == 0);
    }
}
#endif
