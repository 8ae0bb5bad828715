// A right-hand side's stencil with a 2N-storage stage's update in its
// stores (the GPU loop of rk3 and euler): where the spec computes k = dF/dt
// for field F, the fused spec computes
//   d = alpha d + k      (d = k at a step's first stage: d is not read)
//   F_next = F + (dt beta) d
// and stores F_next into the other buffer of F's pair (F is read with its
// stencil while the kernel runs: it cannot be written in place), and d in
// place (each point read, then written, by the thread that owns it: every
// strategy reads a point's inputs before it stores the point) except at
// the last stage, whose d no later stage reads. The rhs k never goes to memory: a stage
// costs the stencil's reads, d's read and write and F_next's write, where a
// separate update pass would read k, d and F again.
//
// The fused spec is a new Spec built from the rhs spec's IR (no text is
// made or parsed): its inputs are the spec's, then F where the spec does
// not read it and d; its params the spec's, then alpha and dt beta. The
// arrays it adds (d, F_next, F) have F's ghost width: a launch binds whole
// padded arrays (d too is padded), of one layout where the fields' ghosts
// are equal and gpen allocated them, so that no strategy meets pitches
// that differ from array to array there (narrower views of the rhs spec's
// inputs and the caller's pitched arrays still may). F_next's periodic
// ghosts are stored with it (periodic_image_axes).
#pragma once

#include <vector>

#include "gpen/simulate/program.hpp"

namespace gpen::sim {

// Which part of the update a stage's kernel does.
struct StagePart {
  bool reads_d = false;   // not at the first stage (alpha = 0)
  bool writes_d = false;  // not at the last stage
  friend bool operator==(StagePart a, StagePart b) { return a.reads_d == b.reads_d && a.writes_d == b.writes_d; }
};

// What a slot of the fused spec is bound to: field f's buffer now (the
// state the stage starts from), the other buffer of its pair (the state it
// makes), or its register d.
struct FusedSlot {
  enum class What { Now, Next, Register } what;
  int field;
};

struct FusedUpdate {
  Spec spec;
  std::vector<FusedSlot> inputs, outputs;  // per input and output slot of `spec`
  int alpha_param = 0, dt_beta_param = 0;  // indices into spec.params
};

// The axes (bit a for axis a) along which a stage's kernel fills field
// f's ghosts in its stores: both faces periodic, 0 < 2 ghost <= points
// (a point then has one image an axis, where a fill may copy it twice). The
// F_next output stores each point also into its periodic images there
// (FieldDecl::periodic_images), so that the loop fills no face of those
// axes after a stage: a fill reads the faces back from memory, across x a
// partial sector a line.
unsigned periodic_image_axes(const Program& p, int f);

struct FuseOptions {
  unsigned image_axes = ~0u;  // F_next stores its periodic images along these of periodic_image_axes (else fills make them)
  bool device_dt = false;  // dt_beta is a device param (ParamDecl::device): the time step computed on the device
};

// `r`'s spec fused with the update of `part`; its name says the part.
FusedUpdate fuse_update(const RhsKernel& r, const Program& p, StagePart part, FuseOptions options = {});

// Throws SpecError at the first right-hand side that is no stencil spec
// (an SBP operator's math is not an expression to fuse into): the GPU runs
// such a program with rk4 alone.
void check_fusable(const Program& p);

}  // namespace gpen::sim
