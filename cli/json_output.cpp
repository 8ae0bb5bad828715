#include "json_output.hpp"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

namespace gpen::cli {
namespace {
std::FILE* json_out = nullptr;
}

Json json_document(const std::string& name) { return Json{{"schema", "gpen." + name + "/1"}, {"gpen", GPEN_VERSION}}; }

void JsonChannel::open() {
  if (json_out) return;
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  if (saved < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) throw std::runtime_error("--json: cannot set standard output aside");
  json_out = ::fdopen(saved, "w");
  if (!json_out) throw std::runtime_error("--json: cannot set standard output aside");
}

bool JsonChannel::is_open() { return json_out != nullptr; }

void JsonChannel::emit(const Json& document) {
  std::fflush(stdout);  // the human text before it, on stderr
  // Text from outside (a file name, a compiler's log cut short) may not be
  // UTF-8: replaced, rather than losing the document.
  const std::string text = document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  std::FILE* out = json_out ? json_out : stdout;
  if (std::fwrite(text.data(), 1, text.size(), out) != text.size() || std::fflush(out) != 0)
    throw std::runtime_error("--json: cannot write the document to standard output");
}

Json spec_errors_json(const SpecError& e) {
  auto one = [](const SpecError& x) {
    const auto& d = x.detail();
    return Json{{"file", d.file}, {"line", d.where.line}, {"column", d.where.column}, {"pointer", d.pointer},
                {"message", d.message}, {"expected", d.expected}};
  };
  Json all = Json::array();
  if (const auto* many = dynamic_cast<const SpecErrors*>(&e)) {
    for (const auto& x : many->errors()) all.push_back(one(x));
  } else {
    all.push_back(one(e));
  }
  return all;
}

Json error_document(const std::string& command, const std::string& kind, const std::string& message, int exit_code, const SpecError* e) {
  Json j = json_document("error");
  j["command"] = command;
  j["kind"] = kind;
  j["message"] = message;
  j["exit_code"] = exit_code;
  if (e) {
    j["errors"] = spec_errors_json(*e);
    const auto* many = dynamic_cast<const SpecErrors*>(e);
    j["not_shown"] = many ? many->not_shown() : 0;
  }
  return j;
}

}  // namespace gpen::cli
