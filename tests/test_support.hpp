// Helpers shared by gpen's tests.
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "gpen/generator/spec.hpp"

namespace gpen::test {

inline std::string source_dir() { return GPEN_SOURCE_DIR; }

// A file's bytes; empty if it cannot be read.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every shipped spec of one kind directory (e.g. "stencil"), sorted.
inline std::vector<std::string> shipped_specs(const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() + "/specs/" + kind))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Whether `spec` may take the strategy `name` (a spec may narrow them: the
// fused multi-field specs leave out the strategies that spill there).
inline bool offers_strategy(const Spec& spec, const std::string& name) {
  const auto& v = spec.find_tunable("strategy")->values;
  return std::count(v.begin(), v.end(), TunableValue(name)) > 0;
}

// The SpecError that loading `json` throws (fails the test if none); with
// E = SpecErrors, every error of the spec (malformed JSON throws a SpecError).
template <class E = SpecError>
E spec_error_of(const std::string& json) {
  try {
    load_spec_string(json, "t.json");
  } catch (const E& e) {
    return e;
  }
  FAIL("expected a SpecError for:\n" << json);
  throw std::logic_error("unreachable");
}
inline SpecErrors spec_errors_of(const std::string& json) { return spec_error_of<SpecErrors>(json); }

// Among the errors that loading `json` reports, the one at `pointer` (fails
// the test if none).
inline SpecError spec_error_at(const std::string& json, const std::string& pointer) {
  const SpecErrors all = spec_errors_of(json);
  for (const auto& e : all.errors())
    if (e.pointer() == pointer) return e;
  FAIL("expected a SpecError at " << pointer << " for:\n" << json);
  throw std::logic_error("unreachable");
}

// `s` with the first `from` replaced by `to` (fails the test if absent).
inline std::string with(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "test setup: '" << from << "' not in the spec");
  return s.replace(at, from.size(), to);
}

// A fresh directory under /tmp, removed with everything in it.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/gpen-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

// Runs `body` in a forked child with `seconds` to finish and 8 GiB of
// address space, so that a hang, a crash or a read that never ends fails the
// test rather than stopping the suite or the machine. Returns what went
// wrong: `body`'s own text, an exception it let out, or the signal that ended
// the child; empty when all went well. `body` must not use doctest's checks
// (the child's results are not the parent's).
inline std::string in_child(unsigned seconds, const std::function<std::string()>& body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    alarm(seconds);
#if !defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer's shadow needs terabytes of address space: there the
    // deadline alone bounds the child.
    const rlimit memory{rlim_t{8} << 30, rlim_t{8} << 30};
    setrlimit(RLIMIT_AS, &memory);
#endif
    std::string out;
    try {
      out = body();
    } catch (const std::exception& e) {
      out = std::string("exception: ") + e.what();
    }
    if (!out.empty()) (void)!write(fds[1], out.data(), out.size());
    _exit(out.empty() ? 0 : 1);
  }
  close(fds[1]);
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status))
    return said + "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  if (WEXITSTATUS(status) != 0 && said.empty()) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return said;
}

// A small valid stencil spec, one line per key so that tests can predict lines.
inline std::string minimal_spec(const std::string& expr = "D2(u, x) + D2(u, y)", const std::string& extra = "") {
  return "{\n"
         "  \"name\": \"t\",\n"
         "  \"kind\": \"stencil\",\n"
         "  \"dtype\": \"float64\",\n"
         "  \"dims\": 2,\n"
         "  \"fields\": [{\"name\": \"u\", \"role\": \"input\", \"ghost\": 1}, {\"name\": \"v\", \"role\": \"output\"}],\n"
         "  \"params\": [{\"name\": \"k\", \"value\": 2}],\n"
         "  \"operators\": [{\"name\": \"D2\", \"derivative\": 2, \"order\": 2}],\n" +
         extra +
         "  \"outputs\": [{\"field\": \"v\", \"expr\": \"" + expr + "\"}]\n"
         "}\n";
}

// A stencil spec of inputs u and v (ghost 3), the central D1 and D2 of
// `order`, `more_operators` (JSON objects, each followed by ", "), and one
// output field per (name, expression) of `outputs`.
inline std::string two_input_spec(int dims, int order, const std::vector<std::pair<std::string, std::string>>& outputs,
                                  const std::string& more_operators = "") {
  std::string fields, exprs;
  for (const auto& [name, expr] : outputs) {
    fields += ", {\"name\": \"" + name + "\", \"role\": \"output\"}";
    exprs += std::string(exprs.empty() ? "" : ", ") + "{\"field\": \"" + name + "\", \"expr\": \"" + expr + "\"}";
  }
  const std::string o = std::to_string(order);
  return "{\"name\": \"t\", \"kind\": \"stencil\", \"dtype\": \"float64\", \"dims\": " + std::to_string(dims) +
         ",\n \"fields\": [{\"name\": \"u\", \"role\": \"input\", \"ghost\": 3}, {\"name\": \"v\", \"role\": \"input\", \"ghost\": 3}" + fields +
         "],\n \"operators\": [" + more_operators + "{\"name\": \"D1\", \"derivative\": 1, \"order\": " + o +
         "}, {\"name\": \"D2\", \"derivative\": 2, \"order\": " + o + "}],\n \"outputs\": [" + exprs + "]}\n";
}

}  // namespace gpen::test
