#include "interrupt.hpp"

#include <signal.h>
#include <unistd.h>

namespace gpen::cli {
namespace {

std::atomic<bool> g_raised{false};
struct sigaction g_previous {};

void on_sigint(int) {
  if (g_raised.exchange(true)) {
    // The second Ctrl-C: die of SIGINT, as without the handler.
    ::signal(SIGINT, SIG_DFL);
    ::raise(SIGINT);
    return;
  }
  static const char msg[] = "\ngpen: stopping after the current measurement (Ctrl-C again to quit at once)\n";
  const ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
}

}  // namespace

InterruptFlag::InterruptFlag() {
  g_raised = false;
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &g_previous);
}

InterruptFlag::~InterruptFlag() { ::sigaction(SIGINT, &g_previous, nullptr); }

const std::atomic<bool>& InterruptFlag::flag() const { return g_raised; }

}  // namespace gpen::cli
