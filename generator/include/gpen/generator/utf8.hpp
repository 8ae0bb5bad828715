// UTF-8 as the spec reader, error excerpts and generated comments see it.
#pragma once

#include <cstddef>

namespace gpen {

// Bytes of the UTF-8 sequence that starts with `lead` (1 to 4), or 0 where
// no valid sequence starts with it (a continuation byte, an overlong
// 0xC0/0xC1, or 0xF5-0xFF, past U+10FFFF).
constexpr std::size_t utf8_length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead >= 0xC2 && lead < 0xE0 ? 2 : lead >= 0xE0 && lead < 0xF0 ? 3 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
}

}  // namespace gpen
