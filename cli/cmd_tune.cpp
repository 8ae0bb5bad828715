// gpen tune: search a spec's tunables on the GPU (runtime/tune.hpp), show
// progress on a terminal, print the best variants beside the default and the
// copy bandwidth, draw the search (time of every variant and the best so far
// against evaluations) as an SVG, and remember the best for run/compile.
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "spec_options.hpp"
#include "gpen/runtime/pairwise_run.hpp"
#include "gpen/runtime/stencil_run.hpp"
#include "gpen/runtime/tune.hpp"

namespace gpen::cli {
namespace {

void progress_bar(std::size_t done, std::size_t budget) {
  const int width = 40;
  const int fill = budget ? static_cast<int>(width * done / budget) : width;
  fmt::print(stderr, "\r  [{}{}] {}/{}", std::string(fill, '#'), std::string(width - fill, '.'), done, budget);
  if (done == budget) fmt::print(stderr, "\n");
}

// Time of every evaluated variant (dots; failures as crosses on the axis)
// and the best time so far (a line), against the evaluation number.
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

}  // namespace

void add_tune(CLI::App& app, Runner& run) {
  auto* cmd = app.add_subcommand("tune", "Search a spec's tunables on the GPU, verify every variant, remember the best");
  struct Opts {
    SpecOptions spec;
    std::string size = "256", strategy = "exhaustive", plot, json_out;
    std::size_t budget = 0;
    double time_s = 0;
    int repeat = 10;
    bool no_save = false;
    std::uint64_t seed = 1;
  };
  auto o = std::make_shared<Opts>();
  o->spec.add_to(*cmd);  // --set fixes a tunable: it is not searched
  cmd->add_option("--size", o->size, "Problem size NX[xNY[xNZ]] (one number: a cube); pairwise: N, NxM (separate sources) or the grid");
  cmd->add_option("--strategy", o->strategy, "exhaustive | random | local")->check(CLI::IsMember({"exhaustive", "random", "local"}));
  cmd->add_option("--budget", o->budget, "Evaluations at most (default: all; local: a quarter of the space)");
  cmd->add_option("--time", o->time_s, "Seconds at most (checked between batches)");
  cmd->add_option("--repeat", o->repeat, "Timed launches per variant (median)")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o->seed, "Seed of the random and local strategies");
  cmd->add_option("--plot", o->plot, "Write the picture of the search to FILE (SVG)");
  cmd->add_option("--json", o->json_out, "Write every evaluation to FILE as JSON");
  cmd->add_flag("--no-save", o->no_save, "Do not store the result in the tuning database");
  cmd->callback([&run, o] {
    run = [o] {
      const Spec s = o->spec.load();
      const bool pairs = s.is_pairwise();
      // A bad --size or --set is an error before any device work.
      std::optional<PairSizes> pair_size;
      std::array<long long, 3> size{1, 1, 1};
      if (pairs) pair_size = parse_pair_size(s, o->size);
      else size = parse_size(o->size, s.dims);
      o->spec.choose(s);
      std::string why;
      if (!driver_available(&why)) {
        fmt::print(stderr, "gpen: cannot tune {}: {}\n", s.name, why);
        return kExitNoDevice;
      }
      Context ctx(0);
      TuneOptions to;
      to.strategy = parse_search_strategy(o->strategy);
      to.budget = o->budget;
      to.time_limit_s = o->time_s;
      to.seed = o->seed;
      to.fixed = o->spec.set;
      to.repeat = o->repeat;
      to.save = !o->no_save;
      if (isatty(STDERR_FILENO)) to.on_progress = progress_bar;
      fmt::print("tuning {} ({}) at {} on {}: {} search\n", s.name, to_string(s.dtype), o->size, ctx.info().name, o->strategy);
      const TuneResult r = pairs ? tune_pairwise(ctx, s, *pair_size, to) : tune(ctx, s, size, to);

      const double copy = r.copy_gbs;
      std::size_t failed = 0;
      for (const auto& v : r.evaluated) failed += !v.ms;
      fmt::print("space: {} combinations, {} valid; evaluated {} ({} failed, each recorded with its reason); {}\n", r.space_total,
                 r.space_valid, r.evaluated.size(), failed,
                 pairs ? fmt::format("rsqrt bound {:.3e}/s", r.rsqrt_bound_per_s) : fmt::format("copy {:.1f} GB/s", copy));
      for (std::size_t i = 0; i < std::min<std::size_t>(3, r.rejected.size()); ++i)
        fmt::print("  not evaluated: {} x {}\n", r.rejected[i].second, r.rejected[i].first);
      std::vector<const TunedVariant*> ok;
      for (const auto& v : r.evaluated)
        if (v.ms) ok.push_back(&v);
      std::sort(ok.begin(), ok.end(), [](const TunedVariant* a, const TunedVariant* b) { return *a->ms < *b->ms; });
      // Pairwise variants are rated in pairs/s against the rsqrt bound, the others in GB/s against the copy.
      fmt::print("{:<4} {:<72} {:>9} {:>10} {:>7} {:>5}\n", "rank", "variant", "ms", pairs ? "pairs/s" : "GB/s", pairs ? "%rsqrt" : "%copy", "regs");
      auto row = [&](const std::string& rank, const TunedVariant& v) {
        const std::string rate = pairs ? fmt::format("{:.3e}", v.pairs_per_s) : fmt::format("{:.1f}", v.teff_gbs);
        const double percent = 100 * (pairs ? v.pairs_per_s / r.rsqrt_bound_per_s : v.teff_gbs / copy);
        fmt::print("{:<4} {:<72} {:>9.4f} {:>10} {:>6.1f}% {:>5}\n", rank, v.variant, *v.ms, rate, percent, v.registers);
      };
      for (std::size_t i = 0; i < std::min<std::size_t>(10, ok.size()); ++i) row(std::to_string(i + 1), *ok[i]);
      row("dflt", r.reference);
      if (!ok.empty())
        fmt::print("best is {:.2f}x the default's speed; every timed variant matched {}, which matched the CPU reference ({})\n",
                   *r.reference.ms / *ok[0]->ms,
                   pairs ? "the CPU reference at the sampled targets and, at every target, the default's output" : "the default's output on the GPU",
                   r.reference.check ? r.reference.check->summary() : "-");
      for (const auto& v : r.evaluated)
        if (!v.ms) { fmt::print("  failed: {}: {}\n", v.variant, v.reason.substr(0, 200)); break; }  // the first, as an example
      if (r.saved) fmt::print("saved to {} under {}\n", TuningDb::default_path(), r.key.str());

      if (!o->plot.empty()) {
        std::ofstream(o->plot) << search_svg(r, fmt::format("gpen tune {} ({}, {}, {}) on {}", s.name, to_string(s.dtype), o->size, o->strategy, ctx.info().name));
        fmt::print("picture of the search: {}\n", o->plot);
      }
      if (!o->json_out.empty()) {
        nlohmann::json all = nlohmann::json::array();
        for (const auto& v : r.evaluated)
          all.push_back({{"variant", v.variant}, {"ms", v.ms ? nlohmann::json(*v.ms) : nlohmann::json(nullptr)}, {"teff_gbs", v.teff_gbs},
                         {"pairs_per_s", v.pairs_per_s}, {"registers", v.registers}, {"reason", v.reason}});
        std::ofstream(o->json_out) << nlohmann::json{{"spec", s.name}, {"dtype", to_string(s.dtype)}, {"size", o->size}, {"gpu", ctx.info().name},
                                                     {"strategy", o->strategy}, {"copy_gbs", copy}, {"rsqrt_bound_per_s", r.rsqrt_bound_per_s}, {"default", {{"variant", r.reference.variant}, {"ms", *r.reference.ms}}},
                                                     {"space_total", r.space_total}, {"space_valid", r.space_valid}, {"evaluations", all}}.dump(2);
      }
      return ok.empty() ? kExitInvalid : kExitOk;
    };
  });
}

}  // namespace gpen::cli
