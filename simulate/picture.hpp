// A picture of a snapshot: one slice of a field in a perceptual colour map
// (viridis), with a colour bar and its smallest and largest values, as a
// PNG (libpng), so that a person sees the flow without a plotting script.
#pragma once

#include <string>
#include <vector>

#include "gpen/simulate/decomposition.hpp"
#include "gpen/simulate/program.hpp"

namespace gpen::sim {

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  // rows top to bottom, 3 bytes a pixel
};

// The slice `pic` asks for of `interior` (the field's interior, x fastest):
// across pic.axis at pic.at of the box (3-D), the whole plane (2-D) or the
// line (1-D); the first remaining axis horizontal, the second upward.
Image render_slice(const Program& p, const std::vector<double>& interior, const Picture& pic);
// The points of that slice as a part of the grid (one point thick across
// the cut), and its picture from the part's values alone (x fastest):
// what a rank of a run over several processes reads back from a snapshot's
// file, which holds the whole grid.
Subdomain slice_part(const Program& p, const Picture& pic);
Image render_plane(const Program& p, const std::vector<double>& plane, const Picture& pic);

// Whether this gpen can write PNG files (built with libpng).
bool png_available();
// Writes `img` as an 8-bit RGB PNG; std::runtime_error when it cannot
// (also when gpen was built without libpng: it says so).
void write_png(const std::string& path, const Image& img);

}  // namespace gpen::sim
