// Ctrl-C for long commands: the first SIGINT sets a flag that the work polls
// so that it stops cleanly (stores what it has, prints its summary); a
// second one ends the process at once, as SIGINT would have. Flags may
// live in several threads at once (the Python module's calls): they share
// one handler and one flag, which a Ctrl-C raises for all of them.
#pragma once

#include <atomic>

namespace gpen::cli {

class InterruptFlag {
 public:
  // The first flag alive installs the handler and lowers the flag; the
  // first Ctrl-C says "gpen: stopping after <finishing> (Ctrl-C again to
  // quit at once)", or "the work in progress" once flags overlapped.
  // `finishing` is a string literal (the handler writes it as it is).
  explicit InterruptFlag(const char* finishing);
  ~InterruptFlag();  // the last flag alive restores the handler the first replaced
  InterruptFlag(const InterruptFlag&) = delete;
  InterruptFlag& operator=(const InterruptFlag&) = delete;
  const std::atomic<bool>& flag() const;
  bool raised() const { return flag().load(); }
};

// What Ctrl-C lets a simulation finish: the step in progress; on the CPU
// reference only the rows in progress, their step undone (CancelScope, families/common/host_array.hpp).
constexpr const char* simulation_interrupt_note(bool cpu) {
  return cpu ? "the CPU reference's rows in progress (their step undone), with a last snapshot where the run writes them"
             : "the current step, with a last snapshot where the run writes them";
}

// The exit code of a command stopped by Ctrl-C (128 + SIGINT).
constexpr int kExitInterrupted = 130;

}  // namespace gpen::cli
