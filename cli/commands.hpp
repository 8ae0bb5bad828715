// The gpen subcommands. Each registers itself on the CLI11 app and returns
// the process exit code: 0 ok, 1 invalid spec or failed check, 2 usage,
// 3 no GPU/driver where one was needed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace gpen::cli {

constexpr int kExitOk = 0;
constexpr int kExitInvalid = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoDevice = 3;

// Set by a subcommand's callback; main() returns it.
using Runner = std::function<int()>;

void add_check(CLI::App& app, Runner& run);
void add_gen(CLI::App& app, Runner& run);
void add_compile(CLI::App& app, Runner& run);
void add_run(CLI::App& app, Runner& run);
void add_bench(CLI::App& app, Runner& run);
void add_cache(CLI::App& app, Runner& run);
void add_survey(CLI::App& app, Runner& run);
void add_tune(CLI::App& app, Runner& run);
void add_simulate(CLI::App& app, Runner& run);

}  // namespace gpen::cli
