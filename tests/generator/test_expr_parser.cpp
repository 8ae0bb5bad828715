#include "gpen/generator/expr_ast.hpp"
#include "test_support.hpp"

using namespace gpen;

TEST_CASE("precedence and associativity") {
  CHECK(to_string(*parse_expression("a + b * c")) == "(a + (b * c))");
  CHECK(to_string(*parse_expression("a - b - c")) == "((a - b) - c)");
  CHECK(to_string(*parse_expression("a / b / c")) == "((a / b) / c)");
  CHECK(to_string(*parse_expression("-a * b")) == "((-a) * b)");
  CHECK(to_string(*parse_expression("-(a + b)")) == "(-(a + b))");
  CHECK(to_string(*parse_expression("(a + b) * c")) == "((a + b) * c)");
  CHECK(to_string(*parse_expression("a - -b")) == "(a - (-b))");
}

TEST_CASE("numbers, names and calls") {
  CHECK(to_string(*parse_expression("1.5e-3 * x_1")) == "(1.5e-3 * x_1)");
  CHECK(to_string(*parse_expression(".5")) == ".5");
  CHECK(to_string(*parse_expression("fma(a, b, c)")) == "fma(a, b, c)");
  CHECK(to_string(*parse_expression("D2(D1(u, x), y)")) == "D2(D1(u, x), y)");
  CHECK(to_string(*parse_expression("f()")) == "f()");
}

static ExprSyntaxError syntax_error(const std::string& s) {
  try {
    parse_expression(s);
  } catch (const ExprSyntaxError& e) {
    return e;
  }
  FAIL("no syntax error for " << s);
  return {};
}

TEST_CASE("syntax errors carry the offending offset") {
  CHECK(syntax_error("a +").offset == 3);
  CHECK(syntax_error("a +").message == "unexpected end of the expression");
  CHECK(syntax_error("a $ b").offset == 2);
  CHECK(syntax_error("(a + b").offset == 6);
  CHECK(syntax_error("(a + b").expected == "')'");
  CHECK(syntax_error("f(a b)").offset == 4);
  CHECK(syntax_error("1.2.3").offset == 0);
  CHECK(syntax_error("2x").offset == 1);
  CHECK(syntax_error("1e+").offset == 3);
  CHECK(syntax_error("a b").message == "unexpected 'b'");
  // A character outside ASCII is named whole, with its code point; a byte of no character, by its value.
  CHECK(syntax_error("a $ b").message == "unexpected character '$'");
  CHECK(syntax_error("\xce\xbb\xce\xbb + u").message == "unexpected character '\xce\xbb' (U+03BB)");
  CHECK(syntax_error("u + \xe2\x88\x87").message == "unexpected character '\xe2\x88\x87' (U+2207)");
  CHECK(syntax_error("u + \xce").message == "unexpected character byte 0xCE (not UTF-8)");
  CHECK(syntax_error("u + \xc0\xaf").message == "unexpected character byte 0xC0 (not UTF-8)");
  CHECK(syntax_error("u\t+\x01").message == "unexpected character U+0001 (a control character)");  // the tab is a space
}
