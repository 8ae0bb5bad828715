// Errors: user mistakes in a spec (SpecError) apart from gpen's own bugs
// (InternalError). A SpecError names where (file, JSON pointer, line,
// column), what was found and what was expected.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpen {

// A position in a text file, 1-based; 0 means unknown.
struct Location {
  int line = 0;
  int column = 0;
};

class SpecError : public std::runtime_error {
 public:
  struct Detail {
    std::string file;      // path of the spec, or "<string>"
    std::string pointer;   // JSON pointer, e.g. "/outputs/0/expr"
    Location where;        // line and column in the file
    std::string message;   // what is wrong
    std::string expected;  // what would be right (may be empty)
    std::string excerpt;   // the source line and a caret under the column
  };
  // The pointer, message and expected text are kept printable: control
  // characters escaped ("\\n"), each cut to about 400 characters.
  explicit SpecError(Detail d);

  const Detail& detail() const { return detail_; }
  const std::string& pointer() const { return detail_.pointer; }
  int line() const { return detail_.where.line; }
  int column() const { return detail_.where.column; }

 protected:
  // `printable` as the constructor above leaves it; `what` the whole text.
  SpecError(Detail printable, std::string what);

 private:
  SpecError(Detail printable, int);
  Detail detail_;
};

// Every independent error found in one spec (Diagnostics collects them), so
// that one run of `gpen check` shows them all. what() lists them in document
// order, then "<file>: N more errors not shown" when more were found than
// kept; detail() and the accessors of SpecError are the first one's, so code
// that reads one error reads the first.
class SpecErrors : public SpecError {
 public:
  // `errors` non-empty, in document order; `not_shown` counted past them.
  SpecErrors(std::vector<SpecError> errors, std::size_t not_shown);

  const std::vector<SpecError>& errors() const { return errors_; }
  std::size_t not_shown() const { return not_shown_; }
  std::size_t count() const { return errors_.size() + not_shown_; }

 private:
  std::vector<SpecError> errors_;
  std::size_t not_shown_;
};

// Spec text to quote in a message: cut to `most` characters with "...", so
// that a long value does not push the message's point out of sight.
std::string quoted_text(const std::string& text, std::size_t most = 60);

// A wrong command-line value, not a wrong spec: a --set that names no
// tunable or no allowed value, a --size that is no size. what() starts with
// the option and the argument as given, then what is wrong:
//   --set block_x=33: 33 is not an allowed value of block_x; allowed: 8, 16, 32, 64
// The CLI prints it after "gpen: usage: " and exits 2.
class UsageError : public std::invalid_argument {
 public:
  // Control characters of the argument escaped, as in a SpecError.
  explicit UsageError(const std::string& what);
};

// gpen itself is wrong: carries the source file and line of the check.
class InternalError : public std::logic_error {
 public:
  InternalError(const std::string& what, const char* file, int line);
};

#define GPEN_INTERNAL_CHECK(cond, msg)                                \
  do {                                                                \
    if (!(cond)) throw ::gpen::InternalError((msg), __FILE__, __LINE__); \
  } while (0)

}  // namespace gpen
