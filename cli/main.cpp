// gpen: JSON kernel specs -> specialised CUDA kernels.
#include <cstdio>
#include <fmt/format.h>

#include "commands.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/runtime/driver.hpp"

int main(int argc, char** argv) {
  CLI::App app{"gpen: turns kernel specs written in JSON into specialised CUDA kernels"};
  app.set_version_flag("--version", "gpen " GPEN_VERSION);
  app.require_subcommand(1);
  // Every option's help shows its default; subcommands (and theirs) copy
  // these option defaults when they are added, so this comes first.
  app.option_defaults()->always_capture_default();
  gpen::cli::Runner run;
  gpen::cli::add_check(app, run);
  gpen::cli::add_gen(app, run);
  gpen::cli::add_compile(app, run);
  gpen::cli::add_run(app, run);
  gpen::cli::add_bench(app, run);
  gpen::cli::add_cache(app, run);
  gpen::cli::add_survey(app, run);
  gpen::cli::add_tune(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : gpen::cli::kExitUsage;
  }
  try {
    return run();
  } catch (const gpen::UsageError& e) {
    fmt::print(stderr, "gpen: usage: {}\n", e.what());
    return gpen::cli::kExitUsage;
  } catch (const gpen::SpecError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return gpen::cli::kExitInvalid;
  } catch (const gpen::NoDeviceError& e) {
    fmt::print(stderr, "gpen: {}\n", e.what());
    return gpen::cli::kExitNoDevice;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpen: error: {}\n", e.what());
    return gpen::cli::kExitInvalid;
  }
}
