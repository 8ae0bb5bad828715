// The CUDA templates (families/<kind>/device/), embedded at build time, and
// the filler that expands ${placeholders} in them.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpen {

struct EmbeddedTemplate {
  const char* path;    // the name an #include knows: "gpen/stencil_rolling.cuh", "stencil_unit.cu.in"
  const char* source;  // the file it was read from, relative to the source tree
  const char* text;
};

// Written by cmake/embed_templates.cmake.
const std::vector<EmbeddedTemplate>& embedded_templates();
// SHA-256 of the embedded .cuh headers, each as "<size>:<path><size>:<text>"
// in embedding order, computed at build time (headers_sha256 of
// template_headers() without a GPEN_TEMPLATE_DIR).
const char* embedded_headers_sha256();

// A template's text: from $GPEN_TEMPLATE_DIR/<path> when that file exists
// (for authors editing templates without rebuilding), as this process
// first read the directory (once a directory: its kernels and their cache
// keys agree), else the embedded copy. Throws std::runtime_error for an
// unknown path.
std::string template_text(const std::string& path);

// Every header the generated units may include, as (include name, text).
std::vector<std::pair<std::string, std::string>> template_headers();

// SHA-256 of `headers`, each as "<size>:<path><size>:<text>" in order.
std::string headers_sha256(const std::vector<std::pair<std::string, std::string>>& headers);
// headers_sha256(template_headers()): the build-time fingerprint unless a
// GPEN_TEMPLATE_DIR is set (hashing them was a third of a warm cache load).
std::string template_headers_sha256();

// SHA-256 of every template, unit skeletons included, each as
// "<size>:<path><size>:<text>" in embedding order: what a generated unit is
// made of besides the spec and the generator. Computed at build time.
const char* embedded_templates_sha256();
// The same of the templates in use: the build-time one, or with a
// GPEN_TEMPLATE_DIR the hash of template_text() of each, computed once per
// process and directory (a spec's kernel cache key needs it on every hit).
std::string templates_sha256();

// Replaces each ${name} in `text`. Fails loudly: a placeholder without a value
// and a value that no placeholder uses are both internal errors.
std::string fill_template(const std::string& name, const std::string& text,
                          const std::map<std::string, std::string>& values);

// fill_template on the template at `path` (template_text(path)).
std::string instantiate(const std::string& path, const std::map<std::string, std::string>& values);

// `source` with each #include "gpen/..." replaced by the header's text,
// bracketed by #line directives so that compiler messages name the template.
std::string inline_includes(const std::string& source, const std::string& source_name);

}  // namespace gpen
