// Warm start: how long a process takes from a spec file to its kernel when
// the kernel cache holds it (issue 23's target: under 1 ms for every shipped
// spec). For each spec's default variant, after a child process has filled
// a fresh cache directory:
//   (b) load the spec, choose, look the kernel up on disk with a new
//       KernelCache (so that no memory cache serves it): to CUBIN bytes;
//   (a) the same, then cuModuleLoadData and the function's attributes
//       (make_kernel), on GPU 0; skipped, with the reason, without a GPU.
// Each the median of --repeat runs. Also says whether this process printed
// a unit, called NVRTC or even opened it: a warm start must do none.
//
//   gpen_bench_warm [--specs DIR] [--repeat N] [--arch sm_90]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/common/spec_program.hpp"
#include "gpen/runtime/nvrtc_library.hpp"

namespace fs = std::filesystem;
using namespace gpen;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::vector<std::string> shipped_specs(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& kind : fs::directory_iterator(dir))
    if (kind.is_directory())
      for (const auto& f : fs::directory_iterator(kind.path()))
        if (f.path().extension() == ".json") out.push_back(f.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// In a child, so that this process neither opens NVRTC nor inherits a
// driver initialised before a fork: picks the arch (`arch`, else the GPU's,
// else sm_90) and compiles every spec's default variant into `cache_dir`.
// Returns the arch; `problem` gets what went wrong, if anything.
std::string fill_cache(const std::vector<std::string>& specs, const std::string& cache_dir, std::string arch, std::string& problem) {
  int fds[2];
  if (pipe(fds) != 0) {
    problem = "no pipe to the child that fills the cache";
    return arch.empty() ? "sm_90" : arch;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (arch.empty()) arch = driver_available() ? Context(0).info().arch() : "sm_90";
    const bool told = write(fds[1], arch.data(), arch.size()) == static_cast<ssize_t>(arch.size());
    close(fds[1]);
    int status = told ? 0 : 1;
    KernelCache cache(cache_dir);
    for (const std::string& path : specs) {
      try {
        const Spec s = load_spec(path);
        cache.get(spec_program(s, s.choose()), arch);
      } catch (const std::exception& e) {
        fmt::print(stderr, "{}: {}\n", path, e.what());
        status = 1;
      }
    }
    std::fflush(nullptr);
    _exit(status);
  }
  close(fds[1]);
  char buf[32] = {};
  const ssize_t n = pid > 0 ? read(fds[0], buf, sizeof buf - 1) : 0;
  close(fds[0]);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    problem = "the child that fills the cache failed";
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : arch.empty() ? "sm_90" : arch;
}

struct Row {
  std::string name, kind;
  double spec_ms = 0;                  // of which load_spec
  double lookup_ms = 0, load_ms = -1;  // medians; load_ms -1: not measured
  std::string problem;
};

}  // namespace

int main(int argc, char** argv) {
  std::string specs_dir = std::string(GPEN_SOURCE_DIR) + "/specs", arch;
  int repeat = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--specs" && i + 1 < argc) specs_dir = argv[++i];
    else if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--arch" && i + 1 < argc) arch = argv[++i];
    else {
      fmt::print(stderr, "usage: gpen_bench_warm [--specs DIR] [--repeat N] [--arch sm_NN]\n");
      return 2;
    }
  }
  const std::vector<std::string> specs = shipped_specs(specs_dir);
  char tmpl[] = "/tmp/gpen-bench-warm-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  std::string problem;
  arch = fill_cache(specs, dir, arch, problem);
  fmt::print("warm start of {} specs' default variants for {}, median of {}; cache {}\n", specs.size(), arch, repeat, dir);
  if (!problem.empty()) fmt::print("warning: {}; specs it did not compile are measured as misses\n", problem);
  std::string no_gpu;
  const bool gpu = driver_available(&no_gpu);

  const std::size_t printed0 = units_printed(), compiled0 = nvrtc_compiles();
  std::vector<Row> rows;
  for (const std::string& path : specs) {
    Row row;
    row.name = fs::path(path).stem().string();
    row.kind = fs::path(path).parent_path().filename().string();
    std::vector<double> t, spec_t;
    try {
      for (int i = 0; i < repeat; ++i) {
        const auto t0 = Clock::now();
        const Spec s = load_spec(path);
        spec_t.push_back(ms_since(t0));
        const auto r = KernelCache(dir).get(spec_program(s, s.choose()), arch);
        t.push_back(ms_since(t0));
        if (r.source != KernelCache::Source::Disk) row.problem = fmt::format("a {} lookup, not a disk hit", to_string(r.source));
      }
    } catch (const std::exception& e) {
      row.problem = e.what();
    }
    row.spec_ms = median(spec_t);
    row.lookup_ms = median(t);
    rows.push_back(row);
  }
  if (gpu) {
    Context ctx(0);
    for (std::size_t k = 0; k < specs.size(); ++k) {
      std::vector<double> t;
      try {
        for (int i = 0; i < repeat; ++i) {
          const auto t0 = Clock::now();
          const Spec s = load_spec(specs[k]);
          KernelCache cache(dir);
          const auto kernel = make_kernel(s, s.choose(), ctx, cache);
          t.push_back(ms_since(t0));  // before the module is unloaded
          if (kernel->compiled().source != KernelCache::Source::Disk) rows[k].problem = "not a disk hit";
        }
        rows[k].load_ms = median(t);
      } catch (const std::exception& e) {
        rows[k].problem = e.what();
      }
    }
  }

  fmt::print("{:<24} {:<9} {:>10} {:>12} {:>14}\n", "spec", "kind", "(b) ms", "load_spec", "(a) ms");
  std::vector<double> lookups, loads;
  for (const Row& r : rows) {
    lookups.push_back(r.lookup_ms);
    if (r.load_ms >= 0) loads.push_back(r.load_ms);
    fmt::print("{:<24} {:<9} {:>10.3f} {:>12.3f} {:>14}{}\n", r.name, r.kind, r.lookup_ms, r.spec_ms,
               r.load_ms >= 0 ? fmt::format("{:.3f}", r.load_ms) : "-",
               r.problem.empty() ? "" : "  (" + r.problem + ")");
  }
  const auto summary = [](const char* what, const std::vector<double>& v) {
    const double worst = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
    fmt::print("{}: max {:.3f} ms, median {:.3f} ms over {} specs; {} of them at 1 ms or more\n", what, worst, median(v), v.size(),
               std::count_if(v.begin(), v.end(), [](double x) { return x >= 1.0; }));
  };
  summary("(b) spec load + choose + disk lookup to CUBIN", lookups);
  if (gpu) summary("(a) spec load + choose + disk lookup + module load", loads);
  else fmt::print("(a) spec load + choose + disk lookup + module load: skipped: {}\n", no_gpu);
  fmt::print("during the hits: {} units printed, {} NVRTC compiles; NVRTC opened by this process: {}\n", units_printed() - printed0,
             nvrtc_compiles() - compiled0, nvrtc_loaded() ? "yes" : "no");
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
