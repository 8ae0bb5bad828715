#include "gpen/generator/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace gpen {
namespace {

const char* file_type(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_regular_file(const std::string& path, std::size_t max_bytes, Links links) {
  // Look before opening: opening some devices acts on them (a tape rewinds),
  // O_NONBLOCK or not. The fstat after the open decides; this only spares
  // what is plainly no regular file from being opened at all.
  struct stat before {};
  if ((links == Links::Follow ? ::stat(path.c_str(), &before) : ::lstat(path.c_str(), &before)) == 0 && !S_ISREG(before.st_mode)) {
    if (S_ISLNK(before.st_mode)) throw FileReadError(FileReadError::Reason::Link, path, "is a symbolic link, which is not followed here");
    throw FileReadError(FileReadError::Reason::NotRegular, path, fmt::format("is {}, not a regular file", file_type(before.st_mode)));
  }
  int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
  if (links == Links::Refuse) flags |= O_NOFOLLOW;
  Fd f{::open(path.c_str(), flags)};
  if (f.fd < 0) {
    const int e = errno;
    if (e == ENOENT || e == ENOTDIR) throw FileReadError(FileReadError::Reason::Missing, path, "does not exist");
    if (e == ELOOP && links == Links::Refuse)
      throw FileReadError(FileReadError::Reason::Link, path, "is a symbolic link, which is not followed here");
    throw FileReadError(FileReadError::Reason::Io, path, fmt::format("cannot be opened: {}", std::strerror(e)));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    throw FileReadError(FileReadError::Reason::Io, path, fmt::format("cannot be examined (fstat): {}", std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw FileReadError(FileReadError::Reason::NotRegular, path, fmt::format("is {}, not a regular file", file_type(st.st_mode)));
  const auto size = static_cast<unsigned long long>(st.st_size);
  if (size > max_bytes)
    throw FileReadError(FileReadError::Reason::TooLarge, path, fmt::format("has {} bytes, more than the {} read here", size, max_bytes));
  std::string out(static_cast<std::size_t>(size), '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::read(f.fd, out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileReadError(FileReadError::Reason::Io, path, fmt::format("cannot be read: {}", std::strerror(errno)));
    }
    if (n == 0) break;  // the file shrank while we read it: what is there is what we have
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

}  // namespace gpen
