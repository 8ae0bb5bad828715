// A progress line for long commands. On a terminal: one line rewritten in
// place (at most ten times a second). Piped or in CI: a plain line every
// `interval` seconds, flushed, so that a log shows the work is alive.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace gpen::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::FILE* out = stderr, double interval_s = 5.0);
  ~ProgressLine();  // ends the line on a terminal
  bool on_terminal() const { return tty_; }
  // The current state; shown now or later, as the output allows.
  void update(const std::string& text);
  // A line of its own (a phase, a warning), never overwritten.
  void note(const std::string& text);
  // Ends the progress line (the last state stays visible on a terminal).
  void finish();

 private:
  std::FILE* out_;
  bool tty_;
  double interval_s_;
  std::chrono::steady_clock::time_point last_{};
  std::size_t shown_width_ = 0;  // columns of the line on the terminal now
  bool open_ = false;
};

// The longest head of `text` that fits `max_columns` terminal columns, whole
// characters only, and the columns it takes.
struct CutText {
  std::string text;
  std::size_t columns = 0;
};
CutText cut_to_columns(const std::string& text, std::size_t max_columns);

// "1h02m", "3m05s", "42s"
std::string format_duration(double seconds);

}  // namespace gpen::cli
