#include "npy.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <stdexcept>

namespace gpen::sim {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMaxHeader = 4096;
constexpr long long kMaxValues = 1LL << 36;

[[noreturn]] void bad(const std::string& path, const std::string& why) { throw std::runtime_error(fmt::format("{}: not a .npy file gpen reads: {}", path, why)); }

}  // namespace

namespace {

// The magic, version, header length and header (padded with spaces to a
// multiple of 64 bytes and ended by a newline) of an array of `shape`.
std::string npy_header(const std::string& path, Dtype dtype, const std::vector<long long>& shape) {
  std::string dims;
  for (long long n : shape) dims += fmt::format("{}, ", n);
  if (!shape.empty()) dims.resize(dims.size() - (shape.size() == 1 ? 1 : 2));  // "(3,)" for one axis, "(3, 4)" for more
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", dtype == Dtype::Float32 ? "<f4" : "<f8", dims);
  const std::size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header.push_back('\n');
  if (header.size() > kMaxHeader) throw std::invalid_argument(fmt::format("write_npy {}: a header of {} bytes", path, header.size()));
  const std::uint16_t len = static_cast<std::uint16_t>(header.size());
  std::string out(kMagic, 6);
  out += std::string{'\x01', '\x00', static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  return out + header;
}

long long count_of(const std::vector<long long>& shape) {
  long long count = 1;
  for (long long n : shape) count *= n;
  return count;
}

// `values` as `dtype`, little-endian (the machines gpen runs on are).
void write_values(std::ostream& out, Dtype dtype, const double* values, std::size_t n) {
  if (dtype == Dtype::Float32) {
    std::vector<float> f(values, values + n);
    out.write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size() * sizeof(float)));
  } else {
    out.write(reinterpret_cast<const char*>(values), static_cast<std::streamsize>(n * sizeof(double)));
  }
}

}  // namespace

void write_npy(const std::string& path, Dtype dtype, const std::vector<long long>& shape, const std::vector<double>& values) {
  if (count_of(shape) != static_cast<long long>(values.size()))
    throw std::invalid_argument(fmt::format("write_npy {}: {} values for a shape of {}", path, values.size(), count_of(shape)));
  const std::string header = npy_header(path, dtype, shape);
  const std::string tmp = path + ".part";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", tmp));
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    write_values(out, dtype, values.data(), values.size());
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error(fmt::format("cannot rename {} to {}", tmp, path));
}

void create_npy(const std::string& path, Dtype dtype, const std::vector<long long>& shape) {
  const std::string header = npy_header(path, dtype, shape);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", path));
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", path));
  }
  std::error_code ec;
  std::filesystem::resize_file(path, header.size() + static_cast<std::uintmax_t>(count_of(shape)) * size_of(dtype), ec);
  if (ec) throw std::runtime_error(fmt::format("cannot make room in {}: {}", path, ec.message()));
}

namespace {

// Where the values of a file of the whole grid of `size` points begin, and
// their dtype (the header checked: `dtype` where given, as many values as
// the grid's).
std::pair<std::streamoff, Dtype> data_of(const std::string& path, const std::array<long long, 3>& size, std::optional<Dtype> dtype) {
  const NpyArray a = read_npy(path, true);  // its header, and a length that fits it
  if ((dtype && a.dtype != *dtype) || count_of(a.shape) != size[0] * size[1] * size[2])
    throw std::runtime_error(fmt::format("{}: not the file of this grid's field ({} values{})", path, size[0] * size[1] * size[2],
                                         dtype ? " of " + std::string(to_string(*dtype)) : std::string()));
  return {static_cast<std::streamoff>(std::filesystem::file_size(path)) -
              static_cast<std::streamoff>(size[0] * size[1] * size[2]) * static_cast<std::streamoff>(size_of(a.dtype)),
          a.dtype};
}

// Calls row(offset of the row's first value, its index in the part) for
// each x-row of subdomain s in the whole grid's data.
template <class F>
void for_part_rows(const std::array<long long, 3>& size, const Subdomain& s, F&& row) {
  std::size_t at = 0;
  for (long long k = 0; k < s.extent[2]; ++k)
    for (long long j = 0; j < s.extent[1]; ++j, at += static_cast<std::size_t>(s.extent[0]))
      row(s.offset[0] + size[0] * ((s.offset[1] + j) + size[1] * (s.offset[2] + k)), at);
}

}  // namespace

void write_npy_part(const std::string& path, Dtype dtype, const std::array<long long, 3>& size, const Subdomain& s, const std::vector<double>& values) {
  if (static_cast<long long>(values.size()) != s.extent[0] * s.extent[1] * s.extent[2])
    throw std::invalid_argument(fmt::format("write_npy_part {}: {} values for a part of {}x{}x{}", path, values.size(), s.extent[0], s.extent[1], s.extent[2]));
  const std::streamoff data = data_of(path, size, dtype).first;
  std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", path));
  for_part_rows(size, s, [&](long long first, std::size_t at) {
    out.seekp(data + static_cast<std::streamoff>(first) * static_cast<std::streamoff>(size_of(dtype)));
    write_values(out, dtype, values.data() + at, static_cast<std::size_t>(s.extent[0]));
  });
  if (!out.flush()) throw std::runtime_error(fmt::format("cannot write {}", path));
}

std::vector<double> read_npy_part(const std::string& path, const std::array<long long, 3>& size, const Subdomain& s) {
  const std::pair<std::streamoff, Dtype> found = data_of(path, size, std::nullopt);
  const std::streamoff data = found.first;  // not structured bindings: C++17 lambdas cannot capture those
  const Dtype dtype = found.second;
  std::ifstream in(path, std::ios::binary);
  std::vector<double> out(static_cast<std::size_t>(s.extent[0] * s.extent[1] * s.extent[2]));
  std::vector<float> row(static_cast<std::size_t>(s.extent[0]));
  for_part_rows(size, s, [&](long long first, std::size_t at) {
    in.seekg(data + static_cast<std::streamoff>(first) * static_cast<std::streamoff>(size_of(dtype)));
    if (dtype == Dtype::Float32) {
      in.read(reinterpret_cast<char*>(row.data()), static_cast<std::streamsize>(row.size() * sizeof(float)));
      std::copy(row.begin(), row.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
    } else {
      in.read(reinterpret_cast<char*>(out.data() + at), static_cast<std::streamsize>(s.extent[0]) * static_cast<std::streamsize>(sizeof(double)));
    }
  });
  if (!in) bad(path, "cut short in its data");
  return out;
}

NpyArray read_npy(const std::string& path, bool header_only) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot open {}", path));
  char magic[6];
  unsigned char version[2], le[2];
  if (!in.read(magic, 6) || std::memcmp(magic, kMagic, 6) != 0) bad(path, "no .npy magic");
  if (!in.read(reinterpret_cast<char*>(version), 2) || version[0] != 1) bad(path, "a version other than 1.0");
  if (!in.read(reinterpret_cast<char*>(le), 2)) bad(path, "cut short");
  const std::size_t len = le[0] | (static_cast<std::size_t>(le[1]) << 8);
  if (len > kMaxHeader) bad(path, "a header longer than 4096 bytes");
  std::string header(len, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(len))) bad(path, "cut short in its header");
  NpyArray a;
  if (header.find("'descr': '<f8'") != std::string::npos) a.dtype = Dtype::Float64;
  else if (header.find("'descr': '<f4'") != std::string::npos) a.dtype = Dtype::Float32;
  else bad(path, "a dtype other than little-endian float64 or float32");
  if (header.find("'fortran_order': False") == std::string::npos) bad(path, "Fortran order");
  const std::size_t open = header.find("'shape': (");
  const std::size_t close = open == std::string::npos ? open : header.find(')', open);
  if (close == std::string::npos) bad(path, "no shape");
  long long count = 1;
  std::size_t i = open + 10;
  while (i < close) {
    while (i < close && (header[i] == ' ' || header[i] == ',')) ++i;
    if (i >= close) break;
    long long n = 0;
    std::size_t digits = 0;
    while (i < close && header[i] >= '0' && header[i] <= '9' && digits < 12) n = n * 10 + (header[i++] - '0'), ++digits;
    if (digits == 0 || (i < close && header[i] != ',' && header[i] != ' ')) bad(path, "a shape of other than whole numbers");
    if (n > 0 && count > kMaxValues / n) bad(path, "too large a shape");
    a.shape.push_back(n);
    count *= n;
    if (a.shape.size() > 8) bad(path, "too large a shape");
  }
  const std::size_t bytes = static_cast<std::size_t>(count) * (a.dtype == Dtype::Float32 ? 4 : 8);
  in.seekg(0, std::ios::end);
  const std::streamoff left = in.tellg() - static_cast<std::streamoff>(10 + len);
  if (left != static_cast<std::streamoff>(bytes)) bad(path, fmt::format("{} bytes of data for a shape of {} values", left, count));
  if (header_only) return a;
  in.seekg(static_cast<std::streamoff>(10 + len));
  a.values.resize(static_cast<std::size_t>(count));
  if (a.dtype == Dtype::Float32) {
    std::vector<float> f(static_cast<std::size_t>(count));
    in.read(reinterpret_cast<char*>(f.data()), static_cast<std::streamsize>(bytes));
    std::copy(f.begin(), f.end(), a.values.begin());
  } else {
    in.read(reinterpret_cast<char*>(a.values.data()), static_cast<std::streamsize>(bytes));
  }
  if (!in) bad(path, "cut short in its data");
  return a;
}

}  // namespace gpen::sim
