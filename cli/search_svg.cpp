#include "search_svg.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpen::cli {

std::string search_svg(const TuneResult& r, const std::string& title) {
  const double W = 720, H = 400, L = 70, R = 20, T = 40, B = 50;
  double tmax = *r.reference.ms;
  for (const auto& v : r.evaluated)
    if (v.ms) tmax = std::max(tmax, *v.ms);
  tmax *= 1.05;
  const std::size_t n = std::max<std::size_t>(1, r.evaluated.size());
  auto X = [&](std::size_t i) { return L + (W - L - R) * (n > 1 ? double(i) / (n - 1) : 0.5); };
  auto Y = [&](double ms) { return T + (H - T - B) * (1 - ms / tmax); };
  std::string s = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
  s += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n<text x=\"{}\" y=\"22\" font-size=\"14\">{}</text>\n", W, H, L, title);
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"black\"/><line x1=\"{0}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\" stroke=\"black\"/>\n", L, T, H - B, W - R);
  for (int k = 0; k <= 4; ++k) {
    const double ms = tmax * k / 4;
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.3f}</text>\n", L - 6, Y(ms) + 4, ms);
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">evaluation (1 .. {})</text>\n", (L + W - R) / 2, H - 15, r.evaluated.size());
  s += fmt::format("<text x=\"15\" y=\"{}\" transform=\"rotate(-90 15 {})\" text-anchor=\"middle\">median time (ms)</text>\n", (T + H - B) / 2, (T + H - B) / 2);
  s += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"gray\" stroke-dasharray=\"4 3\"/><text x=\"{1}\" y=\"{3}\" text-anchor=\"end\" fill=\"gray\">default</text>\n",
                  L, W - R, Y(*r.reference.ms), Y(*r.reference.ms) - 4);
  std::string line;
  double best = 1e300;
  for (std::size_t i = 0; i < r.evaluated.size(); ++i) {
    const auto& v = r.evaluated[i];
    if (v.ms) {
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"steelblue\"><title>{} {:.4f} ms</title></circle>\n", X(i), Y(*v.ms), v.variant, *v.ms);
      best = std::min(best, *v.ms);
    } else {
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"crimson\" text-anchor=\"middle\">x<title>{}</title></text>\n", X(i), H - B + 4, v.reason.substr(0, 120));
    }
    if (best < 1e300) line += fmt::format("{}{:.1f},{:.1f}", line.empty() ? "" : " ", X(i), Y(best));
  }
  s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"darkorange\" stroke-width=\"2\"/>\n", line);
  s += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"darkorange\">best so far</text>\n</svg>\n", W - R - 90, T + 12);
  return s;
}

}  // namespace gpen::cli
