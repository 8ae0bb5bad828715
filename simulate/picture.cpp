#include "picture.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <stdexcept>

#ifdef GPEN_HAVE_PNG
#include <png.h>
#endif

namespace gpen::sim {
namespace {

using Rgb = std::array<unsigned char, 3>;

// Viridis at ten evenly spaced points (its published anchor colours),
// interpolated linearly between them.
Rgb viridis(double t) {
  static const Rgb stops[] = {{0x44, 0x01, 0x54}, {0x48, 0x28, 0x78}, {0x3e, 0x49, 0x89}, {0x31, 0x68, 0x8e}, {0x26, 0x82, 0x8e},
                              {0x1f, 0x9e, 0x89}, {0x35, 0xb7, 0x79}, {0x6e, 0xce, 0x58}, {0xb5, 0xde, 0x2b}, {0xfd, 0xe7, 0x25}};
  if (!std::isfinite(t)) return {0xff, 0x00, 0xff};  // NaN or infinity: magenta, unmistakable
  t = std::clamp(t, 0.0, 1.0) * 9;
  const int i = std::min(8, static_cast<int>(t));
  const double f = t - i;
  Rgb c;
  for (int k = 0; k < 3; ++k) c[k] = static_cast<unsigned char>(std::lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k])));
  return c;
}

// A 3x5 pixel font for the characters of a number printed with %.3g.
const char* glyph(char c) {
  switch (c) {
    case '0': return "111101101101111";
    case '1': return "010110010010111";
    case '2': return "111001111100111";
    case '3': return "111001111001111";
    case '4': return "101101111001001";
    case '5': return "111100111001111";
    case '6': return "111100111101111";
    case '7': return "111001001001001";
    case '8': return "111101111101111";
    case '9': return "111101111001111";
    case '.': return "000000000000010";
    case '-': return "000000111000000";
    case '+': return "000010111010000";
    case 'e': return "000111111100111";
    case 'n': return "000110101101101";
    case 'a': return "000011101101111";
    default: return "000000000000000";
  }
}

void put(Image& img, int x, int y, const Rgb& c) {
  if (x < 0 || y < 0 || x >= img.width || y >= img.height) return;
  std::copy(c.begin(), c.end(), img.rgb.begin() + 3 * (static_cast<std::size_t>(y) * img.width + x));
}

void text(Image& img, int x, int y, const std::string& s, int scale) {
  for (char ch : s) {
    const char* g = glyph(ch);
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < 3; ++c)
        if (g[r * 3 + c] == '1')
          for (int dy = 0; dy < scale; ++dy)
            for (int dx = 0; dx < scale; ++dx) put(img, x + c * scale + dx, y + r * scale + dy, {0, 0, 0});
    x += 4 * scale;
  }
}

}  // namespace

namespace {
// The slice's two axes (u horizontal, v upward) and the axis it cuts.
struct SliceAxes {
  int u = 0, v = 1, cut = 2;
};
SliceAxes slice_axes(const Program& p, const Picture& pic) {
  SliceAxes s;
  if (p.dims == 3) {
    s.cut = pic.axis;
    s.u = s.cut == 0 ? 1 : 0;
    s.v = s.cut == 2 ? 1 : 2;
  }
  return s;
}
}  // namespace

Subdomain slice_part(const Program& p, const Picture& pic) {
  Subdomain s;
  s.extent = p.size;
  if (p.dims == 3) {
    const int cut = slice_axes(p, pic).cut;
    s.offset[static_cast<std::size_t>(cut)] = std::llround(pic.at * static_cast<double>(p.size[static_cast<std::size_t>(cut)] - 1));
    s.extent[static_cast<std::size_t>(cut)] = 1;
  }
  return s;
}

Image render_slice(const Program& p, const std::vector<double>& interior, const Picture& pic) {
  return render_plane(p, interior_part(interior, p.size, slice_part(p, pic)), pic);
}

Image render_plane(const Program& p, const std::vector<double>& plane, const Picture& pic) {
  const SliceAxes axes = slice_axes(p, pic);
  const int u = axes.u, v = axes.v;
  const long long nu = p.size[static_cast<std::size_t>(u)], nv = p.dims >= 2 ? p.size[static_cast<std::size_t>(v)] : 1;
  if (static_cast<long long>(plane.size()) != nu * nv)
    throw std::invalid_argument(fmt::format("render_plane: {} values for a slice of {}x{}", plane.size(), nu, nv));
  // The plane is slice_part's values, x fastest: u's index first.
  auto value = [&](long long a, long long b) { return plane[static_cast<std::size_t>(a + nu * b)]; };
  double lo = INFINITY, hi = -INFINITY;
  for (long long b = 0; b < nv; ++b)
    for (long long a = 0; a < nu; ++a) {
      const double x = value(a, b);
      if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
    }
  // Pixels a point: a small grid drawn about 256 pixels on its long side,
  // a large one a pixel a point, and past kMaxSide points every `stride`-th
  // point (the picture stays a few megabytes; the bar's extremes are the
  // whole slice's).
  constexpr long long kMaxSide = 2048;
  const long long longest = std::max(nu, nv), stride = (longest + kMaxSide - 1) / kMaxSide;
  const long long du = (nu + stride - 1) / stride, dv = (nv + stride - 1) / stride;
  const int scale = static_cast<int>(std::clamp<long long>(256 / longest, 1, 64));
  const int line_height = p.dims == 1 ? 32 : 1;  // a 1-D line drawn as a band
  const int w = static_cast<int>(du) * scale, h = static_cast<int>(dv) * scale * line_height;
  const int margin = 12, bar = 16, label_scale = 2;
  const std::string top = std::isfinite(hi) ? fmt::format("{:.3g}", hi) : "nan", bottom = std::isfinite(lo) ? fmt::format("{:.3g}", lo) : "nan";
  const int label_w = static_cast<int>(std::max(top.size(), bottom.size())) * 4 * label_scale;
  Image img;
  img.width = margin + w + margin + bar + 6 + label_w + margin;
  img.height = margin + std::max(h, 12 * label_scale) + margin;
  img.rgb.assign(static_cast<std::size_t>(img.width) * img.height * 3, 255);
  const double span = hi > lo ? hi - lo : 1.0;
  auto shade = [&](double x) { return hi > lo ? (x - lo) / span : std::isfinite(x) ? 0.5 : NAN; };
  for (long long b = 0; b < dv; ++b)
    for (long long a = 0; a < du; ++a) {
      const Rgb c = viridis(shade(value(a * stride, b * stride)));
      const int x0 = margin + static_cast<int>(a) * scale, y0 = margin + h - static_cast<int>(b + 1) * scale * line_height;
      for (int dy = 0; dy < scale * line_height; ++dy)
        for (int dx = 0; dx < scale; ++dx) put(img, x0 + dx, y0 + dy, c);
    }
  // The colour bar: the largest value at the top.
  const int bx = margin + w + margin;
  for (int y = 0; y < h; ++y) {
    const Rgb c = viridis(1.0 - (h > 1 ? static_cast<double>(y) / (h - 1) : 0.5));
    for (int x = 0; x < bar; ++x) put(img, bx + x, margin + y, c);
  }
  text(img, bx + bar + 6, margin, top, label_scale);
  text(img, bx + bar + 6, margin + h - 5 * label_scale, bottom, label_scale);
  return img;
}

#ifdef GPEN_HAVE_PNG
bool png_available() { return true; }

void write_png(const std::string& path, const Image& img) {
  const std::string tmp = path + ".part";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + tmp);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    std::remove(tmp.c_str());
    throw std::runtime_error("libpng could not write " + path);
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, static_cast<png_uint_32>(img.width), static_cast<png_uint_32>(img.height), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < img.height; ++y) png_write_row(png, img.rgb.data() + static_cast<std::size_t>(y) * img.width * 3);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  if (std::fclose(f) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot write " + path);
}
#else
bool png_available() { return false; }

void write_png(const std::string& path, const Image&) {
  throw std::runtime_error("cannot write " + path + ": this gpen was built without libpng (install libpng-dev and configure again)");
}
#endif

}  // namespace gpen::sim
