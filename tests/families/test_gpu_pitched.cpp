// GPU: kernels on arrays whose rows and planes the caller padded (a view's
// Pitch). Each field of a workload is copied into an array of its own
// pitch whose gaps (the bytes between rows and planes) hold NaN; the kernel
// runs on views of those arrays; the outputs are copied back into the
// workload's packed buffers and verified there against the CPU reference,
// and every gap must come back untouched. Pitches differ from field to
// field, so that a kernel that used one field's pitch for another fails.
#include <cstring>
#include <map>
#include <optional>

#include "gpu_support.hpp"
#include "test_support.hpp"
#include "gpen/families/common/ghost_fill.hpp"
#include "gpen/families/common/workload.hpp"
#include "gpen/families/stencil/stencil_kernel.hpp"

using namespace gpen;

namespace {

Context& ctx() {
  static Context c(0);
  return c;
}

constexpr unsigned char kGap = 0xFF;  // every byte of a NaN, in float32 and float64

std::vector<unsigned char> bytes_of(CUdeviceptr p, std::size_t n) {
  std::vector<unsigned char> h(n);
  GPEN_CU(cuMemcpyDtoH(h.data(), p, n), "test: copying to the host");
  return h;
}

// A copy of a packed buffer in an array of rows `row_pad` elements longer
// than its padded row and planes `plane_pad` rows more than its padded
// column (3-D); the gaps kGap.
class PitchedCopy {
 public:
  PitchedCopy(const DeviceBuffer& packed, long long row_pad, long long plane_pad)
      : elem_(size_of(packed.dtype())), padded_(packed.padded()) {
    // A 1-D array has no rows to pad: its copy is packed.
    const long long row = padded_[0] + (packed.dims() > 1 ? row_pad : 0);
    pitch_ = {row, row * (padded_[1] + (packed.dims() == 3 ? plane_pad : 0))};
    bytes_ = static_cast<std::size_t>(pitch_.plane * padded_[2]) * elem_;
    std::vector<unsigned char> host(bytes_, kGap);
    const auto src = bytes_of(packed.get(), packed.bytes());
    for_each_row([&](std::size_t at, std::size_t from) { std::memcpy(host.data() + at, src.data() + from, padded_[0] * elem_); });
    mem_ = DeviceMemory(bytes_);
    mem_.upload(host.data(), bytes_);
    view_.emplace(DeviceBuffer::view(mem_.get(), packed.dtype(), packed.dims(), packed.shape(), packed.ghost(), pitch_));
  }

  const DeviceBuffer& view() const { return *view_; }
  Pitch pitch() const { return pitch_; }

  // The gap bytes that are no longer kGap.
  std::size_t gaps_written() const {
    const auto got = bytes_of(mem_.get(), bytes_);
    std::vector<bool> in_row(bytes_, false);
    for_each_row([&](std::size_t at, std::size_t) { std::fill(in_row.begin() + at, in_row.begin() + at + padded_[0] * elem_, true); });
    std::size_t written = 0;
    for (std::size_t b = 0; b < bytes_; ++b) written += !in_row[b] && got[b] != kGap;
    return written;
  }

  // The padded array into `packed`, byte for byte.
  void copy_into(const DeviceBuffer& packed) const {
    const auto got = bytes_of(mem_.get(), bytes_);
    std::vector<unsigned char> dst(packed.bytes());
    for_each_row([&](std::size_t at, std::size_t to) { std::memcpy(dst.data() + to, got.data() + at, padded_[0] * elem_); });
    GPEN_CU(cuMemcpyHtoD(packed.get(), dst.data(), dst.size()), "test: copying to the GPU");
  }

 private:
  // f(byte offset of a padded row here, its byte offset in the packed array)
  template <class F>
  void for_each_row(F f) const {
    for (long long k = 0; k < padded_[2]; ++k)
      for (long long j = 0; j < padded_[1]; ++j)
        f(static_cast<std::size_t>(j * pitch_.row + k * pitch_.plane) * elem_,
          static_cast<std::size_t>((k * padded_[1] + j) * padded_[0]) * elem_);
  }
  std::size_t elem_;
  std::array<long long, 3> padded_;
  Pitch pitch_;
  std::size_t bytes_ = 0;
  DeviceMemory mem_;
  std::optional<DeviceBuffer> view_;
};

// Rows padded so that every pitch is a multiple of 8 elements (with a
// padded row of a multiple of the vector width, vector accesses stay
// possible), or by an odd count (they do not).
long long row_pad(const DeviceBuffer& b, int field, bool aligned) {
  const long long row = b.padded()[0];
  return aligned ? (8 - row % 8) % 8 + 8 * field : 1 + 2 * field;
}

// How the fields' arrays are padded: each its own way (the row and plane
// pads grow with the field's number), or all alike.
enum class Padding { PerField, Alike };

// `s` with the tunables `set` at `size`, on pitched copies of a workload's
// fields: verified against the CPU reference, gaps untouched. For a
// stencil, returns whether its own kernel ran (its fields sharing pitches)
// rather than the unit of each field's own pitch.
std::optional<bool> check_pitched(const Spec& s, const std::vector<std::string>& set, std::array<long long, 3> size, bool aligned,
                                  Padding padding = Padding::PerField) {
  WorkloadOptions wo;
  wo.rotate_for_l2 = false;
  Workload w(ctx(), s, size, wo);
  w.poison_outputs();
  const auto k = make_kernel(s, s.choose(set), ctx());
  std::map<std::string, PitchedCopy> copies;
  FieldBindings views;
  int f = 0;
  for (const auto& [name, buf] : w.bindings(0)) {
    const auto& c = copies.emplace(std::piecewise_construct, std::forward_as_tuple(name),
                                   std::forward_as_tuple(*buf, row_pad(*buf, padding == Padding::Alike ? 0 : f, aligned),
                                                         2 + (padding == Padding::Alike ? 0 : f))).first->second;
    views[name] = &c.view();
    ++f;
  }
  Stream stream;
  k->launch(views, w.params(), stream.get());
  stream.synchronize();
  INFO(s.name << " " << to_string(s.dtype) << " " << k->source().name << " size " << size[0] << "x" << size[1] << "x" << size[2]
               << (aligned ? ", pitches multiples of 8" : ", odd pitches"));
  for (const auto& [name, c] : copies) {
    INFO("field " << name << ": row pitch " << c.pitch().row << ", plane pitch " << c.pitch().plane);
    CHECK(c.gaps_written() == 0);
  }
  for (const auto* out : s.output_fields()) copies.at(out->name).copy_into(*w.bindings(0).at(out->name));
  const Comparison cmp = w.verify_on_cpu();
  INFO(cmp.summary());
  CHECK(cmp.pass);
  if (const auto* stencil = dynamic_cast<const StencilKernel*>(k.get())) {
    const StencilKernel& ran = stencil->kernel_for(views);
    if (&ran != stencil) CHECK_FALSE(ran.plan().shared_pitches);  // the unit of every field's own pitch
    return &ran == stencil;
  }
  return std::nullopt;
}

Spec spec_of(const std::string& path, Dtype dtype) { return load_spec(gpen::test::source_dir() + "/specs/" + path + ".json", dtype); }

// Sizes that are not multiples of any tile, per dims.
std::array<long long, 3> size_for(const Spec& s) {
  if (s.dims == 3) return {67, 45, 33};
  if (s.dims == 2) return {131, 77, 1};
  return {100003, 1, 1};
}

}  // namespace

TEST_CASE("pitched arrays: every stencil strategy, float64 and float32, pitches that allow vector accesses and pitches that do not") {
  for (Dtype dt : {Dtype::Float64, Dtype::Float32}) {
    const Spec s = spec_of("stencil/laplacian3d_o8", dt);
    for (const auto& v : s.find_tunable("strategy")->values)
      for (bool aligned : {true, false}) check_pitched(s, {"strategy=" + to_string(v)}, {aligned ? 64 : 67, 45, 33}, aligned);
  }
}

TEST_CASE("pitched arrays: fused multi-field stencils, mixed derivatives, a 2-D stencil") {
  for (const char* path : {"stencil/continuity3d", "stencil/momentum_visc3d", "stencil/induction3d", "stencil/laplacian2d_o4"}) {
    // The default (staged planes, or the register march), a thread a point, staged planes.
    const Spec s = spec_of(path, Dtype::Float64);
    for (bool aligned : {true, false}) check_pitched(s, {}, size_for(s), aligned);
    check_pitched(s, {"strategy=direct"}, size_for(s), false);
    check_pitched(s, {"strategy=stage"}, size_for(s), false);
  }
}

TEST_CASE("pitched arrays: fused stencils sharing pitches run their own kernel on fields padded alike, the unit of each field's own pitch on fields padded unalike") {
  // Inputs of one ghost width and outputs of another: with shared_pitches
  // each kind uses its first field's pitch where the arrays are padded
  // alike. Without it (or another strategy) every field has its own.
  for (Dtype dt : {Dtype::Float64, Dtype::Float32})
    for (const char* path : {"stencil/momentum_visc3d", "stencil/mhd_iso3d", "stencil/continuity3d"}) {
      const Spec s = spec_of(path, dt);
      CHECK(check_pitched(s, {"shared_pitches=1"}, size_for(s), false, Padding::Alike) == std::optional<bool>(true));
      CHECK(check_pitched(s, {"shared_pitches=1"}, size_for(s), false, Padding::PerField) == std::optional<bool>(false));
      CHECK(check_pitched(s, {"shared_pitches=0"}, size_for(s), false, Padding::PerField) == std::optional<bool>(true));
      if (std::string(path) != "stencil/mhd_iso3d") CHECK(check_pitched(s, {"strategy=direct"}, size_for(s), false, Padding::PerField) == std::optional<bool>(true));
    }
  // One input, one output: padded unalike, each field still shares its own pitch.
  const Spec lap = spec_of("stencil/laplacian3d_o8", Dtype::Float64);
  CHECK(check_pitched(lap, {"strategy=stage"}, size_for(lap), false, Padding::PerField) == std::optional<bool>(true));
}

TEST_CASE("pitched arrays: SBP operators, each strategy") {
  for (const char* path : {"sbp/d1_o4", "sbp/laplacian3d_o4", "sbp/laplacian2d_o4"}) {
    const Spec s = spec_of(path, Dtype::Float64);
    const TunableDecl* strategy = s.find_tunable("strategy");
    REQUIRE(strategy);
    for (const auto& v : strategy->values) check_pitched(s, {"strategy=" + to_string(v)}, size_for(s), false);
  }
}

TEST_CASE("pitched arrays: every shipped reduction, inputs and results pitched") {
  for (const char* path : {"reduce/sum3d", "reduce/cfl_speed", "reduce/mass_energy", "reduce/column_sum", "reduce/row_extrema",
                           "reduce/divergence_norm", "reduce/logsumexp_y"}) {
    const Spec s = spec_of(path, Dtype::Float64);
    for (bool aligned : {true, false}) check_pitched(s, {}, size_for(s), aligned);
    // One result point from several blocks (partials) and from one.
    check_pitched(s, {"points_per_thread=4", "batch=1"}, size_for(s), false);
  }
}

TEST_CASE("pitched arrays: the periodic ghost fill fills what it fills in a packed array") {
  for (int dims : {2, 3}) {
    for (Dtype dt : {Dtype::Float64, Dtype::Float32}) {
      const std::array<long long, 3> shape{13, 7, dims > 2 ? 5 : 1};
      HostArray h(dims, shape, 3);
      fill_random(h, 11, dt);
      DeviceBuffer packed(dt, dims, shape, 3);
      packed.upload(h.data);
      PitchedCopy pitched(packed, 5, 3);
      const PeriodicFill fill(dt, ctx());
      fill.launch(packed);
      fill.launch(pitched.view());
      ctx().synchronize();
      INFO(dims << "-D " << to_string(dt));
      CHECK(pitched.gaps_written() == 0);
      const std::vector<double> want = packed.download();
      DeviceBuffer back(dt, dims, shape, 3);
      pitched.copy_into(back);
      CHECK(back.download() == want);
      CHECK(want != h.data);  // the fill wrote the ghosts
    }
  }
}
