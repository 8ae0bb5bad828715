// Writing files into a directory that someone else may write to as well (a
// shared kernel cache, the tuning database beside it): a file is only ever
// created, never opened where it stands, so that a link planted at its name
// cannot make gpen truncate or write into the link's target.
#pragma once

#include <string>

namespace gpen {

// Creates the file `path` with O_CREAT | O_EXCL | O_NOFOLLOW (mode 0666 less
// the umask), writes `content` and closes it. Anything already at `path`, a
// link included, makes it fail with EEXIST. Throws std::system_error whose
// what() names the path; a file it created and could not fill is removed.
void write_new_file(const std::string& path, const std::string& content);

// "<pid>.<16 random hex digits>": a part of a name that no other process
// (nor this one, twice) picks, and that an attacker cannot predict.
std::string unique_name_part();

// Replaces the file at `path` with one holding `content`, in one step:
// write_new_file to "<dir>/.<name>.<unique>.tmp", then rename over `path`.
// Readers see the old file or the new one, never half of one; a link at
// `path` is replaced itself, its target is left alone. Throws
// std::system_error; no temporary file is left behind.
void replace_file(const std::string& path, const std::string& content);

}  // namespace gpen
