#include "interrupt.hpp"

#include <signal.h>
#include <cstddef>
#include <mutex>
#include <unistd.h>

namespace gpen::cli {
namespace {

// One handler for every flag alive, in any thread (two gpen.simulate calls
// of a Python program may overlap): the first flag installs it and keeps
// the handler it replaced, the last one puts that back. A flag that saved
// and restored for itself would, ended out of order, restore another
// flag's handler, and Ctrl-C would never reach the program again.
std::mutex g_mutex;
int g_alive = 0;                // flags alive, under g_mutex
struct sigaction g_previous {};  // the handler before the first, under g_mutex
std::atomic<bool> g_raised{false};
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

InterruptFlag::InterruptFlag(const char* finishing) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (g_alive++ == 0) {
    // A Ctrl-C before this work began was someone else's; one while other
    // work runs stops this work too.
    g_raised = false;
    g_finishing = finishing;
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &g_previous);
  } else {
    g_finishing = "the work in progress";  // several: no one note fits them all
  }
}

InterruptFlag::~InterruptFlag() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_alive == 0) ::sigaction(SIGINT, &g_previous, nullptr);
}

const std::atomic<bool>& InterruptFlag::flag() const { return g_raised; }

}  // namespace gpen::cli
