#include "gpen/measure/tune/tuning_db.hpp"

#include "gpen/generator/tunables.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpen/generator/regular_file.hpp"
#include "gpen/runtime/bounded_json.hpp"
#include "gpen/runtime/kernel_cache.hpp"
#include "gpen/runtime/new_file.hpp"
#include "gpen/runtime/nvrtc_compiler.hpp"
#include "gpen/runtime/nvrtc_library.hpp"

namespace gpen {
namespace fs = std::filesystem;

std::string TuningDb::default_path() { return KernelCache::default_dir() + "/tuning.json"; }

TuningDb::TuningDb(std::string path) : path_(std::move(path)) {}

namespace {

// Thousands of records at a few hundred bytes each; a larger file is not read.
constexpr std::size_t kMaxTuningDbBytes = std::size_t{64} << 20;
constexpr int kTuningDbDepth = 3;  // the file, a record, its choice

// The file as read: its records, and what kept it from being read where
// something is at `path` that is no database (a link, a FIFO, a file past
// kMaxTuningDbBytes or unreadable, text that is not a JSON object). A
// missing file is an empty database.
struct DbFile {
  nlohmann::json records = nlohmann::json::object();
  std::string problem;
};

DbFile read_db(const std::string& path) {
  DbFile db;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return db;
  std::string text;
  try {
    text = read_regular_file(path, kMaxTuningDbBytes, Links::Refuse);
  } catch (const FileReadError& e) {
    db.problem = e.what();
    return db;
  }
  nlohmann::json j = parse_bounded_json(text, kTuningDbDepth);
  if (j.is_discarded()) db.problem = "it is not JSON, or nested deeper than records are";
  else if (!j.is_object()) db.problem = "it holds JSON that is not an object of records";
  else db.records = std::move(j);
  return db;
}

// The database's warnings, on standard error as the kernel cache's.
void warn(const std::string& msg) { fmt::print(stderr, "gpen: warning: {}\n", msg); }

// A database that cannot be read is said once a process, not at each lookup.
void warn_once(const std::string& path, const std::string& problem) {
  static std::mutex mu;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mu);
  if (said.insert(path).second)
    warn(fmt::format("the tuning database '{}' cannot be read: {}; tuned variants are not used (gpen cache clear --tuning removes it)", path, problem));
}

// The records at `path`, or none (said once) where the file cannot be read:
// a lookup falls back to the defaults rather than crash, hang or follow a
// link out of the cache directory.
nlohmann::json read_all(const std::string& path) {
  DbFile db = read_db(path);
  if (!db.problem.empty()) warn_once(path, db.problem);
  return std::move(db.records);
}

// Holds an exclusive lock on `path`.lock while it lives: stores by several
// processes at once each read the records the last one wrote. Opened for
// reading (flock needs no more, so a lock file another user of a shared
// directory made serves this one too), without blocking on a FIFO planted
// there. Where no lock can be had (no lock file, a file system without
// flock) the store goes on unlocked, with a warning.
class DbLock {
 public:
  explicit DbLock(const std::string& path) : fd_(::open((path + ".lock").c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0666)) {
    int rc = -1;
    if (fd_ >= 0)
      while ((rc = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
      }
    if (rc != 0)
      warn(fmt::format("no lock on '{}.lock' ({}): a store by another process at this moment may be lost", path, std::strerror(errno)));
  }
  ~DbLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  DbLock(const DbLock&) = delete;
  DbLock& operator=(const DbLock&) = delete;

 private:
  int fd_;
};

// A record's fields but its choice. Throws nlohmann::json's exceptions for
// a field of the wrong type.
TuningRecord record_fields(const nlohmann::json& j) {
  TuningRecord r;
  r.spec = j.value("spec", "");
  r.size = j.value("size", "");
  r.strategy = j.value("strategy", "");
  r.date = j.value("date", "");
  r.ms = j.value("ms", 0.0);
  r.teff_gbs = j.value("teff_gbs", 0.0);
  r.copy_gbs = j.value("copy_gbs", 0.0);
  r.pairs_per_s = j.value("pairs_per_s", 0.0);
  r.evaluations = j.value("evaluations", 0);
  return r;
}

}  // namespace

std::vector<std::pair<std::string, TuningRecord>> TuningDb::list() const {
  std::vector<std::pair<std::string, TuningRecord>> out;
  const nlohmann::json all = read_all(path_);
  for (const auto& [key, j] : all.items()) {
    if (!j.is_object()) continue;
    try {
      TuningRecord r = record_fields(j);
      for (const auto& [k, v] : j.at("choice").items()) {
        if (v.is_number_integer()) r.choice[k] = v.get<long long>();
        else r.choice[k] = v.get<std::string>();
      }
      out.emplace_back(key, std::move(r));
    } catch (const nlohmann::json::exception&) {
      // malformed: not listed, as find() would not use it
    }
  }
  return out;
}

std::size_t TuningDb::clear() const {
  const DbLock lock(path_);  // a store under way does not bring the records back
  const std::size_t n = read_db(path_).records.size();
  std::error_code ec;
  fs::remove(path_, ec);  // unlink: a link goes, its target stays
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw std::runtime_error(fmt::format("cannot remove the tuning database '{}': {}", path_, ec.message()));
  return n;
}

std::optional<TuningRecord> TuningDb::find(const TuningKey& key, const Spec& spec) const {
  const nlohmann::json all = read_all(path_);
  const auto it = all.find(key.str());
  if (it == all.end() || !it->is_object()) return std::nullopt;
  const auto& j = *it;
  TuningRecord r;
  try {
    r = record_fields(j);
    std::vector<std::string> overrides;
    const auto& choice = j.at("choice");
    const std::string strategy = choice.value("strategy", "");
    for (const auto& [k, v] : choice.items()) {
      // A strategy's own tunable under another strategy holds its plain
      // value, which may be none of its values (cell_block of a tile);
      // choose() puts it back.
      const TunableDecl* t = spec.find_tunable(k);
      if (t && !t->belongs_to(strategy) && v.is_number_integer() &&
          TunableValue(v.get<long long>()) == t->plain)
        continue;
      overrides.push_back(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
    }
    // A record made before one of the spec's tunables existed holds no
    // value for it: today's default there would make a variant nobody
    // measured.
    for (const auto& t : spec.tunables)
      if (!choice.contains(t.name)) return std::nullopt;
    r.choice = spec.choose(overrides, false);
  } catch (const std::exception&) {
    return std::nullopt;  // a value the spec no longer allows, or a malformed record
  }
  return r;
}

void TuningDb::store(const TuningKey& key, const TuningRecord& r) const {
  std::error_code ec;
  fs::create_directories(fs::path(path_).parent_path(), ec);
  const DbLock lock(path_);
  DbFile db = read_db(path_);
  if (!db.problem.empty()) {
    // Kept beside it rather than overwritten: its records may be worth more than this one.
    std::string aside = path_ + ".damaged";
    for (int n = 2; fs::exists(fs::symlink_status(aside, ec)); ++n) aside = fmt::format("{}.damaged.{}", path_, n);  // an earlier one kept too
    fs::rename(path_, aside, ec);
    warn(fmt::format("the tuning database '{}' could not be read ({}); {}, and a new one is started", path_, db.problem,
                     ec ? fmt::format("it could not be moved aside ({}) and is replaced", ec.message()) : "it is now " + aside));
  }
  nlohmann::json& all = db.records;
  const nlohmann::json choice = choice_json(r.choice);
  all[key.str()] = {{"spec", r.spec}, {"size", r.size}, {"strategy", r.strategy}, {"date", r.date}, {"choice", choice},
                    {"ms", r.ms}, {"teff_gbs", r.teff_gbs}, {"copy_gbs", r.copy_gbs}, {"evaluations", r.evaluations}};
  if (r.pairs_per_s > 0) all[key.str()]["pairs_per_s"] = r.pairs_per_s;
  try {
    replace_file(path_, all.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  } catch (const std::system_error& e) {
    throw std::runtime_error(fmt::format("could not store the tuning database '{}': {}", path_, e.what()));
  }
}

}  // namespace gpen
