// Ctrl-C for long commands: the first SIGINT sets a flag that the work polls
// so that it stops cleanly (stores what it has, prints its summary); a
// second one ends the process at once, as SIGINT would have.
#pragma once

#include <atomic>

namespace gpen::cli {

class InterruptFlag {
 public:
  // Installs the handler; the first Ctrl-C says "gpen: stopping after
  // <finishing> (Ctrl-C again to quit at once)". `finishing` is a string
  // literal (the handler writes it as it is).
  explicit InterruptFlag(const char* finishing);
  ~InterruptFlag();  // restores the previous one
  InterruptFlag(const InterruptFlag&) = delete;
  InterruptFlag& operator=(const InterruptFlag&) = delete;
  const std::atomic<bool>& flag() const;
  bool raised() const { return flag().load(); }

 private:
  const char* previous_finishing_;  // put back when this flag ends
};

// The exit code of a command stopped by Ctrl-C (128 + SIGINT).
constexpr int kExitInterrupted = 130;

}  // namespace gpen::cli
