#include "gpen/generator/error.hpp"

#include <fmt/format.h>

namespace gpen {
namespace {

// Spec text quoted in a message (a name, a key, a value) with control
// characters escaped, so that it can neither forge message lines nor send
// terminal escapes, and cut where it would drown the message.
std::string printable(const std::string& s) {
  constexpr std::size_t kMost = 400;
  std::string out;
  for (std::size_t i = 0; i < s.size() && out.size() < kMost; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
  }
  if (out.size() >= kMost) out += "...";
  return out;
}

SpecError::Detail printable(SpecError::Detail d) {
  d.pointer = printable(d.pointer);
  d.message = printable(d.message);
  d.expected = printable(d.expected);
  return d;
}

std::string format_spec_error(const SpecError::Detail& d) {
  std::string out = d.file;
  if (d.where.line > 0) out += fmt::format(":{}:{}", d.where.line, d.where.column);
  out += ": error: ";
  if (!d.pointer.empty()) out += d.pointer + ": ";
  out += d.message;
  if (!d.expected.empty()) out += "\n  expected: " + d.expected;
  if (!d.excerpt.empty()) out += "\n" + d.excerpt;
  return out;
}

}  // namespace

std::string quoted_text(const std::string& text, std::size_t most) {
  return text.size() <= most ? text : text.substr(0, most) + "...";
}

SpecError::SpecError(Detail d) : SpecError(printable(std::move(d)), 0) {}
SpecError::SpecError(Detail d, int) : std::runtime_error(format_spec_error(d)), detail_(std::move(d)) {}
SpecError::SpecError(Detail d, std::string what) : std::runtime_error(what), detail_(std::move(d)) {}

namespace {

std::string join_errors(const std::vector<SpecError>& errors, std::size_t not_shown) {
  GPEN_INTERNAL_CHECK(!errors.empty(), "SpecErrors without an error");
  std::string out;
  for (const auto& e : errors) out += (out.empty() ? "" : "\n") + std::string(e.what());
  if (not_shown > 0)
    out += fmt::format("\n{}: {} more error{} not shown", errors.front().detail().file, not_shown, not_shown == 1 ? "" : "s");
  return out;
}

}  // namespace

SpecErrors::SpecErrors(std::vector<SpecError> errors, std::size_t not_shown)
    : SpecError(errors.at(0).detail(), join_errors(errors, not_shown)), errors_(std::move(errors)), not_shown_(not_shown) {}

UsageError::UsageError(const std::string& what) : std::invalid_argument(printable(what)) {}

InternalError::InternalError(const std::string& what, const char* file, int line)
    : std::logic_error(fmt::format("internal error in gpen ({}:{}): {}", file, line, what)) {}

}  // namespace gpen
