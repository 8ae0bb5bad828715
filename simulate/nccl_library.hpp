// NCCL, opened at run time (dlopen of libnccl.so.2, as the driver is): the
// collective and point-to-point calls the ghost-zone exchange and the CFL
// all-reduce of several GPUs use (issue 30). Types from the toolkit's
// nccl.h; a machine without the library gets an error naming it, and
// every single-GPU path works without it.
#pragma once

#include <string>

#include <nccl.h>

namespace gpen::sim {

struct NcclApi {
#define GPEN_NCCL_FN(name) decltype(&::name) name = nullptr;
#include "nccl_functions.inc"
#undef GPEN_NCCL_FN
};

// The library, opened once; std::runtime_error saying what was tried where it cannot be.
const NcclApi& nccl();

// Throws std::runtime_error naming `doing` and NCCL's message unless r is ncclSuccess.
void nccl_check(ncclResult_t r, const std::string& doing);

}  // namespace gpen::sim
