// The time integrators a program may name, as the coefficients both back
// ends (the CPU reference and the GPU) apply in the same order.
#pragma once

#include <vector>

#include "gpen/simulate/program.hpp"

namespace gpen::sim {

// One stage, after the right-hand side of the state at its start is in k:
//   2N storage (rk3, euler; Williamson 1980, the Pencil Code's form):
//     d = alpha d + k;  f = f + dt beta d
//   rk4 (classic): acc = (first ? 0 : acc) + weight k;
//     f = f0 + dt next k, or, at the last stage, f = f0 + dt acc
// `c` is the stage's time as a fraction of the step.
struct Stage {
  double alpha = 0, beta = 0;  // 2N
  double weight = 0, next = 0; // rk4
  double c = 0;
};

struct Scheme {
  Integrator kind;
  int order;
  bool two_n;  // the 2N form; else rk4's
  std::vector<Stage> stages;
};

const Scheme& scheme(Integrator kind);

}  // namespace gpen::sim
