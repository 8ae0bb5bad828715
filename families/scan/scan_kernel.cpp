#include "gpen/families/scan/scan_kernel.hpp"

#include <cstring>

#include <fmt/format.h>

#include "gpen/families/scan/device/scan_args.h"

namespace gpen {
namespace {

constexpr unsigned kEpochs = 1u << 30;  // status words hold epoch << 2 | state in 32 bits

}  // namespace

ScanKernel::ScanKernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache)
    : Kernel(spec, std::move(variant), ctx, cache), l2_bytes_(ctx.info().l2_bytes) {
  check_block_fits(function(), plan().threads(), "use a smaller block_x * block_y or values_per_thread");
}

std::size_t ScanKernel::status_bytes_of(const ScanGeometry& g) const {
  // Rows: a status per (row, segment). Chained columns: a carry per column
  // group, tagged with the layer that takes it in the lower 32 bits.
  return g.segments > 1 ? static_cast<std::size_t>(g.segments * g.outer) * status_bytes() : static_cast<std::size_t>(plan().carry_bytes(g));
}

void ScanKernel::prepare(const std::array<long long, 3>& shape) const {
  check_extents(shape);
  const std::size_t bytes = status_bytes_of(plan().geometry(spec_.dims, spec_.scan().axis, shape, l2_bytes_));
  if (bytes <= status_size_) return;
  // Allocated and cleared as a launch would (an epoch spent), then waited
  // for: a later launch in a stream created non-blocking does not wait for
  // the legacy stream.
  reserve(bytes, nullptr);
  GPEN_CU(cuStreamSynchronize(nullptr), "clearing the scan's status");
}

unsigned ScanKernel::reserve(std::size_t bytes, CUstream stream) const {
  if (bytes > status_size_) {
    status_ = DeviceMemory(bytes);
    status_size_ = bytes;
    clear_status(stream);
  }
  if (++epoch_ == kEpochs) {  // every flag ever written is stale again
    clear_status(stream);
    epoch_ = 1;
  }
  return epoch_;
}

void ScanKernel::clear_status(CUstream stream) const {
  // Zero status words are epoch 0, which no launch uses. Cleared in the
  // launch's stream: a stream created non-blocking (as gpen's are) does not
  // wait for a memset in the legacy stream, so the kernel could start on
  // uncleared memory, or have a status it published cleared under it.
  GPEN_CU(cuMemsetD8Async(status_.get(), 0, status_size_, stream), "clearing the scan's status");
}

void ScanKernel::launch(const FieldBindings& fields, const ParamValues& params, CUstream stream) const {
  const auto shape = check_bindings(spec_, fields, params);
  const ScanPlan& p = plan();
  const ScanGeometry g = p.geometry(spec_.dims, spec_.scan().axis, shape, l2_bytes_);
  if (g.tiles > 0x7fffffffLL)
    throw BindingError(fmt::format("spec '{}': {} blocks exceed the grid limit; use a larger block_x or values_per_thread", spec_.name, g.tiles));
  // Where the kernels move vector_x values an access (rows whose length,
  // or planes whose columns, are whole vectors: scan_rows.cuh,
  // scan_columns.cuh), the arrays must be aligned to them (gpen's own are;
  // a caller's view may not be).
  const std::size_t vector_bytes = static_cast<std::size_t>(p.vector_x) * size_of(spec_.dtype);
  const bool vectors = p.vector_x > 1 && (p.layout == ScanLayout::Rows ? g.length : g.inner) % p.vector_x == 0;
  for (const FieldDecl* f : {spec_.inputs()[0], spec_.output_fields()[0]})
    if (vectors && fields.at(f->name)->get() % vector_bytes)
      throw BindingError(fmt::format("spec '{}': field '{}' starts at {:#x}, not a multiple of the {} bytes of its vector accesses (vector_x = {}); "
                                     "use vector_x=1, or an aligned array",
                                     spec_.name, f->name, static_cast<unsigned long long>(fields.at(f->name)->get()), vector_bytes, p.vector_x));
  ScanArgs<void> a{};
  a.in = device_pointer(fields.at(spec_.inputs()[0]->name)->get());
  a.out = device_pointer(fields.at(spec_.output_fields()[0]->name)->get());
  a.length = g.length;
  a.inner = g.inner;
  a.outer = g.outer;
  a.segments = g.segments;
  a.along = static_cast<unsigned>(g.along);
  a.run_tiles = static_cast<unsigned>(g.run_tiles);
  a.spread = static_cast<unsigned>(g.spread);
  a.layers = static_cast<unsigned>(g.layers);
  if (g.layers > 0xffffffffLL)  // a.layers and the carries' tags hold 32 bits
    throw BindingError(fmt::format("spec '{}': {} layers along the axis exceed 2^32; use a larger values_per_thread", spec_.name, g.layers));
  const std::size_t status = status_bytes_of(g);
  if (status > 0) {
    a.epoch = reserve(status, stream);
    a.status = device_pointer<unsigned long long>(status_.get());
  }
  const LaunchDims d = p.launch(g);
  void* kernel_params[] = {&a};
  GPEN_CU(cuLaunchKernel(function(), d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2], 0, stream, kernel_params, nullptr),
          fmt::format("launching {} of spec '{}'", source_.name, spec_.name));
}

}  // namespace gpen
