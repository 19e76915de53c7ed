// scfw SDK: the share of the data a process holds when the host runs over several processes
// (`mpirun -np N scfw run FILE`, docs/scaling.md). Optional: an oracle that ignores it is run
// whole on every rank, as without MPI.
//
// The host passes a Shard in Context::shard (null in a one-process run). An oracle that reads
// only its share of the rows (its rank's byte range of the file) and returns from evaluate(),
// exact() and hessian_action() the sums over the rows it owns declares Capability::Sharded; the
// host then adds the partial outputs over the ranks in rank order, so that every rank sees the
// same f~ and J~. draw() must give the same sample on every rank: it draws by global row index
// from the run's engine, which every rank holds with the same seed.
//
// The SDK knows nothing of MPI: the host implements this interface (core/src/distributed.cpp).
#pragma once

#include <cstdint>
#include <exception>
#include <span>
#include <vector>

namespace scfw {

class Shard {
 public:
  virtual ~Shard();
  virtual int rank() const = 0;  ///< 0 .. size() - 1
  virtual int size() const = 0;  ///< the number of ranks sharing the data

  /// Collective (every rank calls it, in the same order): every rank's values, in rank order.
  virtual std::vector<std::vector<std::int64_t>> all_gather(std::span<const std::int64_t> mine) const = 0;
  /// Collective: each rank passes the exception it caught (null: none). When any rank passed one,
  /// every rank throws the lowest such rank's error (an InputError stays an InputError, with its
  /// one-line message), so that a bad line in one rank's share fails every rank the same way.
  virtual void agree(std::exception_ptr error) const = 0;
};

}  // namespace scfw
