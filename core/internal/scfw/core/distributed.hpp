// scfw core: running over MPI ranks (docs/scaling.md). Everything that touches MPI lives in
// core/src/distributed.cpp; this header, the SDK and the plugins know nothing of it, and a build
// without MPI (SCFW_WITH_MPI=OFF) compiles the same interface as one rank.
//
//   scfw compare  spreads its (method, seed, K) runs over the ranks; each rank holds the whole
//                 problem; rank 0 gathers the results and writes every file.
//   scfw run      gives the oracle its Shard (Context::shard): an oracle that declares Sharded
//                 reads only its rank's rows and returns partial sums, which the host adds over
//                 the ranks in rank order (wrap_sharded_oracle). Everything else (the tracker,
//                 the GLMO, the schedule) runs on every rank with the same inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scfw/roles.hpp"
#include "scfw/shard.hpp"

namespace scfw {

/// The processes of one `mpirun` (MPI_COMM_WORLD), or the one process when MPI is not running.
/// Every collective below must be called by every rank, in the same order.
class Ranks final : public Shard {
 public:
  int rank() const override;
  int size() const override;
  bool root() const { return rank() == 0; }

  std::vector<std::vector<std::int64_t>> all_gather(std::span<const std::int64_t> mine) const override;
  void agree(std::exception_ptr error) const override;

  /// Collective: every rank's string on rank 0, in rank order; an empty vector on the others.
  std::vector<std::string> gather_to_root(const std::string& mine) const;
  /// Collective: rank 0's string on every rank.
  std::string broadcast(const std::string& from_root) const;
  /// Collective: values[i] becomes the sum over the ranks of values[i], on every rank. The
  /// operands are combined in rank order (an MPI reduction with a non-commutative operation,
  /// then a broadcast), so every rank gets the same bits, run after run.
  void sum(double* values, std::size_t n) const;
  /// Collective: the largest of the ranks' values, on every rank (`scfw run` agrees on a stop
  /// signal with it once per iteration, so that every rank stops at the same iteration).
  int max(int mine) const;
};

/// Whether the exception being handled was thrown by Ranks::agree: every rank then holds the
/// same error, and rank 0 alone reports it. An error that only this rank saw is not "agreed":
/// the rank names itself in its message and ends the job with MPI_Abort (MpiSession::abort_job).
bool error_agreed();

/// The world. One rank of one unless an MpiSession is alive and the process runs under mpirun.
const Ranks& ranks();

/// Whether this build can run over MPI (configured with SCFW_WITH_MPI and the packages found).
bool built_with_mpi();

/// Initialises MPI for the object's lifetime when the build has MPI and the process was started
/// by mpirun (an OpenMPI or PMIx rank variable is set); otherwise does nothing, so that a plain
/// `scfw run` starts as fast as ever. One per process, in main().
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  bool active() const { return active_; }

  /// Leaves the process with `code` at once, without MPI_Finalize: for an error that perhaps
  /// only this rank saw, so that no rank waits for the others in MPI_Finalize; mpirun then ends
  /// the other ranks. Flushes stdout and stderr first.
  [[noreturn]] static void exit_now(int code);
  /// Ends every rank of the job with `code` (MPI_Abort), for an error that only this rank saw:
  /// the others may be waiting for it in a collective. Flushes stdout and stderr first.
  [[noreturn]] static void abort_job(int code);

 private:
  bool active_ = false;
};

/// The host's wrapper around an oracle that declares Capability::Sharded: each of evaluate(), exact() and
/// hessian_action() runs on the rank's rows, then its outputs are summed over the ranks
/// (Ranks::sum, one reduction of n + n d doubles). An exception on any rank becomes the same
/// exception on every rank (Ranks::agree), so no rank waits for another that failed.
std::unique_ptr<Oracle> wrap_sharded_oracle(std::unique_ptr<Oracle> inner, const Ranks& ranks);

}  // namespace scfw
