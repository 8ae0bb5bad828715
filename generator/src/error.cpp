#include "gpen/generator/error.hpp"

#include <fmt/format.h>

namespace gpen {
namespace {

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

SpecError::SpecError(Detail d) : std::runtime_error(format_spec_error(d)), detail_(std::move(d)) {}

InternalError::InternalError(const std::string& what, const char* file, int line)
    : std::logic_error(fmt::format("internal error in gpen ({}:{}): {}", file, line, what)) {}

}  // namespace gpen
