#include "gpen/runtime/arch.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace gpen {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// `s` in double quotes, a control character or a non-ASCII byte escaped,
// so that a stray newline shows in the message.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '"' || c == '\\') out += {'\\', c};
    else if (u < 0x20 || u >= 0x7f) out += fmt::format("\\x{:02x}", u);
    else out += c;
  }
  return out + "\"";
}

}  // namespace

bool valid_arch(const std::string& arch) {
  if (arch.compare(0, 3, "sm_") != 0) return false;
  std::size_t digits = 0;
  while (3 + digits < arch.size() && digit(arch[3 + digits])) ++digits;
  if (digits < 2 || digits > 3 || arch[3] == '0') return false;
  const std::string suffix = arch.substr(3 + digits);
  return suffix.empty() || suffix == "a" || suffix == "f";
}

int arch_capability(const std::string& arch) {
  if (!valid_arch(arch)) return 0;
  int cc = 0;
  for (std::size_t i = 3; i < arch.size() && digit(arch[i]); ++i) cc = cc * 10 + (arch[i] - '0');
  return cc;
}

std::string arch_problem(const std::string& arch) {
  if (valid_arch(arch)) return {};
  return fmt::format("{} is not a GPU architecture: expected sm_ and 2 or 3 digits, optionally followed by a or f (sm_90, sm_90a, sm_100f)",
                     quoted(arch));
}

void check_arch(const std::string& arch) {
  if (!valid_arch(arch)) throw std::invalid_argument(arch_problem(arch));
}

}  // namespace gpen
