// Reading a whole file that someone else may control (a spec path, a kernel
// cache entry, the tuning database) without trusting what it is: a FIFO must
// not block, a device must not be read until memory runs out, and a cache
// entry must not be a link planted to somewhere else.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace gpen {

// Why a file could not be read. problem() says it without the path, as a
// predicate ("is a FIFO, not a regular file", "cannot be read: I/O error")
// that a caller can put after its own name for the file ("kernel cache entry
// '<path>' is a FIFO, ..."); what() is "'<path>' " + problem().
class FileReadError : public std::runtime_error {
 public:
  enum class Reason { Missing, NotRegular, Link, TooLarge, Io };
  FileReadError(Reason reason, const std::string& path, const std::string& problem)
      : std::runtime_error("'" + path + "' " + problem), reason_(reason), path_(path), problem_(problem) {}
  Reason reason() const { return reason_; }
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  Reason reason_;
  std::string path_, problem_;
};

enum class Links { Follow, Refuse };

// The whole content of the regular file at `path`, at most `max_bytes`.
// Opens without blocking (O_NONBLOCK), checks with fstat that what was opened
// is a regular file, and reads no more than the size fstat states. With
// Links::Refuse a symbolic link as the last path component is refused
// (O_NOFOLLOW) rather than followed.
std::string read_regular_file(const std::string& path, std::size_t max_bytes, Links links);

}  // namespace gpen
