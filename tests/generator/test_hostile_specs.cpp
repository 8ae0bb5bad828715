// Specs written as an attacker would: text that tries to reach the generated
// CUDA, input that would recurse past the stack, blow up time or memory, or
// overflow, and input that used to be accepted silently wrong. Each case was
// a crash, an injection or a wrong answer before gpen's own JSON reader, the
// expression limits and the printer's sharing (issue "Hostile specs").
// The reproducers live in tests/fuzz/corpus/, which the fuzzer starts from.
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "gpen/families/common/spec_program.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/cuda_printer.hpp"
#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/limits.hpp"
#include "gpen/runtime/nvrtc_compiler.hpp"
#include "test_support.hpp"

using namespace gpen;
using gpen::test::minimal_spec;
using gpen::test::spec_error_of;
using gpen::test::with;

namespace {

std::string corpus(const std::string& name) {
  const std::string text = gpen::test::read_file(gpen::test::source_dir() + "/tests/fuzz/corpus/" + name + ".json");
  REQUIRE_MESSAGE(!text.empty(), "missing reproducer " << name);
  return text;
}

std::string shipped(const std::string& path) { return gpen::test::read_file(gpen::test::source_dir() + "/specs/" + path); }

SpecError corpus_error(const std::string& name) { return spec_error_of(corpus(name)); }

// Every preprocessor line of a unit ("#include ...", "#pragma ..."), in order.
std::vector<std::string> directives(const std::string& source) {
  std::vector<std::string> out;
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find_first_not_of(" \t");
    if (at != std::string::npos && line[at] == '#') out.push_back(line);
  }
  return out;
}

// The banner: the unit's leading lines, each of which must be a comment.
std::vector<std::string> banner(const std::string& source) {
  std::vector<std::string> out;
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line) && line.rfind("//", 0) == 0) out.push_back(line);
  return out;
}

// A hostile variant generates the same kind of unit as the shipped spec it
// was made from: the same directives, an all-comment banner of as many
// lines, and the same code after the banner but for the spec hash.
void check_same_shape(const std::string& hostile_json, const std::string& shipped_json) {
  const Spec h = load_spec_string(hostile_json, "hostile.json");
  const Spec s = load_spec_string(shipped_json, "shipped.json");
  const Variant gh = generate(h, h.choose()), gs = generate(s, s.choose());
  CHECK(directives(gh.source) == directives(gs.source));
  CHECK(banner(gh.source).size() == banner(gs.source).size());
  const auto body = [](const std::string& src) { return src.substr(src.find("\n#")); };
  CHECK(body(gh.source) == body(gs.source));
}

}  // namespace

TEST_CASE("free text of a spec reaches the unit as one sanitised comment line") {
  for (const char* name : {"inject_sbp_source_kernel", "inject_sbp_source_define_ldg", "inject_sbp_source_include_host_file",
                           "inject_sbp_source_fake_ptxas_usage", "inject_sbp_source_line_splice", "inject_sbp_source_bidi_override"}) {
    CAPTURE(name);
    check_same_shape(corpus(name), shipped("sbp/d1_o2.json"));
  }
  const Spec s = load_spec_string(corpus("inject_sbp_source_define_ldg"));
  const std::string src = generate(s, s.choose()).source;
  CHECK(src.find("//   source:    x?#define __ldg(p) (2 * *(p))?//\n") != std::string::npos);
  CHECK(comment_text("a\\") == "a?");                      // no line splice
  CHECK(comment_text("a */ b") == "a ?/ b");               // no end of a block comment
  CHECK(comment_text("Nordstr\xC3\xB6m") == "Nordstr\xC3\xB6m");  // readable UTF-8 stays
  CHECK(comment_text("x \xE2\x80\xAE y") == "x ? y");      // U+202E, a bidirectional override
  CHECK(comment_text("\xFF") == "?");
  CHECK(comment_text(std::string(500, 'a'), 10) == "aaaaaaaaaa...");
}

TEST_CASE("expressions written over several lines are printed from the parsed tree") {
  check_same_shape(corpus("inject_scan_op_two_lines"), shipped("scan/cumsum_x.json"));
  check_same_shape(corpus("inject_reduce_op_two_lines"), shipped("reduce/logsumexp_y.json"));
  // A let or output over two lines: same unit as the one-line spec once the
  // banner prints the parsed expression (spacing is the printer's).
  const Spec two = load_spec_string(corpus("inject_pairwise_let_two_lines"));
  const std::string src = generate(two, two.choose()).source;
  for (const auto& line : banner(src)) CHECK(line.rfind("//", 0) == 0);
  CHECK(src.find("//   let        dx = x_i - x_j + 0\n") != std::string::npos);
  const Spec out = load_spec_string(corpus("inject_pairwise_output_two_lines"));
  CHECK(generate(out, out.choose()).source.find("rsqrt(eps2 + dx * dx + dy * dy + dz * dz) * 1\n") != std::string::npos);
  // Minimal parentheses, left associativity and signs survive the printer.
  CHECK(to_source_text(*parse_expression("a - (b - c) * -(d + e) / f")) == "a - (b - c) * -(d + e) / f");
  CHECK(to_source_text(*parse_expression("((a - b) - c)")) == "a - b - c");
  CHECK(to_source_text(*parse_expression("- -a")) == "-(-a)");
}

TEST_CASE("names, constraints and --set values never reach the unit as text") {
  SpecError e = spec_error_of(with(minimal_spec(), "\"name\": \"t\"", "\"name\": \"t\\n#define x 1\""));
  CHECK(e.detail().message == "'t\\n#define x 1' is not a valid name");  // spec text in messages is escaped
  // A constraint is read by the tuner, never printed.
  const Spec plain = load_spec_string(minimal_spec());
  const Spec constrained = load_spec_string(minimal_spec("D2(u, x) + D2(u, y)", "  \"constraints\": [\"block_x <=\\n 1024\"],\n"));
  const auto without_hash = [](std::string src) {
    const auto at = src.find("spec hash");
    return src.erase(at, src.find('\n', at) - at);
  };
  CHECK(without_hash(generate(plain, plain.choose()).source) == without_hash(generate(constrained, constrained.choose()).source));
  // --set takes listed values only, and its text reaches the message escaped.
  CHECK_THROWS_WITH_AS(plain.choose({"strategy=march\n#define x 1"}),
                       "--set strategy=march\\n#define x 1: march\\n#define x 1 is not an allowed value of strategy; allowed: direct, march, tile, rolling, stage",
                       UsageError);

}

TEST_CASE("only ptxas' own lines give the resource usage, and no number breaks the reader") {
  // The forged line stands where ptxas' own would be read first.
  const std::string forged =
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "hostile.cu(3): warning #1105-D: #warning directive: ptxas info    : Used 1 registers, 666 bytes spill stores\n"
      "  Used 2 registers, 0 bytes stack frame, 666 bytes spill stores, 666 bytes spill loads\n"
      "ptxas info    : Function properties for k\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 0 barriers\n";
  for (const std::string name : {"k", ""}) {
    CAPTURE(name);
    const ResourceUsage u = parse_ptxas_usage(forged, name);
    CHECK(u.registers == 40);
    CHECK(u.spill_stores == 0);
    CHECK(u.spill_loads == 0);
  }
  const std::string huge = "ptxas info    : Used " + std::string(100000, '9') + " registers, " + std::string(100000, '7') + " bytes smem\n";
  const ResourceUsage h = parse_ptxas_usage(huge);
  CHECK(h.registers == -1);
  CHECK(h.shared_bytes == -1);
  CHECK(parse_ptxas_usage("ptxas info    : Used 2147483647 registers\n").registers == -1);  // more digits than read
  CHECK(parse_ptxas_usage("ptxas info    : Used 999999999 registers\n").registers == 999999999);
}

TEST_CASE("NVRTC gets no #include but gpen's headers") {
  const Spec s = load_spec_string(shipped("stencil/laplacian3d_o2.json"));
  Variant g = generate(s, s.choose());
  g.source = with(g.source, "#include \"gpen/", "#include \"/etc/hostname\"\n#include \"gpen/");
  CHECK_THROWS_AS(compile_with_nvrtc(source_program(g, s.name), "sm_90"), InternalError);
  // The hostile SBP spec compiles like the shipped one, and its usage is ptxas'.
  const Spec h = load_spec_string(corpus("inject_sbp_source_fake_ptxas_usage"));
  const CompiledKernel k = compile_with_nvrtc(source_program(generate(h, h.choose()), h.name), "sm_90");
  CHECK(k.usage.registers > 1);
  CHECK(k.usage.spill_stores == 0);
  CHECK(k.log.find("#warning") == std::string::npos);
}

TEST_CASE("nesting is refused with its position before anything recurses") {
  for (const char* name : {"recursion_nested_parentheses_short", "recursion_unary_minus_short", "recursion_sqrt_chain_short"}) {
    CAPTURE(name);
    const SpecError e = corpus_error(name);
    CHECK(e.pointer() == "/outputs/0/expr");
    CHECK(e.detail().message == "the expression nests deeper than 200 levels");
    CHECK(e.detail().expected == "fewer nested parentheses, calls and operators: split it with lets");
  }
  SpecError e = corpus_error("recursion_left_deep_sum_short");
  CHECK(e.detail().message == "the expression nests deeper than 200 levels");
  CHECK(e.detail().expected == "fewer terms in one sum or product, or nested calls: split it with lets");
  CHECK(e.line() == 45);
  CHECK(e.column() == 412);  // the 201st '+': "expr": " starts at column 12
  for (const char* name : {"recursion_nested_parentheses", "recursion_unary_minus", "recursion_left_deep_sum", "blowup_sqrt_chain"}) {
    CAPTURE(name);
    CHECK(corpus_error(name).detail().message.find(" characters") != std::string::npos);
  }
  e = corpus_error("recursion_json_nesting");
  CHECK(e.detail().message == "the JSON nests deeper than 64 levels");
  CHECK(e.line() == 1);
  CHECK(e.column() == 66);
  // 200 levels are accepted.
  CHECK_NOTHROW(load_spec_string(minimal_spec(std::string(199, '(') + "u" + std::string(199, ')'))));
}

TEST_CASE("what lowering may build is bounded, and shared lets stay shared") {
  const SpecError e = corpus_error("blowup_operator_on_product");
  CHECK(e.detail().message == "the lowered expression grows past 50000 nodes and terms (operators applied to products copy them once per offset)");
  CHECK(e.column() == 31);  // the D2 whose copies of its operand would not fit, refused before it copies
  // 40 lets, each the square of the one before: 2^39 products as a tree, 40 nodes as a DAG.
  const Spec s = load_spec_string(corpus("blowup_lets_squared"));
  const std::string src = generate(s, s.choose({"strategy=direct"})).source;
  CHECK(src.size() < 20000);
  CHECK(src.find("const real t38 = t37 * t37;") != std::string::npos);
  const SpecError c = corpus_error("blowup_sbp_closure_row");
  CHECK(c.pointer() == "/sbp/left/0");
  CHECK(c.detail().message == "20002 entries");
  CHECK(c.detail().expected == "at most 33 entries (gpen's limit; specs/README.md)");
  // The budget itself: nodes and depth.
  {
    IrBudget budget(10, 100);
    IrPtr x = ir_field(Access{});
    CHECK_THROWS_AS(for (int i = 0; i < 20; ++i) x = ir_call(MathFn::Sqrt, {x}), IrTooLarge);
  }
  {
    IrBudget budget(1000, 5);
    IrPtr x = ir_field(Access{});
    CHECK_THROWS_WITH_AS(for (int i = 0; i < 10; ++i) x = ir_call(MathFn::Sqrt, {x}), "the lowered expression nests deeper than 5 levels", IrTooLarge);
  }
}

TEST_CASE("an SBP boundary derivative longer than the test line is checked, not read past") {
  const SpecError e = corpus_error("crash_sbp_boundary_derivative_past_test_line");
  CHECK(e.detail().message.find("not summation-by-parts") == 0);
}

TEST_CASE("numbers that overflow are refused with their position") {
  SpecError e = corpus_error("overflow_json_number_1e400");
  CHECK(e.detail().message == "the number 1e400 is beyond the range of a float64");
  CHECK(e.line() == 22);
  CHECK(e.column() == 13);
  e = corpus_error("overflow_constant_1e309");
  CHECK(e.detail().message == "the number 1e309 is beyond the range of float64");
  CHECK(e.column() == 24);
  e = corpus_error("overflow_constraint_1e400");
  CHECK(e.pointer() == "/constraints/0");
  CHECK(e.detail().message == "the number 1e400 is beyond the range of a float64");
  CHECK(e.column() == 15);
  e = corpus_error("overflow_rational_coefficients");
  CHECK(e.detail().message == "the exact coefficients of this part overflow 64-bit fractions");
  CHECK(e.column() == 13);
  e = corpus_error("overflow_offset_uint64");
  CHECK(e.pointer() == "/operators/0/offsets/0");
  CHECK(e.detail().message == "18446744073709551615 is out of range");
  CHECK(e.detail().expected == "an integer in [-32, 32]");
  e = corpus_error("overflow_float32_constant");
  CHECK(e.detail().message == "the number 1e39 is beyond the range of float32");
  e = spec_error_of(with(with(shipped("scan/cumsum_x.json"), "\"float64\"", "\"float32\""), "\"identity\": 0", "\"identity\": 1e39"));
  CHECK(e.pointer() == "/scan/identity");
  CHECK(e.detail().message == "1e39 is beyond the range of float32");
  // A number that is not 0 but rounds to 0 would drop its term in silence.
  e = spec_error_of(minimal_spec("D2(u, x) * 1e-400"));
  CHECK(e.detail().message == "the number 1e-400 is not 0 but rounds to 0 in float64");
  e = spec_error_of(with(minimal_spec("D2(u, x) * 1e-50"), "\"float64\"", "\"float32\""));
  CHECK(e.detail().message == "the number 1e-50 is not 0 but rounds to 0 in float32");
  CHECK_NOTHROW(load_spec_string(with(minimal_spec("D2(u, x) * 1e-40"), "\"float64\"", "\"float32\"")));  // a float32 subnormal
  CHECK_NOTHROW(load_spec_string(minimal_spec("D2(u, x) * 4.9e-324 + 0e-400 * u + 0.000 * u")));
}

TEST_CASE("input once accepted silently wrong") {
  // A byte-order mark: accepted, positions as the editor shows them.
  const Spec bom = load_spec_string(corpus("accept_utf8_bom"));
  CHECK(bom.hash == load_spec_string(shipped("stencil/laplacian3d_o2.json")).hash);
  const SpecError b = gpen::test::spec_error_at("\xEF\xBB\xBF{\"bogus\": 1}", "/bogus");
  CHECK(b.line() == 1);
  CHECK(b.column() == 2);
  // Duplicate keys: refused, naming both.
  SpecError e = corpus_error("accept_duplicate_key");
  CHECK(e.detail().message == "duplicate key 'kind' (first at line 4, column 2)");
  CHECK(e.line() == 5);
  CHECK(e.column() == 2);
  // Invalid UTF-8, which nlohmann would refuse only when the hash dumps it.
  e = corpus_error("utf8_invalid");
  CHECK(e.detail().message == "byte 0xe9 starts a broken UTF-8 sequence");
  CHECK(e.detail().excerpt.find('\xE9') == std::string::npos);
  // Whole sequences that are no characters: an overlong form, a surrogate, past U+10FFFF.
  for (const char* bad : {"\xE0\x80\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(load_spec_string(std::string("{\"description\": \"") + bad + "\"}"), doctest::Contains("starts an invalid UTF-8 sequence"),
                         SpecError);
  }
  // An error on a 500 KB line shows a window around the caret.
  e = corpus_error("position_long_line");
  CHECK(e.detail().message == "unknown key 'bogus'");
  CHECK(e.detail().excerpt.size() < 300);
  CHECK(e.detail().excerpt.find("\"bogus\"") != std::string::npos);
  const std::string& ex = e.detail().excerpt;
  const std::size_t caret_col = ex.find('^') - (ex.find('\n') + 1), bogus_col = ex.find("\"bogus\"");
  CHECK(caret_col == bogus_col);
}

TEST_CASE("specs/README.md lists every limit with its value") {
  const std::string readme = gpen::test::read_file(gpen::test::source_dir() + "/specs/README.md");
  const auto at = readme.find("## Limits");
  REQUIRE(at != std::string::npos);
  const std::string section = readme.substr(at, readme.find("\n## ", at + 1) - at);
  const std::pair<const char*, std::size_t> limits[] = {
      {"kMaxSpecBytes", kMaxSpecBytes}, {"kMaxJsonDepth", kMaxJsonDepth}, {"kMaxJsonValues", kMaxJsonValues},
      {"kMaxJsonPointer", kMaxJsonPointer}, {"kMaxNumberChars", kMaxNumberChars}, {"kMaxExprChars", kMaxExprChars}, {"kMaxExprDepth", kMaxExprDepth},
      {"kMaxIrUnits", kMaxIrUnits},     {"kMaxIrDepth", kMaxIrDepth},     {"kMaxFields", kMaxFields},       {"kMaxParams", kMaxParams},
      {"kMaxOperators", kMaxOperators}, {"kMaxLets", kMaxLets},           {"kMaxConstraints", kMaxConstraints},
      {"kMaxTunableValues", kMaxTunableValues}, {"kMaxSbpRows", kMaxSbpRows}, {"kMaxSbpWidth", kMaxSbpWidth}, {"kMaxErrors", kMaxErrors}};
  for (const auto& [name, value] : limits) {
    CAPTURE(name);
    const std::string row = "`" + std::string(name) + "` | " + std::to_string(value) + " |";
    CHECK(section.find(row) != std::string::npos);
  }
}

TEST_CASE("a spec path that is a device, a FIFO or a directory is refused at once") {
  using gpen::test::in_child;
  // Each load runs in a child with a deadline: a regression hangs or eats
  // memory there and fails here.
  const auto message_of = [](const std::string& path) {
    return in_child(20, [path]() -> std::string {
      try {
        load_spec(path);
        return "loaded";
      } catch (const SpecError& e) {
        return "SpecError: " + e.detail().message + " | " + e.detail().expected;
      }
    });
  };
  CHECK(message_of("/dev/zero") == "SpecError: the spec file is a character device, not a regular file | a readable regular file of JSON");
  gpen::test::TempDir d;
  const std::string fifo = d.path + "/spec.json";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(message_of(fifo) == "SpecError: the spec file is a FIFO, not a regular file | a readable regular file of JSON");
  CHECK(message_of(d.path) == "SpecError: the spec file is a directory, not a regular file | a readable regular file of JSON");
  const std::string big = d.path + "/big.json";
  std::filesystem::resize_file((std::ofstream(big), big), kMaxSpecBytes + 1);
  CHECK(message_of(big).find("SpecError: the spec file has 4194305 bytes") == 0);
  // A link to a spec is followed, as users keep specs behind links.
  const std::string link = d.path + "/link.json";
  std::filesystem::create_symlink(gpen::test::source_dir() + "/specs/stencil/laplacian3d_o2.json", link);
  CHECK(message_of(link) == "loaded");
}

TEST_CASE("the JSON reader's memory stays linear in the text: long keys, many values") {
  // Every value is remembered under its JSON pointer: a 2 MB key over a
  // million values would have made terabytes of pointers.
  std::string big = "{\"" + std::string(2000000, 'k') + "\": [0]}";
  SpecError e = spec_error_of(big);
  CHECK(e.detail().message == "a key of 2000000 characters");
  CHECK(e.detail().expected == "a JSON pointer of at most 512 characters: shorter keys");
  CHECK(e.column() == 2);
  std::string many = "[0";
  for (int i = 0; i < 70000; ++i) many += ",0";
  e = spec_error_of(many + "]");
  CHECK(e.detail().message == "the JSON has more than 65536 values");
  e = spec_error_of("{\"dims\": " + std::string(100, '1') + "}");
  CHECK(e.detail().message == "a number of 100 characters");
}

TEST_CASE("fractions have one slash and a bounded length") {
  CHECK(Rational::parse("1/2/3") == std::nullopt);  // was read as 1/(2/3)
  CHECK(Rational::parse("-3/4") == Rational(-3, 4));
  std::string chain = "1";
  for (int i = 0; i < 50000; ++i) chain += "/1";  // recursed once a slash, and copied the rest each time
  CHECK(Rational::parse(chain) == std::nullopt);
  const SpecError e = corpus_error("rational_slash_chain");
  CHECK(e.pointer() == "/operators/0/coeffs/0");
  CHECK(e.detail().message.find("is not an exact rational that fits in 64 bits") != std::string::npos);
}

TEST_CASE("UTF-8 lead bytes past 0xF4 are refused where they stand") {
  const SpecError e = corpus_error("utf8_lead_f5");
  CHECK(e.detail().message == "byte 0xf5 is not valid UTF-8");
  CHECK(e.line() == 5);
}

TEST_CASE("a double negation prints with parentheses, never as a decrement") {
  for (const char* expr : {"D2(u, x) * -(-k)", "-(-sqrt(u))", "- -1e-30 * u"}) {
    CAPTURE(expr);
    const Spec s = load_spec_string(minimal_spec(expr));
    const std::string src = generate(s, s.choose({"strategy=direct"})).source;
    CHECK(src.find("--") == std::string::npos);
    CHECK_NOTHROW(compile_with_nvrtc(source_program(generate(s, s.choose({"strategy=direct"})), s.name), "sm_90"));
  }
}

TEST_CASE("an excerpt of a CRLF line ends with the line, not a '?'") {
  const SpecError e = gpen::test::spec_error_at("{\r\n  \"bogus\": 1\r\n}\r\n", "/bogus");
  CHECK(e.detail().excerpt.find("\"bogus\": 1\n") != std::string::npos);
}

TEST_CASE("counts past their limits are refused where the array stands") {
  std::string values;
  for (int i = 0; i < 65; ++i) values += (i ? ", " : "") + std::to_string(32 + i);
  SpecError e = spec_error_of(minimal_spec("D2(u, x) + D2(u, y)", "  \"tunables\": {\"block_x\": {\"values\": [" + values + "]}},\n"));
  CHECK(e.pointer() == "/tunables/block_x/values");
  CHECK(e.detail().message == "65 entries");
  CHECK(e.detail().expected == "at most 64 entries (gpen's limit; specs/README.md)");
  std::string constraints;
  for (int i = 0; i < 65; ++i) constraints += std::string(i ? ", " : "") + "\"block_x <= 1024\"";
  e = spec_error_of(minimal_spec("D2(u, x) + D2(u, y)", "  \"constraints\": [" + constraints + "],\n"));
  CHECK(e.pointer() == "/constraints");
  CHECK(e.detail().message == "65 entries");
  CHECK(e.line() == 9);
}

TEST_CASE("errors past the 20 kept are only counted: no position, no suggestion, each a scan") {
  const JsonSource src = JsonSource::from_string("{\n  \"a\": 1\n}", "t.json");
  const auto error = [&] {
    try {
      src.fail("/a", "wrong");
    } catch (const SpecError& e) {
      return e;
    }
    throw std::logic_error("no error");
  };
  Diagnostics diag;
  for (std::size_t i = 0; i < kMaxErrors; ++i) {
    CHECK(!CountingOnly::active());
    CHECK(error().line() == 2);
    CHECK(did_you_mean("ghots", {"ghost"}) == "; did you mean 'ghost'?");
    diag.unit([&] { src.fail("/a", "wrong"); });
  }
  CHECK(CountingOnly::active());
  CHECK(error().line() == 0);
  CHECK(error().detail().excerpt.empty());
  CHECK(did_you_mean("ghots", {"ghost"}).empty());
  diag.unit([&] { src.fail("/a", "wrong"); });
  try {
    diag.throw_if_any();
    FAIL("no error");
  } catch (const SpecErrors& e) {
    CHECK(e.errors().size() == 20);
    CHECK(e.not_shown() == 1);
    CHECK(e.errors().back().line() == 2);
  }
  CHECK(!CountingOnly::active());
}

TEST_CASE("a spec of many errors costs no more than one of few: past 20 they are counted, not built") {
  // 30000 unknown keys of 100 characters, 3.2 MB: the position of an error is
  // a scan of the text up to it, so building each would take minutes; the
  // child's deadline fails the test then.
  const std::string said = gpen::test::in_child(20, [] {
    std::string keys;
    for (int i = 0; i < 30000; ++i) keys += fmt::format("  \"{:0>100}\": 0,\n", i);
    try {
      load_spec_string(minimal_spec("D2(u, x)", keys), "t.json");
      return std::string("loaded");
    } catch (const SpecErrors& e) {
      return e.errors().size() == 20 && e.not_shown() == 29980 ? std::string() : fmt::format("{} shown, {} more", e.errors().size(), e.not_shown());
    }
  });
  CHECK(said == "");
}
