// Tokenizer and Pratt parser for the expression language:
//   expr    := term (('+' | '-') term)*          precedence 1
//   term    := unary (('*' | '/') unary)*         precedence 2
//   unary   := ('-' | '+') unary | primary        precedence 3
//   primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
#include <algorithm>
#include <cctype>
#include <string>

#include <fmt/format.h>

#include "gpen/generator/expr_ast.hpp"
#include "gpen/generator/limits.hpp"
#include "gpen/generator/utf8.hpp"

namespace gpen {
namespace {

// The character of `s` at `at` for a message: printable ASCII as itself in
// quotes, a whole UTF-8 sequence as itself and its code point ('λ' (U+03BB)),
// a control character or a byte that starts no valid sequence by its code.
std::string character_at(const std::string& s, std::size_t at) {
  const auto b = static_cast<unsigned char>(s[at]);
  if (b >= 0x20 && b < 0x7f) return std::string("'") + s[at] + "'";
  if (b < 0x80) return fmt::format("U+{:04X} (a control character)", b);
  const Utf8Char c = utf8_char(s, at);
  if (c.length == 0) return fmt::format("byte 0x{:02X} (not UTF-8)", b);
  return fmt::format("'{}' (U+{:04X})", s.substr(at, c.length), static_cast<unsigned>(c.code_point));
}

struct Token {
  enum class Kind { Number, Name, Op, End } kind;
  std::string text;
  std::size_t offset;
};

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = s[i];
    if (std::isspace(c)) { ++i; continue; }
    const std::size_t start = i;
    if (std::isdigit(c) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
        if (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) {
          i = j;
          while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        } else {
          throw ExprSyntaxError{j, "malformed number '" + s.substr(start, j - start) + "'", "digits after the exponent"};
        }
      }
      const std::string num = s.substr(start, i - start);
      if (num.find('.') != num.rfind('.')) throw ExprSyntaxError{start, "malformed number '" + num + "'", "a number"};
      if (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_')) {
        throw ExprSyntaxError{i, "unexpected character '" + std::string(1, s[i]) + "' after a number",
                              "an operator or ')'"};
      }
      out.push_back({Token::Kind::Number, num, start});
    } else if (std::isalpha(c) || c == '_') {
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      out.push_back({Token::Kind::Name, s.substr(start, i - start), start});
    } else if (std::string("+-*/(),").find(static_cast<char>(c)) != std::string::npos) {
      out.push_back({Token::Kind::Op, std::string(1, static_cast<char>(c)), start});
      ++i;
    } else {
      throw ExprSyntaxError{start, "unexpected character " + character_at(s, start), "a number, a name, an operator (+ - * /), '(' or ')'"};
    }
  }
  out.push_back({Token::Kind::End, "", s.size()});
  return out;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

  AstPtr parse_all() {
    AstPtr e = parse(0);
    if (peek().kind != Token::Kind::End) {
      throw ExprSyntaxError{peek().offset, "unexpected '" + peek().text + "'", "an operator or the end of the expression"};
    }
    return e;
  }

 private:
  const Token& peek() const { return t_[pos_]; }
  const Token& next() { return t_[pos_++]; }
  bool is_op(const char* op) const { return peek().kind == Token::Kind::Op && peek().text == op; }

  static int binary_precedence(const Token& t) {
    if (t.kind != Token::Kind::Op) return -1;
    if (t.text == "+" || t.text == "-") return 1;
    if (t.text == "*" || t.text == "/") return 2;
    return -1;
  }

  // Counts the parser's own recursion (parentheses nest it without deepening the tree).
  struct Nested {
    Parser& p;
    explicit Nested(Parser& parser, std::size_t offset) : p(parser) {
      if (++p.nesting_ > kMaxExprDepth)
        throw ExprSyntaxError{offset, "the expression nests deeper than " + std::to_string(kMaxExprDepth) + " levels",
                              "fewer nested parentheses, calls and operators: split it with lets"};
    }
    ~Nested() { --p.nesting_; }
  };

  // A node; refused where the tree would grow deeper than kMaxExprDepth
  // (a long left-deep sum nests without recursing in the parser).
  static AstPtr node(Ast::Kind kind, std::size_t offset, std::string text, std::vector<AstPtr> args) {
    int depth = 1;
    for (const auto& a : args) depth = std::max(depth, a->depth + 1);
    if (depth > kMaxExprDepth)
      throw ExprSyntaxError{offset, "the expression nests deeper than " + std::to_string(kMaxExprDepth) + " levels",
                            "fewer terms in one sum or product, or nested calls: split it with lets"};
    return std::make_shared<Ast>(Ast{kind, offset, std::move(text), std::move(args), depth});
  }

  AstPtr parse(int min_prec) {
    const Nested guard(*this, peek().offset);
    AstPtr lhs = parse_unary();
    for (;;) {
      const int prec = binary_precedence(peek());
      if (prec < 0 || prec < min_prec) break;
      const Token op = next();
      AstPtr rhs = parse(prec + 1);  // left associative
      lhs = node(Ast::Kind::Binary, op.offset, op.text, {lhs, rhs});
    }
    return lhs;
  }

  AstPtr parse_unary() {
    if (is_op("-") || is_op("+")) {
      const Nested guard(*this, peek().offset);
      const Token op = next();
      AstPtr operand = parse_unary();
      return node(Ast::Kind::Unary, op.offset, op.text, {operand});
    }
    return parse_primary();
  }

  AstPtr parse_primary() {
    const Token& t = peek();
    if (t.kind == Token::Kind::Number) {
      next();
      return node(Ast::Kind::Number, t.offset, t.text, {});
    }
    if (t.kind == Token::Kind::Name) {
      const Token name = next();
      if (!is_op("(")) return node(Ast::Kind::Name, name.offset, name.text, {});
      next();
      std::vector<AstPtr> args;
      if (!is_op(")")) {
        for (;;) {
          args.push_back(parse(0));
          if (is_op(",")) { next(); continue; }
          break;
        }
      }
      expect(")", "',' or ')' closing the call of '" + name.text + "'");
      return node(Ast::Kind::Call, name.offset, name.text, std::move(args));
    }
    if (is_op("(")) {
      next();
      AstPtr e = parse(0);
      expect(")", "')'");
      return e;
    }
    if (t.kind == Token::Kind::End) throw ExprSyntaxError{t.offset, "unexpected end of the expression", "a number, a name or '('"};
    throw ExprSyntaxError{t.offset, "unexpected '" + t.text + "'", "a number, a name or '('"};
  }

  void expect(const char* op, const std::string& what) {
    if (!is_op(op)) {
      const Token& t = peek();
      throw ExprSyntaxError{t.offset, t.kind == Token::Kind::End ? "unexpected end of the expression" : "unexpected '" + t.text + "'", what};
    }
    next();
  }

  std::vector<Token> t_;
  std::size_t pos_ = 0;
  int nesting_ = 0;
};

}  // namespace

AstPtr parse_expression(const std::string& text) {
  if (text.size() > kMaxExprChars)
    throw ExprSyntaxError{kMaxExprChars, "the expression has " + std::to_string(text.size()) + " characters",
                          "at most " + std::to_string(kMaxExprChars) + ": split it with lets"};
  return Parser(tokenize(text)).parse_all();
}

std::string to_string(const Ast& a) {
  switch (a.kind) {
    case Ast::Kind::Number:
    case Ast::Kind::Name: return a.text;
    case Ast::Kind::Unary: return "(" + a.text + to_string(*a.args[0]) + ")";
    case Ast::Kind::Binary: return "(" + to_string(*a.args[0]) + " " + a.text + " " + to_string(*a.args[1]) + ")";
    case Ast::Kind::Call: {
      std::string s = a.text + "(";
      for (std::size_t i = 0; i < a.args.size(); ++i) s += (i ? ", " : "") + to_string(*a.args[i]);
      return s + ")";
    }
  }
  return {};
}

namespace {

// 1: + -, 2: * /, 3: unary, 4: atoms and calls.
int precedence(const Ast& a) {
  if (a.kind == Ast::Kind::Binary) return a.text == "+" || a.text == "-" ? 1 : 2;
  return a.kind == Ast::Kind::Unary ? 3 : 4;
}

std::string source_text(const Ast& a, int need) {
  std::string s;
  switch (a.kind) {
    case Ast::Kind::Number:
    case Ast::Kind::Name: s = a.text; break;
    case Ast::Kind::Unary: s = a.text + source_text(*a.args[0], a.args[0]->kind == Ast::Kind::Unary ? 4 : 3); break;  // never "--a"
    case Ast::Kind::Binary: {
      // Left associative: the right operand keeps its parentheses at equal precedence.
      const int p = precedence(a);
      s = source_text(*a.args[0], p) + " " + a.text + " " + source_text(*a.args[1], p + 1);
      break;
    }
    case Ast::Kind::Call: {
      s = a.text + "(";
      for (std::size_t i = 0; i < a.args.size(); ++i) s += (i ? ", " : "") + source_text(*a.args[i], 0);
      s += ")";
      break;
    }
  }
  return precedence(a) < need ? "(" + s + ")" : s;
}

}  // namespace

std::string to_source_text(const Ast& ast) { return source_text(ast, 0); }

}  // namespace gpen
