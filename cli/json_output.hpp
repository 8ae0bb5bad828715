// `--json`: every command that reports a result can print it as one JSON
// document on standard output instead of text. The documents are described
// in docs/json.md; each starts with "schema": "gpen.<name>/<version>" and
// "gpen": the version that wrote it. A version goes up when a field changes
// meaning or goes away; fields are added without one.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "gpen/generator/error.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen::cli {

using Json = nlohmann::ordered_json;

// {"schema": "gpen.<name>/1", "gpen": "<version>"}: the start of every document.
Json json_document(const std::string& name);

// Standard output for the one JSON document of a command given --json.
// open() moves the process's standard output aside and points descriptor 1
// at standard error, so that everything else the command prints (tables,
// progress, notes) goes to stderr without each print knowing of --json;
// emit() writes the document to the real standard output.
class JsonChannel {
 public:
  static void open();
  static bool is_open();
  static void emit(const Json& document);
};

// The errors of a spec, each {"file", "line", "column", "pointer", "message",
// "expected"}; every one a SpecErrors holds, else the one.
Json spec_errors_json(const SpecError& e);

// The document of a command that failed ("gpen.error/1"): kind is "spec",
// "usage", "no_device" or "error"; `e` adds the spec's errors.
Json error_document(const std::string& command, const std::string& kind, const std::string& message, int exit_code,
                    const SpecError* e = nullptr);

}  // namespace gpen::cli
