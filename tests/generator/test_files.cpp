// Files someone else may control: reading only regular files, bounded, never
// blocking (read_regular_file); creating files only anew, never through a
// planted link (write_new_file, replace_file); JSON bounded in depth.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "gpen/generator/regular_file.hpp"
#include "gpen/runtime/bounded_json.hpp"
#include "gpen/runtime/new_file.hpp"
#include "test_support.hpp"

using namespace gpen;
namespace fs = std::filesystem;
using gpen::test::read_file;
using gpen::test::TempDir;

namespace {

// The FileReadError that reading `path` throws, as "<reason> <what()>".
std::string read_error(const std::string& path, std::size_t max_bytes, Links links) {
  try {
    read_regular_file(path, max_bytes, links);
  } catch (const FileReadError& e) {
    const char* reasons[] = {"Missing", "NotRegular", "Link", "TooLarge", "Io"};
    return std::string(reasons[static_cast<int>(e.reason())]) + " " + e.what();
  }
  return "read";
}

}  // namespace

TEST_CASE("read_regular_file reads a regular file, follows a link only when asked, and refuses the rest with a reason") {
  TempDir d;
  const std::string file = d.path + "/f", link = d.path + "/l", fifo = d.path + "/p";
  std::ofstream(file) << "twelve bytes";
  fs::create_symlink(file, link);
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(read_regular_file(file, 12, Links::Refuse) == "twelve bytes");
  CHECK(read_regular_file(link, 12, Links::Follow) == "twelve bytes");
  CHECK(read_error(link, 12, Links::Refuse) == "Link '" + link + "' is a symbolic link, which is not followed here");
  CHECK(read_error(file, 11, Links::Refuse) == "TooLarge '" + file + "' has 12 bytes, more than the 11 read here");
  CHECK(read_error(d.path + "/none", 12, Links::Refuse) == "Missing '" + d.path + "/none' does not exist");
  CHECK(read_error(d.path, 12, Links::Follow) == "NotRegular '" + d.path + "' is a directory, not a regular file");
  CHECK(gpen::test::in_child(20, [&]() -> std::string {  // a FIFO with no writer: no hang
    const std::string got = read_error(fifo, 12, Links::Follow);
    return got == "NotRegular '" + fifo + "' is a FIFO, not a regular file" ? "" : got;
  }) == "");
  CHECK(read_error("/dev/zero", 12, Links::Follow) == "NotRegular '/dev/zero' is a character device, not a regular file");
  try {
    read_regular_file(fifo, 12, Links::Follow);
  } catch (const FileReadError& e) {  // the parts a caller words its own message with
    CHECK(e.path() == fifo);
    CHECK(e.problem() == "is a FIFO, not a regular file");
  }
}

TEST_CASE("write_new_file creates, and fails on anything already at the name, a planted link above all") {
  TempDir d, outside;
  const std::string target = outside.path + "/precious", link = d.path + "/new", file = d.path + "/file";
  std::ofstream(target) << "precious";
  fs::create_symlink(target, link);
  try {
    write_new_file(link, "overwritten");
    FAIL("wrote through a link");
  } catch (const std::system_error& e) {
    CHECK(e.code() == std::errc::file_exists);
    CHECK(std::string(e.what()) == "cannot create '" + link + "': File exists");
  }
  CHECK(read_file(target) == "precious");
  write_new_file(file, "new");
  CHECK(read_file(file) == "new");
  CHECK_THROWS_AS(write_new_file(file, "again"), std::system_error);
  CHECK(read_file(file) == "new");
}

TEST_CASE("replace_file replaces a link itself, not its target, and leaves no temporary file") {
  TempDir d, outside;
  const std::string target = outside.path + "/precious", path = d.path + "/db.json";
  std::ofstream(target) << "precious";
  fs::create_symlink(target, path);
  replace_file(path, "new");
  CHECK(fs::is_regular_file(fs::symlink_status(path)));
  CHECK(read_file(path) == "new");
  CHECK(read_file(target) == "precious");
  replace_file(path, "newer");
  CHECK(read_file(path) == "newer");
  CHECK(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()) == 1);
  CHECK_THROWS_WITH_AS(replace_file(d.path + "/no/such/dir", "x"),
                       doctest::Contains(("cannot create '" + d.path + "/no/such/.").c_str()), std::system_error);
}

TEST_CASE("unique_name_part differs from call to call") {
  const std::string a = unique_name_part(), b = unique_name_part();
  CHECK(a != b);
  CHECK(a.rfind(std::to_string(getpid()) + ".", 0) == 0);
  CHECK(a.size() == std::to_string(getpid()).size() + 17);
}

TEST_CASE("parse_bounded_json refuses what nests deeper than allowed, before it parses") {
  CHECK(parse_bounded_json(R"({"a": 1})", 1) == nlohmann::json{{"a", 1}});
  CHECK(parse_bounded_json(R"({"a": {"b": [1]}})", 3).is_object());
  CHECK(parse_bounded_json(R"({"a": {"b": [1]}})", 2).is_discarded());
  CHECK(parse_bounded_json(R"({"a": "[[[[", "b\"": "}}"})", 1).is_object());  // brackets in strings do not count
  CHECK(parse_bounded_json(std::string(100000000, '['), 3).is_discarded());  // a hundred million: no parse, no gigabytes
  CHECK(parse_bounded_json("{not json", 3).is_discarded());
}
