// Every class of spec error names the JSON pointer, line and column of the
// offending text and says what was expected.
#include <fmt/format.h>

#include "gpen/generator/diagnostics.hpp"
#include "test_support.hpp"

using namespace gpen;
using gpen::test::minimal_spec;
using gpen::test::spec_error_of;
using gpen::test::spec_errors_of;
using gpen::test::with;

// Column of the first character of the expression in minimal_spec()'s
// outputs line: `  "outputs": [{"field": "v", "expr": "` is 38 characters.
constexpr int kExprColumn = 39;
constexpr int kOutputsLine = 9;

TEST_CASE("the minimal spec is valid") {
  const Spec s = load_spec_string(minimal_spec());
  CHECK(s.name == "t");
  // Its param is there for the expressions other tests give it.
  CHECK(s.warnings == std::vector<std::string>{"/params/0 (line 7, column 14): param 'k' is never used by the outputs"});
}

TEST_CASE("malformed JSON names line and column") {
  const SpecError e = spec_error_of("{\n  \"name\": \"t\",\n  \"kind\" \"stencil\"\n}");
  CHECK(e.line() == 3);
  CHECK(e.column() == 10);
  CHECK(e.pointer() == "");
  CHECK(std::string(e.what()).find("malformed JSON") != std::string::npos);
  CHECK(std::string(e.what()).rfind("t.json:3:10: error:", 0) == 0);
}

TEST_CASE("malformed JSON that ends early says so") {
  CHECK(spec_error_of("").detail().message == "malformed JSON: unexpected end of the text");
  CHECK(spec_error_of("{\"name\": ").detail().message == "malformed JSON: unexpected end of the text");
}

TEST_CASE("undeclared identifier: pointer, line, column, expected names") {
  const SpecError e = spec_error_of(minimal_spec("D2(u, x) + uu"));
  CHECK(e.pointer() == "/outputs/0/expr");
  CHECK(e.line() == kOutputsLine);
  CHECK(e.column() == kExprColumn + 11);
  CHECK(e.detail().message == "unknown identifier 'uu'; did you mean 'u'?");
  CHECK(e.detail().expected == "a declared input field, param or let: u, k");
  // the excerpt shows the line with a caret under the column
  const std::string& ex = e.detail().excerpt;
  CHECK(ex.find("uu") != std::string::npos);
  CHECK(ex.find('^') - (ex.find('\n') + 1) == std::size_t(8 + e.column() - 1));  // "    9 | " gutter
}

TEST_CASE("unknown function, wrong arity, axis errors") {
  SpecError e = spec_error_of(minimal_spec("cbrt(u)"));
  CHECK(e.detail().message == "unknown function 'cbrt'");
  CHECK(e.column() == kExprColumn);
  CHECK(e.detail().expected.find("sqrt, rsqrt") != std::string::npos);

  e = spec_error_of(minimal_spec("u + pow(u)"));
  CHECK(e.detail().message == "'pow' takes 2 arguments, got 1");
  CHECK(e.column() == kExprColumn + 4);

  e = spec_error_of(minimal_spec("D2(u, z)"));
  CHECK(e.detail().message == "axis 'z' is beyond the 2-D arrays of this spec");
  CHECK(e.column() == kExprColumn + 6);
  CHECK(e.detail().expected == "an axis of the 2-D arrays: x or y");

  e = spec_error_of(minimal_spec("D2(u, k)"));
  CHECK(e.detail().message == "the second argument of 'D2' must be an axis");

  e = spec_error_of(minimal_spec("D2(u)"));
  CHECK(e.detail().message == "operator 'D2' takes 2 arguments, got 1");

  e = spec_error_of(minimal_spec("u * x"));
  CHECK(e.detail().message.find("axis 'x' can only be the second argument") == 0);

  e = spec_error_of(minimal_spec("D2 + u"));
  CHECK(e.detail().message == "operator 'D2' must be applied: D2(field, axis)");
}

TEST_CASE("syntax errors map into the JSON file") {
  const SpecError e = spec_error_of(minimal_spec("u * (k + 1"));
  CHECK(e.pointer() == "/outputs/0/expr");
  CHECK(e.line() == kOutputsLine);
  CHECK(e.column() == kExprColumn + 10);
  CHECK(e.detail().expected == "')'");
}

TEST_CASE("escapes in the JSON string keep columns right") {
  // "\t" is two characters in the file but one in the expression
  const SpecError e = spec_error_of(minimal_spec("u +\\tq"));
  CHECK(e.column() == kExprColumn + 5);
}

TEST_CASE("reading an output field is an error") {
  const SpecError e = spec_error_of(minimal_spec("u + v"));
  CHECK(e.detail().message == "output field 'v' cannot be read in an expression");
}

TEST_CASE("structure errors: unknown key, missing key, wrong type, bad values") {
  std::string s = minimal_spec();
  SpecError e = spec_error_of(with(s, "\"dims\"", "\"dimz\""));
  CHECK(e.pointer() == "/dimz");
  CHECK(e.detail().message == "unknown key 'dimz'; did you mean 'dims'?");  // and not also "missing key 'dims'"
  CHECK(e.line() == 5);
  CHECK(e.column() == 3);

  e = spec_error_of(with(s, "\"dtype\": \"float64\"", "\"dtype\": \"float16\""));
  CHECK(e.pointer() == "/dtype");
  CHECK(e.detail().expected == "one of: float32, float64");
  CHECK(e.line() == 4);
  CHECK(e.column() == 12);

  e = spec_error_of(with(s, "\"dims\": 2", "\"dims\": 4"));
  CHECK(e.pointer() == "/dims");
  CHECK(e.detail().expected == "an integer in [1, 3]");

  e = spec_error_of(with(s, "\"dims\": 2", "\"dims\": \"2\""));
  CHECK(e.detail().message == "found a string");

  e = spec_error_of(with(s, "\"role\": \"input\", ", ""));
  CHECK(e.pointer() == "/fields/0");
  CHECK(e.detail().message == "missing key 'role'");
  CHECK(e.line() == 6);
  CHECK(e.column() == 14);

  e = spec_error_of(with(s, "\"name\": \"k\"", "\"name\": \"u\""));
  CHECK(e.pointer() == "/params/0/name");
  CHECK(e.detail().message == "'u' is declared twice");

  e = spec_error_of(with(s, "\"name\": \"k\"", "\"name\": \"sqrt\""));
  CHECK(e.detail().message == "'sqrt' is reserved (an axis or a math function)");

  e = spec_error_of(with(s, "\"name\": \"t\"", "\"name\": \"9t\""));
  CHECK(e.pointer() == "/name");
}

TEST_CASE("ghost width smaller than the footprint") {
  const SpecError e = spec_error_of(minimal_spec("D2(D2(u, x), x)"));
  CHECK(e.pointer() == "/fields/0/ghost");
  CHECK(e.detail().message == "ghost width 1 of 'u' is smaller than the 2 points the outputs reach along x");
  CHECK(e.detail().expected == "ghost >= 2");
}

TEST_CASE("operators: explicit coefficients and their errors") {
  const std::string ops = "  \"lets\": [],\n";
  std::string s = minimal_spec("D(u, x)", ops);
  s = with(s, "{\"name\": \"D2\", \"derivative\": 2, \"order\": 2}", "{\"name\": \"D\", \"offsets\": [-1, 1], \"coeffs\": [\"-1/2\"]}");
  SpecError e = spec_error_of(s);
  CHECK(e.pointer() == "/operators/0/coeffs");
  CHECK(e.detail().message == "1 coefficients for 2 offsets");

  s = minimal_spec();
  s = with(s, "\"order\": 2", "\"order\": 3");
  e = spec_error_of(s);
  CHECK(e.pointer() == "/operators/0/order");

  s = minimal_spec("D(u, x)");
  s = with(s, "{\"name\": \"D2\", \"derivative\": 2, \"order\": 2}", "{\"name\": \"D\", \"offsets\": [-1, 1], \"coeffs\": [\"-1/x\", 0.5]}");
  e = spec_error_of(s);
  CHECK(e.pointer() == "/operators/0/coeffs/0");

  s = minimal_spec("D(u, x)");
  s = with(s, "{\"name\": \"D2\", \"derivative\": 2, \"order\": 2}", "{\"name\": \"D\", \"offsets\": [-1, 1], \"coeffs\": [-0.5, 0.5]}");
  const Spec ok = load_spec_string(s);
  CHECK(ok.operators[0].coeffs[0] == Rational(-1, 2));
}

TEST_CASE("2-D operators: explicit points along two axes, exact, and their errors") {
  // Astaroth's 6th-order d2/dadb on the diagonals, (270, -27, 2) / 720 at (+-i, +-i).
  const std::string dxy =
      "{\"name\": \"DXY\", \"offsets2d\": [[1, 1], [-1, -1], [1, -1], [-1, 1], [2, 2], [-2, -2], [2, -2], [-2, 2], [3, 3], [-3, -3], [3, -3], [-3, 3]],"
      " \"coeffs\": [\"270/720\", \"270/720\", \"-270/720\", \"-270/720\", \"-27/720\", \"-27/720\", \"27/720\", \"27/720\","
      " \"2/720\", \"2/720\", \"-2/720\", \"-2/720\"]}";
  const std::string d2 = "{\"name\": \"D2\", \"derivative\": 2, \"order\": 2}";
  auto spec = [&](const std::string& expr, const std::string& op) { return with(with(minimal_spec(expr), d2, op), "\"ghost\": 1", "\"ghost\": 3"); };
  const Spec s = load_spec_string(spec("DXY(u * u, x, y) + DXY(u, y, x)", dxy));
  // 12 points, and the nonlinear argument copied at each: exact for
  // polynomials of degree 6 in x y. u = x y: d2(x y)/dxdy = 1; u^2 = x^2 y^2: 4 x y.
  auto read = [](const Access& a) { return (5.0 + a.off[0]) * (7.0 + a.off[1]); };
  CHECK(evaluate(*s.outputs[0].ir, read, {2.0}) == doctest::Approx(4 * 5 * 7 + 1).epsilon(1e-14));
  CHECK(s.footprint()[0] == std::array<int, 3>{3, 3, 0});

  SpecError e = spec_error_of(spec("DXY(u, x)", dxy));
  CHECK(e.detail().message == "2-D operator 'DXY' takes 3 arguments, got 2");
  CHECK(e.detail().expected == "DXY(expression, axis, axis)");
  e = spec_error_of(spec("DXY(u, x, x)", dxy));
  CHECK(e.detail().message == "the 2-D operator 'DXY' is applied along two different axes, got x twice");
  e = spec_error_of(spec("DXY(u, x, z)", dxy));  // a 2-D spec
  CHECK(e.detail().message == "axis 'z' is beyond the 2-D arrays of this spec");
  e = spec_error_of(spec("DXY(u, x, y)", with(dxy, "[-3, 3]]", "[-3, 3, 1]]")));
  CHECK(e.pointer() == "/operators/0/offsets2d/11");
  CHECK(e.detail().message == "not a pair of offsets");
  e = spec_error_of(spec("DXY(u, x, y)", with(dxy, "[-3, 3]]", "[3, 3]]")));
  CHECK(e.pointer() == "/operators/0/offsets2d/11");
  CHECK(e.detail().message == "offset [3, 3] appears twice");
  e = spec_error_of(spec("DXY(u, x, y)", with(dxy, "\"-2/720\"]", "\"-2/720\", 1]")));
  CHECK(e.pointer() == "/operators/0/coeffs");
  CHECK(e.detail().message == "13 coefficients for 12 offsets");
  e = spec_error_of(spec("DXY(u, x, y)", with(dxy, "[3, 3]", "[33, 3]")));
  CHECK(e.pointer() == "/operators/0/offsets2d/8/0");
}

TEST_CASE("outputs: unknown field, duplicate, missing") {
  std::string s = minimal_spec();
  s = with(s, "\"field\": \"v\"", "\"field\": \"w\"");
  SpecError e = spec_error_of(s);
  CHECK(e.pointer() == "/outputs/0/field");
  CHECK(e.detail().expected == "one of: v");

  s = minimal_spec();
  s = with(s, "{\"name\": \"v\", \"role\": \"output\"}", "{\"name\": \"v\", \"role\": \"output\"}, {\"name\": \"w\", \"role\": \"output\"}");
  e = spec_error_of(s);
  CHECK(e.pointer() == "/fields/2");
  CHECK(e.detail().message == "output field 'w' has no expression in /outputs");
}

TEST_CASE("lets resolve in order") {
  const std::string lets = "  \"lets\": [{\"name\": \"a\", \"expr\": \"b + 1\"}, {\"name\": \"b\", \"expr\": \"u\"}],\n";
  const SpecError e = spec_error_of(minimal_spec("a", lets));
  CHECK(e.pointer() == "/lets/0/expr");
  CHECK(e.detail().message == "'b' is used before (or inside) its own let");

  const std::string good = "  \"lets\": [{\"name\": \"a\", \"expr\": \"u * k\"}, {\"name\": \"b\", \"expr\": \"D2(a, x)\"}],\n";
  const Spec s = load_spec_string(minimal_spec("b", good));
  CHECK(s.footprint()[0] == std::array<int, 3>{1, 0, 0});
}

TEST_CASE("tunables: unknown, disallowed, --set") {
  std::string t = "  \"tunables\": {\"block_z\": {\"default\": 2}},\n";
  SpecError e = spec_error_of(minimal_spec("u", t));
  CHECK(e.pointer() == "/tunables/block_z");
  CHECK(e.detail().message == "unknown tunable 'block_z' for kind 'stencil'; did you mean 'block_x'?");

  t = "  \"tunables\": {\"strategy\": {\"values\": [\"tile\", \"magic\"]}},\n";
  e = spec_error_of(minimal_spec("u", t));
  CHECK(e.pointer() == "/tunables/strategy/values/1");

  t = "  \"tunables\": {\"block_x\": {\"values\": [32, 64], \"default\": 128}},\n";
  e = spec_error_of(minimal_spec("u", t));
  CHECK(e.pointer() == "/tunables/block_x/default");

  t = "  \"tunables\": {\"block_x\": {\"values\": [32, 64], \"default\": 64}},\n";
  const Spec s = load_spec_string(minimal_spec("u", t));
  CHECK(to_string(s.choose().at("block_x")) == "64");
  CHECK(to_string(s.choose({"block_x=32"}).at("block_x")) == "32");
  // A --set is the command line's mistake, not the spec's: its error names
  // the --set, not a position in the file (which need not have "tunables").
  CHECK_THROWS_WITH_AS(s.choose({"block_x=48"}), "--set block_x=48: 48 is not an allowed value of block_x; allowed: 32, 64", UsageError);
  CHECK_THROWS_WITH_AS(s.choose({"blok_x=32"}), doctest::Contains("--set blok_x=32: 'blok_x' names no tunable (tunables: strategy, block_x, "),
                       UsageError);
  CHECK_THROWS_WITH_AS(s.choose({"block_x"}), doctest::Contains("--set block_x: not name=value (tunables: strategy, block_x, "), UsageError);
  CHECK_THROWS_WITH_AS(s.choose({"strategy=tile", "vector_x=2"}),
                       "--set vector_x=2: only the march strategy has vector_x, and the strategy is tile (--set strategy=tile); expected vector_x = 1, or "
                       "strategy march",
                       UsageError);
  // Its plain value is no mistake under another strategy.
  CHECK(to_string(s.choose({"strategy=tile", "vector_x=1"}).at("vector_x")) == "1");
  // A variant to run keeps the spec's constraints; values a search keeps fixed need not alone.
  const Spec bounded = load_spec_string(minimal_spec("u", t + "  \"constraints\": [\"block_x * vector_x <= 128\"],\n"));
  CHECK_NOTHROW(bounded.choose({"block_x=32"}));
  CHECK_THROWS_WITH_AS(bounded.choose({"block_x=64", "vector_x=4"}),
                       "--set block_x=64 --set vector_x=4: breaks the spec's constraint \"block_x * vector_x <= 128\" (/constraints/0)", UsageError);
  CHECK(to_string(bounded.choose({"block_x=64", "vector_x=4"}, false).at("vector_x")) == "4");
}

TEST_CASE("tunables: a default a dtype, each one checked whichever dtype is loaded") {
  std::string t = "  \"tunables\": {\"block_x\": {\"default\": {\"float64\": 64, \"float32\": 128}}},\n";
  CHECK(to_string(load_spec_string(minimal_spec("u", t)).choose().at("block_x")) == "64");
  CHECK(to_string(load_spec_string(with(minimal_spec("u", t), "float64\",\n  \"dims", "float32\",\n  \"dims")).choose().at("block_x")) == "128");
  // A dtype left out keeps gpen's default (32 for this spec).
  t = "  \"tunables\": {\"block_x\": {\"default\": {\"float32\": 128}}},\n";
  CHECK(to_string(load_spec_string(minimal_spec("u", t)).choose().at("block_x")) == "32");
  // Each dtype's default against what the spec offers in that dtype: the
  // Yukawa potential tests 2 sources at a time in float64 only.
  const std::string yukawa = gpen::test::read_file(gpen::test::source_dir() + "/specs/pairwise/yukawa_potential.json");
  const std::string chunks = with(yukawa, "\"outputs\": [", "\"tunables\": {\"flag_chunk\": {\"default\": {\"float64\": 4, \"float32\": 1}}},\n  \"outputs\": [");
  CHECK(to_string(load_spec_string(chunks).choose().at("flag_chunk")) == "4");
  CHECK(to_string(load_spec_string(with(chunks, "\"float64\",\n", "\"float32\",\n")).choose().at("flag_chunk")) == "1");
  SpecError e = spec_error_of(with(chunks, "\"float32\": 1}", "\"float32\": 2}"));
  CHECK(e.pointer() == "/tunables/flag_chunk/default/float32");
  // A strategy a dtype.
  t = "  \"tunables\": {\"strategy\": {\"default\": {\"float32\": \"direct\"}}},\n";
  CHECK(to_string(load_spec_string(with(minimal_spec("u", t), "float64\",\n  \"dims", "float32\",\n  \"dims")).choose().at("strategy")) == "direct");
  CHECK(to_string(load_spec_string(minimal_spec("u", t)).choose().at("strategy")) == "march");
  // Values without gpen's default, and no default of this dtype: the first value.
  t = "  \"tunables\": {\"block_x\": {\"values\": [64, 128], \"default\": {\"float32\": 128}}},\n";
  CHECK(to_string(load_spec_string(minimal_spec("u", t)).choose().at("block_x")) == "64");
  // The float32 default is checked in a float64 spec too.
  t = "  \"tunables\": {\"block_x\": {\"values\": [32, 64], \"default\": {\"float64\": 64, \"float32\": 128}}},\n";
  e = spec_error_of(minimal_spec("u", t));
  CHECK(e.pointer() == "/tunables/block_x/default/float32");
  CHECK(e.detail().message == "default 128 is not among the allowed values in float32");
  t = "  \"tunables\": {\"block_x\": {\"default\": {\"float16\": 64}}},\n";
  e = spec_error_of(minimal_spec("u", t));
  CHECK(e.pointer() == "/tunables/block_x/default/float16");
  t = "  \"tunables\": {\"block_x\": {\"default\": {}}},\n";
  e = spec_error_of(minimal_spec("u", t));
  CHECK(e.pointer() == "/tunables/block_x/default");
  CHECK(e.detail().expected == "a value, or an object of one a dtype (\"float32\", \"float64\")");
  // The shipped heavy specs' heights (bench/RESULTS.md, thirty-eighth session).
  const std::string dir = gpen::test::source_dir() + "/specs/stencil/";
  CHECK(to_string(load_spec(dir + "induction3d.json", Dtype::Float64).choose().at("block_y")) == "6");
  CHECK(to_string(load_spec(dir + "induction3d.json", Dtype::Float32).choose().at("block_y")) == "4");
  CHECK(to_string(load_spec(dir + "momentum_visc3d.json", Dtype::Float64).choose().at("block_y")) == "4");  // with ring_behind 0 (forty-fourth)
  CHECK(to_string(load_spec(dir + "momentum_visc3d.json", Dtype::Float32).choose().at("block_y")) == "6");
  // mhd_iso3d: 4 rows in float64 (the Orszag-Tang program's fused stages
  // fit no more), 6 and columns in registers in float32 (thirty-ninth session).
  CHECK(to_string(load_spec(dir + "mhd_iso3d.json", Dtype::Float64).choose().at("block_y")) == "4");
  CHECK(to_string(load_spec(dir + "mhd_iso3d.json", Dtype::Float32).choose().at("block_y")) == "6");
  CHECK(to_string(load_spec(dir + "mhd_iso3d.json", Dtype::Float64).choose().at("z_queue")) == "0");
  CHECK(to_string(load_spec(dir + "mhd_iso3d.json", Dtype::Float32).choose().at("z_queue")) == "1");
}

TEST_CASE("unused inputs, params, operators and lets are warned about, not silently accepted") {
  {
    const Spec spec = load_spec_string(minimal_spec("k * 2"));
    CHECK(spec.warnings == std::vector<std::string>{"/fields/0 (line 6, column 14): input field 'u' is never read by the outputs",
                                                    "/operators/0 (line 8, column 17): operator 'D2' is never applied by the outputs"});
  }
  {
    const Spec spec = load_spec_string(minimal_spec("D2(u, x)"));
    CHECK(spec.warnings == std::vector<std::string>{"/params/0 (line 7, column 14): param 'k' is never used by the outputs"});
  }
  // A let used by a let the output uses is used; one nothing reaches, and
  // the param only it names, are not.
  const std::string lets = "  \"lets\": [{\"name\": \"a\", \"expr\": \"D2(u, y)\"}, {\"name\": \"b\", \"expr\": \"a * 2\"}, {\"name\": \"c\", \"expr\": \"k\"}],\n";
  const Spec spec = load_spec_string(minimal_spec("b + D2(u, x)", lets));
  CHECK(spec.warnings == std::vector<std::string>{"/params/0 (line 7, column 14): param 'k' is never used by the outputs",
                                                  "/lets/2 (line 9, column 79): let 'c' is never used by the outputs"});
  // The shipped specs use all they declare.
  for (const char* kind : {"stencil", "pairwise", "reduce"})
    for (const auto& path : gpen::test::shipped_specs(kind)) {
      CAPTURE(path);
      CHECK(load_spec(path, Dtype::Float64).warnings.empty());
    }
}

TEST_CASE("every independent error of a spec is reported, in document order, with a suggestion") {
  std::string s = minimal_spec("D2(u, x) + uu");
  s = with(s, "\"ghost\"", "\"ghots\"");
  s = with(s, "\"float64\"", "\"float65\"");
  const SpecErrors e = spec_errors_of(s);
  REQUIRE(e.errors().size() == 3);
  CHECK(e.not_shown() == 0);
  const SpecError& dtype = e.errors()[0];
  CHECK(dtype.pointer() == "/dtype");
  CHECK(dtype.line() == 4);
  CHECK(dtype.column() == 12);
  CHECK(dtype.detail().message == "'float65' is not allowed here; did you mean 'float64'?");
  CHECK(dtype.detail().expected == "one of: float32, float64");
  const SpecError& key = e.errors()[1];
  CHECK(key.pointer() == "/fields/0/ghots");
  CHECK(key.line() == 6);
  CHECK(key.column() == 45);
  CHECK(key.detail().message == "unknown key 'ghots'; did you mean 'ghost'?");
  const SpecError& expr = e.errors()[2];
  CHECK(expr.pointer() == "/outputs/0/expr");
  CHECK(expr.line() == kOutputsLine);
  CHECK(expr.column() == kExprColumn + 11);
  CHECK(expr.detail().message == "unknown identifier 'uu'; did you mean 'u'?");
  // The first is the one SpecError's accessors give; what() lists all three.
  CHECK(e.pointer() == "/dtype");
  const std::string what = e.what();
  CHECK(what.rfind("t.json:4:12: error: /dtype: 'float65' is not allowed here; did you mean 'float64'?\n  expected: one of: float32, float64\n", 0) == 0);
  const auto at_key = what.find("t.json:6:45: error: /fields/0/ghots: unknown key 'ghots'; did you mean 'ghost'?");
  const auto at_expr = what.find("t.json:9:50: error: /outputs/0/expr: unknown identifier 'uu'; did you mean 'u'?");
  CHECK(at_key != std::string::npos);
  CHECK(at_expr != std::string::npos);
  CHECK(at_key < at_expr);
  CHECK(what.find("more error") == std::string::npos);
}

TEST_CASE("past 20 errors the rest are counted, not shown") {
  // 30 params, each with a value of the wrong type: 30 errors of 30 units.
  std::string params;
  for (int i = 0; i < 30; ++i) params += fmt::format("{}{{\"name\": \"p{}\", \"value\": \"x\"}}", i ? ", " : "", i);
  const SpecErrors e = spec_errors_of(with(minimal_spec("D2(u, x)"), "{\"name\": \"k\", \"value\": 2}", params));
  REQUIRE(e.errors().size() == 20);
  CHECK(e.not_shown() == 10);
  CHECK(e.count() == 30);
  for (std::size_t i = 0; i < 20; ++i) {
    CAPTURE(i);
    CHECK(e.errors()[i].pointer() == fmt::format("/params/{}/value", i));
    CHECK(e.errors()[i].detail().message == "found a string");
  }
  const std::string what = e.what(), tail = "\nt.json: 10 more errors not shown";
  REQUIRE(what.size() > tail.size());
  CHECK(what.substr(what.size() - tail.size()) == tail);
}

TEST_CASE("errors that follow from another are not reported") {
  const auto messages = [](const std::string& json) {
    std::vector<std::string> m;
    const SpecErrors all = spec_errors_of(json);
    for (const auto& e : all.errors()) m.push_back(e.pointer() + ": " + e.detail().message);
    return m;
  };
  using V = std::vector<std::string>;
  // An unknown output field: no second error about the field's ghost width
  // (u has none, D2 reaches 1) nor about 'v' lacking an expression.
  std::string s = with(with(minimal_spec("D2(u, x)"), "\"ghost\": 1", "\"ghost\": 0"), "\"field\": \"v\"", "\"field\": \"w\"");
  CHECK(messages(s) == V{"/outputs/0/field: 'w' is not an output field"});
  // A misspelt "ghost": the width 0 it leaves is not blamed.
  CHECK(messages(with(minimal_spec("D2(u, x)"), "\"ghost\"", "\"gohst\"")) == V{"/fields/0/gohst: unknown key 'gohst'; did you mean 'ghost'?"});
  // A field whose role is wrong: expressions that read it are left.
  CHECK(messages(with(minimal_spec("D2(u, x) + qq"), "\"role\": \"input\"", "\"role\": \"inptu\"")) ==
        V{"/fields/0/role: 'inptu' is not allowed here; did you mean 'input'?"});
  // A misspelt required key: one error, not also "missing key 'order'", and
  // the operator it leaves undeclared is not an unknown function in the output.
  CHECK(messages(with(minimal_spec(), "\"order\"", "\"ordr\"")) == V{"/operators/0/ordr: unknown key 'ordr'; did you mean 'order'?"});
  // A let that fails: the output that reads it is left; another output's own error is not.
  s = minimal_spec("a + 1", "  \"lets\": [{\"name\": \"a\", \"expr\": \"u * kk\"}],\n");
  CHECK(messages(s) == V{"/lets/0/expr: unknown identifier 'kk'; did you mean 'k'?"});
  // A misspelt "kind": which keys belong is unknown, so "scan" is not an unknown key of a stencil.
  const std::string scan = gpen::test::read_file(gpen::test::source_dir() + "/specs/scan/cumsum_x.json");
  CHECK(messages(with(scan, "\"kind\"", "\"knid\"")) == V{"/knid: unknown key 'knid'; did you mean 'kind'?"});
  CHECK(messages(with(with(scan, "\"scan\",", "\"scna\","), "\"dims\": 3", "\"dims\": 4")) ==
        V{"/kind: 'scna' is not allowed here; did you mean 'scan'?", "/dims: 4 is out of range"});
  // A program where a kernel spec belongs: one error at its kind, not every program key as unknown.
  const std::string program = gpen::test::read_file(gpen::test::source_dir() + "/specs/programs/heat_walls3d.json");
  CHECK(messages(program) == V{"/kind: this file is a program (a simulation), not a kernel spec"});
  // A misspelt "params": its names are unknown, so expressions are not lowered.
  CHECK(messages(with(minimal_spec("D2(u, x) * k"), "\"params\"", "\"parmas\"")) == V{"/parmas: unknown key 'parmas'; did you mean 'params'?"});
}

TEST_CASE("did you mean: close names only") {
  CHECK(closest_name("ghots", {"name", "role", "ghost", "description"}) == "ghost");
  CHECK(closest_name("float65", {"float32", "float64"}) == "float64");
  CHECK(closest_name("blok_x", {"strategy", "block_x", "block_y"}) == "block_x");
  CHECK(closest_name("rollin", {"direct", "march", "tile", "rolling"}) == "rolling");
  CHECK(closest_name("x", {"u", "k"}) == std::nullopt);  // one letter of one: no evidence
  CHECK(closest_name("cbrt", {"sqrt", "rsqrt"}) == std::nullopt);
  CHECK(closest_name("speed", {"name", "role"}) == std::nullopt);
  CHECK(closest_name(std::string(10000, 'a'), {"aaaa"}) == std::nullopt);
  // --set, constraints and tunables suggest too.
  const Spec s = load_spec_string(minimal_spec());
  const auto said = [&](const std::string& set) -> std::string {
    try {
      s.choose({set});
    } catch (const std::exception& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(said("blok_x=32").find("names no tunable") != std::string::npos);
  CHECK(said("blok_x=32").find("did you mean 'block_x'?") != std::string::npos);
  CHECK(said("strategy=rollin").find("did you mean 'rolling'?") != std::string::npos);
  CHECK(said("block_x=23").find("did you mean") == std::string::npos);  // numbers are not spelt
  SpecError e = spec_error_of(minimal_spec("D2(u, x)", "  \"constraints\": [\"blok_x <= 64\"],\n"));
  CHECK(e.detail().message == "'blok_x' is not an integer tunable; did you mean 'block_x'?");
  e = spec_error_of(minimal_spec("D2(u, x)", "  \"tunables\": {\"stratgy\": {\"default\": \"tile\"}},\n"));
  CHECK(e.detail().message == "unknown tunable 'stratgy' for kind 'stencil'; did you mean 'strategy'?");
  e = spec_error_of(minimal_spec("D2(u, x)", "  \"tunables\": {\"strategy\": {\"values\": [\"tile\", \"rollin\"]}},\n"));
  CHECK(e.detail().message == "\"rollin\" is not a strategy; did you mean 'rolling'?");
  e = spec_error_of(minimal_spec("D3(u, x)"));
  CHECK(e.detail().message == "unknown function 'D3'; did you mean 'D2'?");
}
