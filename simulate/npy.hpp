// NumPy's .npy format (version 1.0), so that a snapshot opens with
// numpy.load and nothing of gpen: little-endian float64 or float32, C
// order, the shape (nz, ny, nx) of a 3-D field (x fastest).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "gpen/generator/spec.hpp"
#include "gpen/simulate/decomposition.hpp"

namespace gpen::sim {

struct NpyArray {
  Dtype dtype = Dtype::Float64;
  std::vector<long long> shape;  // C order: the slowest axis first
  std::vector<double> values;    // as read (float32 widened)
};

// Writes `values` (their count the shape's product) as `dtype`, through a
// temporary file renamed into place: a reader never sees half a file.
void write_npy(const std::string& path, Dtype dtype, const std::vector<long long>& shape, const std::vector<double>& values);
// A file of `shape` that several ranks fill, each its part
// (write_npy_part): the header and room for every value, zeros until
// written. In place (no temporary): a snapshot is whole when its
// snapshot.json, written last, is there.
void create_npy(const std::string& path, Dtype dtype, const std::vector<long long>& shape);
// Subdomain s's interior values (x fastest, s's extent) written in place
// into a file create_npy made for the whole grid of `size` points (x, y, z).
void write_npy_part(const std::string& path, Dtype dtype, const std::array<long long, 3>& size, const Subdomain& s, const std::vector<double>& values);

// Subdomain s's interior values (x fastest) read from the file of the
// whole grid of `size` points (x, y, z), row by row: a rank of several
// reads its part alone. The file's length is checked, not its shape.
std::vector<double> read_npy_part(const std::string& path, const std::array<long long, 3>& size, const Subdomain& s);

// Reads a file write_npy wrote (or NumPy, in the same dtypes and order);
// std::runtime_error naming the file and what is wrong otherwise.
// `header_only`: its dtype and shape, the data's length checked, no values.
NpyArray read_npy(const std::string& path, bool header_only = false);

}  // namespace gpen::sim
