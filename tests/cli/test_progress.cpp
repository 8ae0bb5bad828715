// The terminal's progress line: cut to the terminal's width by columns,
// never inside a character.
#include <doctest/doctest.h>

#include "../../cli/progress.hpp"

using gpen::cli::cut_to_columns;

TEST_CASE("the progress line is cut to columns, whole characters only") {
  SUBCASE("ASCII: a column a byte") {
    CHECK(cut_to_columns("step 12  t 0.5", 6).text == "step 1");
    CHECK(cut_to_columns("step 12  t 0.5", 6).columns == 6);
    CHECK(cut_to_columns("short", 80).text == "short");
    CHECK(cut_to_columns("", 10).columns == 0);
  }
  SUBCASE("two-byte characters take a column and are never split") {
    const auto c = cut_to_columns("h\xC3\xA9\xC3\xA9t", 2);  // "héét"
    CHECK(c.text == "h\xC3\xA9");
    CHECK(c.columns == 2);
    CHECK(cut_to_columns("\xC3\xA9\xC3\xA9\xC3\xA9", 10).columns == 3);
  }
  SUBCASE("wide characters take two columns; one that would pass the edge is left out") {
    const std::string han = "\xE6\xBC\xA2\xE5\xAD\x97";  // two CJK ideographs
    CHECK(cut_to_columns(han, 4).columns == 4);
    const auto c = cut_to_columns(han, 3);
    CHECK(c.text == "\xE6\xBC\xA2");
    CHECK(c.columns == 2);
  }
  SUBCASE("a combining mark stays with its letter and takes no column") {
    const auto c = cut_to_columns("e\xCC\x81x", 1);  // e, U+0301, x
    CHECK(c.text == "e\xCC\x81");
    CHECK(c.columns == 1);
  }
  SUBCASE("a byte that is no UTF-8 shows as one column") {
    const auto c = cut_to_columns("a\xFF\xE6\xBC", 3);  // 0xFF, then a sequence cut short
    CHECK(c.text == "a\xFF\xE6");
    CHECK(c.columns == 3);
  }
}
