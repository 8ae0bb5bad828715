#include "gpen/runtime/new_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <random>
#include <system_error>

#include <fmt/format.h>

namespace gpen {
namespace {

[[noreturn]] void fail(int err, const std::string& what) { throw std::system_error(err, std::generic_category(), what); }

}  // namespace

void write_new_file(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) fail(errno, fmt::format("cannot create '{}'", path));
  std::size_t done = 0;
  int err = 0;
  while (done < content.size() && !err) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n > 0) done += static_cast<std::size_t>(n);
    else if (n == 0) err = EIO;  // no progress: give up rather than spin
    else if (errno != EINTR) err = errno;
  }
  if (::close(fd) != 0 && !err) err = errno;  // NFS reports a full disk as late as close
  if (err) {
    ::unlink(path.c_str());  // ours: created exclusively above
    fail(err, fmt::format("cannot write '{}'", path));
  }
}

std::string unique_name_part() {
  static thread_local std::mt19937_64 bits{(static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}()};
  return fmt::format("{}.{:016x}", ::getpid(), bits());
}

void replace_file(const std::string& path, const std::string& content) {
  const std::filesystem::path p(path);
  const std::string tmp = (p.parent_path() / fmt::format(".{}.{}.tmp", p.filename().string(), unique_name_part())).string();
  write_new_file(tmp, content);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {  // atomic on POSIX; a link at `path` is replaced, not followed
    const int err = errno;
    ::unlink(tmp.c_str());
    fail(err, fmt::format("cannot rename '{}' to '{}'", tmp, path));
  }
}

}  // namespace gpen
