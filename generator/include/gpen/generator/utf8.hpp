// UTF-8 as the spec reader, error excerpts, generated comments and the
// terminal's progress line see it.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpen {

// Bytes of the UTF-8 sequence that starts with `lead` (1 to 4), or 0 where
// no valid sequence starts with it (a continuation byte, an overlong
// 0xC0/0xC1, or 0xF5-0xFF, past U+10FFFF).
constexpr std::size_t utf8_length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead >= 0xC2 && lead < 0xE0 ? 2 : lead >= 0xE0 && lead < 0xF0 ? 3 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
}

// The character whose sequence starts at s[at]: its code point and its
// length in bytes; length 0 where none does (a continuation byte, a
// sequence cut short or broken, an overlong form, a surrogate, past
// U+10FFFF).
struct Utf8Char {
  char32_t code_point;
  std::size_t length;
};
constexpr Utf8Char utf8_char(std::string_view s, std::size_t at) {
  const auto lead = static_cast<unsigned char>(s[at]);
  const std::size_t n = utf8_length(lead);
  if (n == 0 || at + n > s.size()) return {lead, 0};
  char32_t cp = n == 1 ? lead : lead & (0x7Fu >> n);
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[at + k]);
    if ((b & 0xC0u) != 0x80u) return {lead, 0};
    cp = cp << 6 | (b & 0x3Fu);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {lead, 0};
  return {cp, n};
}

}  // namespace gpen
