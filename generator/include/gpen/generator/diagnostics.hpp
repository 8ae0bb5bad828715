// Collecting the independent errors of one spec, so that `gpen check` shows
// them all rather than one a run, and "did you mean" for misspelt names.
//
// The parser runs each independent unit (a field, a param, an operator, an
// output, a tunable, a constraint, ...) inside Diagnostics::unit(): a
// SpecError it throws is recorded and the parser goes on with the next unit.
// A unit that needs one that failed is skipped, so that one mistake makes one
// error: an unknown name in an output is not also a ghost width too small.
// At the end, throw_if_any() throws one SpecErrors carrying them all.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpen/generator/error.hpp"
#include "gpen/generator/json_source.hpp"
#include "gpen/generator/limits.hpp"

namespace gpen {

// Thrown by a unit whose error is already recorded, or is the consequence
// of another's (a name that failed to declare): the unit stops, and nothing
// more is recorded.
struct UnitFailed {};

// While one is alive on a thread, the spec errors raised on that thread are
// only counted: JsonSource leaves out their line, column and excerpt, and
// did_you_mean() its search, each of which would cost a scan. Diagnostics
// holds one once it keeps no more errors, so that a spec of many errors costs
// no more than one of few.
class CountingOnly {
 public:
  CountingOnly();
  ~CountingOnly();
  CountingOnly(const CountingOnly&) = delete;
  CountingOnly& operator=(const CountingOnly&) = delete;
  static bool active();
};

// The errors of one spec: the first kMaxErrors (limits.hpp) kept, the
// others counted.
class Diagnostics {
 public:
  // Runs `fn`; returns whether it finished. A SpecError it throws is
  // recorded, a UnitFailed ends it silently.
  template <class Fn>
  bool unit(Fn&& fn) {
    try {
      fn();
      return true;
    } catch (const SpecError& e) {
      record(e);
    } catch (const UnitFailed&) {
    }
    return false;
  }

  void record(const SpecError& e);
  // An error found without raising one (a loop over many keys, once full):
  // counted, never built.
  void count_one() { ++not_shown_; }
  // Whether errors are only counted from now on.
  bool full() const { return kept_.size() >= kMaxErrors; }
  bool empty() const { return kept_.empty() && not_shown_ == 0; }

  // Throws SpecErrors (the kept errors in document order and the count of
  // the others) if anything was recorded.
  void throw_if_any();

 private:
  std::vector<SpecError> kept_;
  std::size_t not_shown_ = 0;
  std::optional<CountingOnly> counting_;
};

// The candidate closest to a misspelt name by optimal string alignment
// distance (an edit is an insertion, a deletion, a substitution or a swap of
// neighbours), if it is close: at most max(1, n / 3) edits and fewer than n,
// for n the longer name's length. Ties go to the earlier candidate.
std::optional<std::string> closest_name(const std::string& typo, const std::vector<std::string>& candidates);
// "; did you mean 'x'?" to end a message with, or "" when no candidate is
// close (or errors are only being counted).
std::string did_you_mean(const std::string& typo, const std::vector<std::string>& candidates);

// Records "unknown key 'k'" for each key of the object `j` at `ptr` that is
// not in `known`, suggesting a known key that `j` lacks; once `diag` is full,
// only counts them. Returns the keys suggested: a required one among them is
// missing because it is misspelt, not a second mistake.
std::set<std::string> record_unknown_keys(const nlohmann::json& j, const std::string& ptr, const std::vector<std::string>& known,
                                          const JsonSource& src, Diagnostics& diag);

}  // namespace gpen
