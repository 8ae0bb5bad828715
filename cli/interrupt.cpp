#include "interrupt.hpp"

#include <signal.h>
#include <cstddef>
#include <unistd.h>

namespace gpen::cli {
namespace {

std::atomic<bool> g_raised{false};
struct sigaction g_previous {};
// What the first Ctrl-C's note says is finished: read by the handler, so an
// atomic that is lock-free (checked below) and safe to read there.
std::atomic<const char*> g_finishing{"the current work"};
static_assert(std::atomic<const char*>::is_always_lock_free, "the handler reads it");

void on_sigint(int) {
  if (g_raised.exchange(true)) {
    // The second Ctrl-C: die of SIGINT, as without the handler.
    ::signal(SIGINT, SIG_DFL);
    ::raise(SIGINT);
    return;
  }
  // write() alone: what a signal handler may call.
  auto say = [](const char* text) {
    std::size_t n = 0;
    while (text[n]) ++n;
    const ssize_t ignored = ::write(STDERR_FILENO, text, n);
    (void)ignored;
  };
  say("\ngpen: stopping after ");
  say(g_finishing.load());
  say(" (Ctrl-C again to quit at once)\n");
}

}  // namespace

InterruptFlag::InterruptFlag(const char* finishing) : previous_finishing_(g_finishing.exchange(finishing)) {
  g_raised = false;
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &g_previous);
}

InterruptFlag::~InterruptFlag() {
  ::sigaction(SIGINT, &g_previous, nullptr);
  g_finishing = previous_finishing_;
}

const std::atomic<bool>& InterruptFlag::flag() const { return g_raised; }

}  // namespace gpen::cli
