// Each family's table of tunables (tunable_table.hpp) is what the spec
// schema, specs/README.md, the spec reader and the generated units say: a
// tunable added to a table and not documented, or documented and gone,
// fails here.
#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "gpen/families/stencil/stencil_plan.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/family.hpp"
#include "test_support.hpp"

using namespace gpen;

namespace {

std::vector<std::string> names_of(const std::vector<TunableInfo>& table) {
  std::vector<std::string> out;
  for (const auto& t : table) out.push_back(t.name);
  return out;
}

// The text of specs/README.md from the heading `from` to the next heading
// of the same level or above.
std::string readme_section(const std::string& readme, const std::string& from) {
  const auto a = readme.find("\n" + from + "\n");
  REQUIRE_MESSAGE(a != std::string::npos, "specs/README.md has no heading " << from);
  const std::string level = from.substr(0, from.find(' ') + 1);  // "## "
  auto b = a + 1 + from.size();
  for (;;) {
    b = readme.find("\n#", b);
    if (b == std::string::npos) break;
    const auto hashes = readme.find_first_not_of('#', b + 1) - (b + 1);
    if (hashes <= level.size() - 1) break;
    ++b;
  }
  return readme.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

}  // namespace

TEST_CASE("every family's tunables are in the schema, per kind, and nothing else is") {
  const auto schema = nlohmann::json::parse(gpen::test::read_file(gpen::test::source_dir() + "/specs/spec.schema.json"));
  std::set<std::string> all_rows, all_schema;
  for (const auto& [name, value] : schema["properties"]["tunables"]["properties"].items()) all_schema.insert(name);
  for (const Family* f : families()) {
    const std::string kind = f->kind;
    CAPTURE(kind);
    const auto names = names_of(f->tunables());
    all_rows.insert(names.begin(), names.end());
    bool found = false;
    for (const auto& branch : schema["allOf"]) {
      const auto& k = branch["if"]["properties"]["kind"];
      if (k.value("const", k.contains("enum") ? k["enum"][0].get<std::string>() : std::string()) != kind) continue;
      found = true;
      CHECK(branch["then"]["properties"]["tunables"]["propertyNames"]["enum"].get<std::vector<std::string>>() == names);
    }
    CHECK_MESSAGE(found, "the schema has no branch for kind " << kind);
  }
  CHECK(all_rows == all_schema);
}

TEST_CASE("every tunable has a one-line doc and is in its kind's section of specs/README.md") {
  const std::string readme = gpen::test::read_file(gpen::test::source_dir() + "/specs/README.md");
  const std::map<std::string, std::string> section = {{"stencil", "## Tunables of kind \"stencil\""},
                                                      {"scan", "## Kind \"scan\""},
                                                      {"sbp", "## Kind \"sbp\""},
                                                      {"reduce", "## Kind \"reduce\""},
                                                      {"pairwise", "### Tunables of kind \"pairwise\""}};
  for (const Family* f : families()) {
    const std::string kind = f->kind;
    REQUIRE(section.count(kind));
    const std::string text = readme_section(readme, section.at(kind));
    for (const auto& t : f->tunables()) {
      CAPTURE(kind);
      CAPTURE(t.name);
      CHECK(!t.doc.empty());
      CHECK(t.doc.find('\n') == std::string::npos);
      CHECK_MESSAGE(text.find("`" + t.name + "`") != std::string::npos, "specs/README.md, " << section.at(kind) << ", does not name " << t.name);
    }
  }
}

TEST_CASE("a tunable's binding is a constant of the generated unit, with the value chosen") {
  // One spec a kind, with the strategy whose tunables are the most.
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"stencil/laplacian3d_o8.json", {"strategy=march", "ring_ahead=1", "vector_x=4", "rows_y=2"}},
      {"scan/cumsum_x.json", {"values_per_thread=8"}},
      {"sbp/d2_o4.json", {"strategy=pencil", "pencil_along=64"}},
      {"pairwise/radiation_grid.json", {"strategy=blocks", "cell_block=16"}}};
  for (const auto& [file, set] : cases) {
    CAPTURE(file);
    const Spec s = load_spec(gpen::test::source_dir() + "/specs/" + file);
    const TunableChoice c = s.choose(set);
    const Variant g = generate(s, c);
    int bound = 0;
    for (const auto& t : family_of(s).tunables()) {
      if (t.binding.empty() || (!t.strategy.empty() && !strategy_listed(t.strategy, to_string(c.at("strategy"))))) continue;
      CAPTURE(t.name);
      const long long v = std::get<long long>(c.at(t.name));
      // "kName = value" ended by ';' or ',' (several constants share a line).
      auto declares = [&](const std::string& value) {
        const std::string text = t.binding + " = " + value;
        for (auto at = g.source.find(text); at != std::string::npos; at = g.source.find(text, at + 1)) {
          const char next = g.source[at + text.size()];
          if (next == ';' || next == ',') return true;
        }
        return false;
      };
      CHECK_MESSAGE((declares(std::to_string(v)) || declares(v ? "true" : "false")), "the unit does not declare " << t.binding << " = " << v);
      ++bound;
    }
    CHECK(bound >= 3);
  }
}

namespace {

// Every row of another strategy than the chosen one is left out of the
// plan by fill_plan, which keeps the plan's own default there. Stencil
// units print every tunable's constant whatever the strategy
// (binding_lines), so for them that default must be the plain value the
// choice holds: else the unit would say otherwise than its variant. (SBP and
// pairwise units print every constant too, but their plans keep their own
// defaults under another strategy, not the plain values: a direct SBP unit
// says kAlong = 1. Not checked here; the templates of that strategy do not
// read them.)
template <class Plan>
void check_plain(const Spec& s, const std::vector<TunableRow<Plan>>& rows) {
  const TunableDecl* strategy = s.find_tunable("strategy");
  REQUIRE(strategy);
  int checked = 0;
  for (const auto& v : strategy->values) {
    const TunableChoice c = s.choose({"strategy=" + to_string(v)});
    const Plan p = plan_unit(s, c).plan_as<Plan>();
    for (const auto& r : rows) {
      if (!*r.strategy || strategy_listed(r.strategy, to_string(v))) continue;
      CAPTURE(r.name);
      CAPTURE(to_string(v));
      const long long plain = std::get<long long>(s.find_tunable(r.name)->plain);
      if (const auto* m = std::get_if<int Plan::*>(&r.member)) CHECK(p.*(*m) == plain);
      else CHECK((p.*std::get<bool Plan::*>(r.member) ? 1 : 0) == plain);
      ++checked;
    }
  }
  CHECK(checked > 0);
}

}  // namespace

TEST_CASE("under another strategy, the march's own tunables leave a stencil plan at their plain values") {
  for (const char* f : {"stencil/laplacian3d_o8.json", "stencil/laplacian2d_o4.json", "stencil/continuity3d.json"}) {
    CAPTURE(f);
    check_plain(load_spec(gpen::test::source_dir() + "/specs/" + f), stencil_tunable_rows());
  }
}
