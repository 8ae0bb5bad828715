#include "progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

#include "gpen/generator/utf8.hpp"

namespace gpen::cli {
namespace {

// Columns a terminal gives a character: none to combining marks and
// zero-width characters, two to East Asian wide ones and emoji, else one
// (a byte that is no UTF-8 shows as one replacement character).
std::size_t columns_of(char32_t cp) {
  const auto in = [cp](char32_t lo, char32_t hi) { return cp >= lo && cp <= hi; };
  if (in(0x0300, 0x036F) || in(0x1AB0, 0x1AFF) || in(0x1DC0, 0x1DFF) || in(0x200B, 0x200F) || in(0x20D0, 0x20FF) || in(0xFE00, 0xFE0F) ||
      in(0xFE20, 0xFE2F))
    return 0;
  if (in(0x1100, 0x115F) || in(0x2E80, 0x303E) || in(0x3041, 0x33FF) || in(0x3400, 0x4DBF) || in(0x4E00, 0x9FFF) || in(0xA000, 0xA4CF) ||
      in(0xAC00, 0xD7A3) || in(0xF900, 0xFAFF) || in(0xFE30, 0xFE4F) || in(0xFF00, 0xFF60) || in(0xFFE0, 0xFFE6) || in(0x1F300, 0x1F64F) ||
      in(0x1F680, 0x1F6FF) || in(0x1F900, 0x1F9FF) || in(0x1FA70, 0x1FAFF) || in(0x20000, 0x3FFFD))
    return 2;
  return 1;
}

}  // namespace

CutText cut_to_columns(const std::string& text, std::size_t max_columns) {
  CutText out;
  for (std::size_t i = 0; i < text.size();) {
    const Utf8Char c = utf8_char(text, i);
    const std::size_t bytes = c.length > 0 ? c.length : 1, w = c.length > 0 ? columns_of(c.code_point) : 1;
    if (out.columns + w > max_columns) break;
    out.text.append(text, i, bytes);
    out.columns += w;
    i += bytes;
  }
  return out;
}

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
    struct winsize ws {};
    const bool known = ::ioctl(::fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1;
    const CutText shown = cut_to_columns(text, known ? ws.ws_col - 1u : std::string::npos);
    // Pad over what the previous state left.
    fmt::print(out_, "\r{}{}", shown.text, std::string(shown_width_ > shown.columns ? shown_width_ - shown.columns : 0, ' '));
    shown_width_ = shown.columns;
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
