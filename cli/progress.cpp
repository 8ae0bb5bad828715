#include "progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

namespace gpen::cli {

ProgressLine::ProgressLine(std::FILE* out, double interval_s)
    : out_(out), tty_(::isatty(::fileno(out)) != 0), interval_s_(interval_s) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(const std::string& text) {
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since < (tty_ ? 0.1 : interval_s_)) return;
  last_ = now;
  if (tty_) {
    // Cut to the terminal's width, less one column: a line that reaches
    // the edge wraps, and the next \r rewrites only its last row.
    std::string shown = text;
    struct winsize ws {};
    if (::ioctl(::fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && shown.size() >= ws.ws_col) shown.resize(ws.ws_col - 1u);
    // Pad over what the previous state left.
    fmt::print(out_, "\r{}{}", shown, std::string(shown_width_ > shown.size() ? shown_width_ - shown.size() : 0, ' '));
    shown_width_ = shown.size();
    open_ = true;
  } else {
    fmt::print(out_, "{}\n", text);
  }
  std::fflush(out_);
}

void ProgressLine::note(const std::string& text) {
  if (open_) fmt::print(out_, "\r{}\r", std::string(shown_width_, ' '));
  fmt::print(out_, "{}\n", text);
  std::fflush(out_);
  open_ = false;
  shown_width_ = 0;
  last_ = {};  // the next state shows at once
}

void ProgressLine::finish() {
  if (open_) fmt::print(out_, "\n");
  std::fflush(out_);
  open_ = false;
  shown_width_ = 0;
}

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  if (s > 1e9) return "years";  // llround would overflow long before
  const long long t = std::llround(s);
  if (t >= 3600) return fmt::format("{}h{:02}m", t / 3600, t % 3600 / 60);
  if (t >= 60) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}s", t);
}

}  // namespace gpen::cli
