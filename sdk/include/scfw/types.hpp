// scfw SDK: basic numeric types shared by every role.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <limits>
#include <random>

namespace scfw {

/// Dense column vector (points x, y in R^d; values f, z in R^n).
using Vec = Eigen::VectorXd;
/// Jacobians are n x d and stored row-major: row i is the gradient of f_i,
/// which is also the i-th row of the GLMO's linear model u = z + V (x - y).
using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// The one random engine of a run. Plugins draw from the engine they are handed and never seed
/// their own, so that a problem file and a seed determine the whole trace.
using Rng = std::mt19937_64;

inline constexpr double inf = std::numeric_limits<double>::infinity();

/// The plain ABI number checked before any C++ object crosses a library boundary. Bump it
/// whenever a class layout or virtual table in this SDK changes.
inline constexpr std::uint32_t kAbiVersion = 4;

}  // namespace scfw
