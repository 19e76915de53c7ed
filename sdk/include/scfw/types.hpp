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

/// The plain ABI number checked before any C++ object crosses a library boundary: it versions
/// the layout of PluginDescriptor (4: the build fingerprint; 5: Tracker and Glmo take a
/// scfw::Jacobian, dense or sparse, instead of a Mat, and Oracle gained the sparse Jacobian
/// capability, so a plugin built against 4 would misread the virtual tables; 6: Domain gained the
/// compact-atoms capability, compact_atoms() and lmo_sparse(), two more virtual functions; 7:
/// one capabilities() on Component replaces the boolean queries (has_exact(), has_model(),
/// compact_atoms(), accepts_sparse(), sharded(), ...), the state methods are declared once, in
/// Stateful, and Oracle::evaluate() / exact() take a Jacobian* in place of their dense and sparse
/// twins; 8: one Domain::lmo(const Gradient&, Atom&) replaces lmo(const Vec&, Vec&) and
/// lmo_sparse(); 9: Context gained the host's named arrays, Context::arrays; 10: Glmo gained set_step(); 11: Oracle::matrix_entries(),
/// Context::entries, rank-one atoms seen at entries, GlmoResult::combination). Changes of the SDK's classes and virtual tables are caught by the fingerprint's
/// interface hash; bumping this number for them too gives the clearer message.
inline constexpr std::uint32_t kAbiVersion = 11;

}  // namespace scfw
