#include "integrator.hpp"

namespace gpen::sim {

const Scheme& scheme(Integrator kind) {
  // Williamson's third-order scheme as the Pencil Code has it:
  // alpha = (0, -5/9, -153/128), beta = (1/3, 15/16, 8/15); the stage
  // times are the partial sums c = (0, 1/3, 3/4).
  static const Scheme rk3{Integrator::Rk3, 3, true,
                          {{0.0, 1.0 / 3.0, 0, 0, 0.0}, {-5.0 / 9.0, 15.0 / 16.0, 0, 0, 1.0 / 3.0}, {-153.0 / 128.0, 8.0 / 15.0, 0, 0, 3.0 / 4.0}}};
  static const Scheme euler{Integrator::Euler, 1, true, {{0.0, 1.0, 0, 0, 0.0}}};
  // f_{n+1} = f_n + dt (k1 + 2 k2 + 2 k3 + k4) / 6, the stages at f_n + dt (1/2 k1, 1/2 k2, k3).
  static const Scheme rk4{Integrator::Rk4, 4, false,
                          {{0, 0, 1.0 / 6.0, 0.5, 0.0}, {0, 0, 1.0 / 3.0, 0.5, 0.5}, {0, 0, 1.0 / 3.0, 1.0, 0.5}, {0, 0, 1.0 / 6.0, 0.0, 1.0}}};
  switch (kind) {
    case Integrator::Rk3: return rk3;
    case Integrator::Euler: return euler;
    case Integrator::Rk4: return rk4;
  }
  return rk3;
}

}  // namespace gpen::sim
