// Periodic ghost-zone fill of one padded array, one axis per launch; `row`
// and `plane` are its pitches in elements (packed, or the caller's padding).
// Axes are filled in order x, y, z: the pass for `axis` covers the ghost
// slabs of that axis, the full padded range of the axes before it (already
// filled) and the interior of the axes after it, so edges and corners come
// out right after the last pass.
#pragma once

namespace gpen {

template <class real>
__device__ __forceinline__ void periodic_fill(real* a, long long nx, long long ny, long long nz, long long row, long long plane, int dims, int g,
                                              int axis) {
  const long long n[3] = {nx, ny, nz};
  long long pad[3], lo[3], len[3];
  for (int d = 0; d < 3; ++d) {
    const int gd = d < dims ? g : 0;
    pad[d] = n[d] + 2 * gd;
    lo[d] = d < axis ? 0 : gd;       // start of the range this pass covers
    len[d] = d < axis ? pad[d] : n[d];
  }
  len[axis] = 2 * g;  // the two ghost slabs
  const long long total = len[0] * len[1] * len[2];
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total; t += (long long)gridDim.x * blockDim.x) {
    long long c[3] = {t % len[0], (t / len[0]) % len[1], t / (len[0] * len[1])};
    for (int d = 0; d < 3; ++d) c[d] += lo[d];
    // along `axis`: slab index s in [0, 2g) -> ghost coordinate, and its periodic source
    const long long s = c[axis] - lo[axis];
    const long long dst = s < g ? s : n[axis] + s;               // padded coordinate of the ghost
    const long long src = s < g ? n[axis] + s : s;               // g + (interior index wrapped)
    long long from[3] = {c[0], c[1], c[2]};
    c[axis] = dst;
    from[axis] = src;
    a[c[0] + row * c[1] + plane * c[2]] = a[from[0] + row * from[1] + plane * from[2]];
  }
}

}  // namespace gpen
