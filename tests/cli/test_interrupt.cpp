// Ctrl-C's flag when several live at once, in several threads (two
// gpen.simulate calls of one Python program): the handler the first
// replaced comes back when the last ends, whichever order they end in.
#include <doctest/doctest.h>

#include <signal.h>

#include <functional>
#include <future>
#include <thread>

#include "../../cli/interrupt.hpp"

using gpen::cli::InterruptFlag;

namespace {

void program_handler(int) {}  // stands for Python's own

// Whether SIGINT goes to program_handler now.
bool program_handles_sigint() {
  struct sigaction now {};
  ::sigaction(SIGINT, nullptr, &now);
  return now.sa_handler == program_handler;
}

// A flag made on a thread of its own, alive until end() is called.
class FlagThread {
 public:
  explicit FlagThread(const char* finishing)
      : thread_([this, finishing] {
          InterruptFlag flag(finishing);
          flag_ = &flag;
          made_.set_value();
          end_.get_future().wait();
        }) {
    made_.get_future().wait();
  }
  const InterruptFlag& flag() const { return *flag_; }
  void end() {
    end_.set_value();
    thread_.join();
  }

 private:
  std::promise<void> made_, end_;
  const InterruptFlag* flag_ = nullptr;
  std::thread thread_;
};

}  // namespace

TEST_CASE("Ctrl-C flags that overlap in threads share the handler and put the program's back when the last ends") {
  struct sigaction mine {}, before {};
  mine.sa_handler = program_handler;
  sigemptyset(&mine.sa_mask);
  ::sigaction(SIGINT, &mine, &before);

  FlagThread first("the first work");
  FlagThread second("the second work");  // made while the first lives
  CHECK(!program_handles_sigint());
  CHECK(!first.flag().raised());
  ::raise(SIGINT);  // one Ctrl-C: both stop (a second would end the test)
  CHECK(first.flag().raised());
  CHECK(second.flag().raised());
  first.end();  // out of order: the second still runs and still needs the handler
  CHECK(!program_handles_sigint());
  second.end();
  CHECK(program_handles_sigint());

  {
    InterruptFlag later("later work");  // a new run starts lowered: the Ctrl-C was the earlier runs'
    CHECK(!later.raised());
  }
  ::sigaction(SIGINT, &before, nullptr);
}
