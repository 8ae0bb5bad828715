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
}
