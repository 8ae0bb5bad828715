#include <fstream>

#include "gpen/generator/error.hpp"
#include "gpen/generator/templates.hpp"
#include "test_support.hpp"

using namespace gpen;

TEST_CASE("fill_template substitutes and fails loudly") {
  CHECK(fill_template("t", "a ${x} b ${y} ${x}", {{"x", "1"}, {"y", "2"}}) == "a 1 b 2 1");
  CHECK_THROWS_AS(fill_template("t", "a ${x} ${z}", {{"x", "1"}}), InternalError);
  CHECK_THROWS_AS(fill_template("t", "a ${x}", {{"x", "1"}, {"unused", "2"}}), InternalError);
  CHECK_THROWS_AS(fill_template("t", "a ${x", {{"x", "1"}}), InternalError);
}

TEST_CASE("every template is embedded, and the override directory wins") {
  CHECK(template_text("gpen/stencil_rolling.cuh").find("stencil_rolling") != std::string::npos);
  CHECK(template_headers().size() >= 7);
  CHECK_THROWS(template_text("gpen/nope.cuh"));
  const std::string dir = std::filesystem::temp_directory_path() / "gpen_tpl_override";
  std::filesystem::create_directories(dir + "/gpen");
  std::ofstream(dir + "/gpen/stencil_direct.cuh") << "// overridden";
  setenv("GPEN_TEMPLATE_DIR", dir.c_str(), 1);
  CHECK(template_text("gpen/stencil_direct.cuh") == "// overridden");
  CHECK(template_text("gpen/stencil_tile.cuh").find("stencil_tile") != std::string::npos);  // falls back
  CHECK(template_headers_sha256() != embedded_headers_sha256());  // so an edited template misses the kernel cache
  unsetenv("GPEN_TEMPLATE_DIR");
  CHECK(template_text("gpen/stencil_direct.cuh") != "// overridden");
}

TEST_CASE("the override directory may be a source tree: each template at its file under families/") {
  gpen::test::TempDir dir;
  std::filesystem::create_directories(dir.path + "/families/stencil/device");
  std::ofstream(dir.path + "/families/stencil/device/stencil_direct.cuh") << "// edited in a tree";
  std::ofstream(dir.path + "/families/stencil/device/stencil_unit.cu.in") << "// unit edited in a tree";
  setenv("GPEN_TEMPLATE_DIR", dir.path.c_str(), 1);
  CHECK(template_text("gpen/stencil_direct.cuh") == "// edited in a tree");
  CHECK(template_text("stencil_unit.cu.in") == "// unit edited in a tree");
  CHECK(template_text("gpen/stencil_tile.cuh").find("stencil_tile") != std::string::npos);  // falls back
  unsetenv("GPEN_TEMPLATE_DIR");
}

TEST_CASE("the override directory is read once a process: a template edited while it runs changes neither the text nor the hash") {
  // Else a unit compiled from the edited text would be stored under the key of the text it replaced.
  gpen::test::TempDir dir;
  std::filesystem::create_directories(dir.path + "/gpen");
  std::ofstream(dir.path + "/gpen/stencil_direct.cuh") << "// first";
  setenv("GPEN_TEMPLATE_DIR", dir.path.c_str(), 1);
  const std::string hash = templates_sha256(), headers = template_headers_sha256();
  CHECK(template_text("gpen/stencil_direct.cuh") == "// first");
  std::ofstream(dir.path + "/gpen/stencil_direct.cuh") << "// edited while running";
  std::ofstream(dir.path + "/gpen/stencil_tile.cuh") << "// added while running";
  CHECK(template_text("gpen/stencil_direct.cuh") == "// first");
  CHECK(template_text("gpen/stencil_tile.cuh").find("stencil_tile") != std::string::npos);
  CHECK(templates_sha256() == hash);
  CHECK(template_headers_sha256() == headers);
  unsetenv("GPEN_TEMPLATE_DIR");
}

TEST_CASE("inline_includes pastes headers once with #line directives") {
  const std::string out = inline_includes("#include \"gpen/stencil_tile.cuh\"\nint x;\n", "unit.cu");
  CHECK(out.find("#line 1 \"families/stencil/device/stencil_tile.cuh\"") != std::string::npos);
  CHECK(out.find("#line 1 \"families/stencil/device/stencil_common.cuh\"") != std::string::npos);
  CHECK(out.find("#include \"gpen/") == std::string::npos);
  CHECK(out.find("#line 2 \"unit.cu\"") != std::string::npos);
}

TEST_CASE("the headers' fingerprint hashed at build time is the hash of the embedded headers") {
  // The kernel cache keys on it (runtime/src/kernel_cache.cpp); a mismatch
  // would only cost recompiles, but it would mean CMake saw other bytes.
  CHECK(headers_sha256(template_headers()) == embedded_headers_sha256());
  CHECK(template_headers_sha256() == embedded_headers_sha256());
}
