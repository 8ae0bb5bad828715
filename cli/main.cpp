// gpen: JSON kernel specs -> specialised CUDA kernels.
#include <algorithm>
#include <cstdio>
#include <string>
#include <fmt/format.h>

#include "commands.hpp"
#include "json_output.hpp"
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
  gpen::cli::add_simulate(app, run);
  // With --json, a failure is a document too ("gpen.error/1"), on stdout;
  // the message still goes to stderr.
  const bool json = std::any_of(argv + 1, argv + argc, [](const char* a) { return std::string(a) == "--json"; });
  auto fail = [&](const std::string& kind, const std::string& message, int code, const gpen::SpecError* e = nullptr) {
    if (json) {
      try {
        const auto chosen = app.get_subcommands();
        gpen::cli::JsonChannel::emit(gpen::cli::error_document(chosen.empty() ? "" : chosen[0]->get_name(), kind, message, code, e));
      } catch (const std::exception& x) {
        fmt::print(stderr, "gpen: {}\n", x.what());
      }
    }
    return code;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : fail("usage", e.what(), gpen::cli::kExitUsage);
  } catch (const std::exception& e) {  // a callback's (--json's standard output could not be set aside)
    fmt::print(stderr, "gpen: error: {}\n", e.what());
    return fail("error", e.what(), gpen::cli::kExitInvalid);
  }
  try {
    return run();
  } catch (const gpen::UsageError& e) {
    fmt::print(stderr, "gpen: usage: {}\n", e.what());
    return fail("usage", e.what(), gpen::cli::kExitUsage);
  } catch (const gpen::SpecError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return fail("spec", e.detail().message, gpen::cli::kExitInvalid, &e);
  } catch (const gpen::NoDeviceError& e) {
    fmt::print(stderr, "gpen: {}\n", e.what());
    return fail("no_device", e.what(), gpen::cli::kExitNoDevice);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpen: error: {}\n", e.what());
    return fail("error", e.what(), gpen::cli::kExitInvalid);
  }
}
