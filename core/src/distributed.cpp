// scfw core: ranks, collectives and the sharded oracle's reduction (distributed.hpp). The only
// file of scfw that includes MPI; without SCFW_WITH_MPI every collective is the one-rank identity.
#include "scfw/core/distributed.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "scfw/error.hpp"

#ifdef SCFW_WITH_MPI
#include <mpi.h>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#endif

namespace scfw {

namespace {

#ifdef SCFW_WITH_MPI
std::unique_ptr<boost::mpi::environment> g_env;
boost::mpi::communicator* g_world = nullptr;

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

/// inout[i] = in[i] + inout[i], `in` holding the lower ranks' partial sum (MPI's rule for a
/// non-commutative operation), so that the operands meet in rank order.
extern "C" void rank_order_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  const double* a = static_cast<const double*>(in);
  double* b = static_cast<double*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = a[i] + b[i];
}
MPI_Op g_sum_op = MPI_OP_NULL;

/// An exception as one string, for the other ranks: its kind (I: InputError, E: anything else)
/// and its message.
std::string encode(std::exception_ptr e) {
  if (!e) return {};
  try {
    std::rethrow_exception(e);
  } catch (const InputError& err) {
    return std::string("I") + err.what();
  } catch (const std::exception& err) {
    return std::string("E") + err.what();
  } catch (...) {
    return "Ean exception that is not a std::exception";
  }
}
#endif

std::atomic<bool> g_agreed{false};

}  // namespace

bool error_agreed() { return g_agreed.load(); }

int Ranks::rank() const {
#ifdef SCFW_WITH_MPI
  if (g_world) return g_world->rank();
#endif
  return 0;
}

int Ranks::size() const {
#ifdef SCFW_WITH_MPI
  if (g_world) return g_world->size();
#endif
  return 1;
}

std::vector<std::vector<std::int64_t>> Ranks::all_gather(std::span<const std::int64_t> mine) const {
  std::vector<std::int64_t> v(mine.begin(), mine.end());
#ifdef SCFW_WITH_MPI
  if (g_world && g_world->size() > 1) {
    std::vector<std::vector<std::int64_t>> all;
    boost::mpi::all_gather(*g_world, v, all);
    return all;
  }
#endif
  return {std::move(v)};
}

void Ranks::agree(std::exception_ptr error) const {
#ifdef SCFW_WITH_MPI
  if (g_world && g_world->size() > 1) {
    std::vector<std::string> all;
    boost::mpi::all_gather(*g_world, encode(error), all);
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (all[r].empty()) continue;
      g_agreed.store(true);
      if (static_cast<int>(r) == rank()) std::rethrow_exception(error);  // this rank's own, exactly
      if (all[r][0] == 'I') throw InputError(all[r].substr(1));
      throw Error(all[r].substr(1));
    }
    return;
  }
#endif
  if (error) std::rethrow_exception(error);
}

std::vector<std::string> Ranks::gather_to_root(const std::string& mine) const {
#ifdef SCFW_WITH_MPI
  if (g_world && g_world->size() > 1) {
    std::vector<std::string> all;
    boost::mpi::gather(*g_world, mine, all, 0);
    return all;
  }
#endif
  return {mine};
}

std::string Ranks::broadcast(const std::string& from_root) const {
  std::string s = from_root;
#ifdef SCFW_WITH_MPI
  if (g_world && g_world->size() > 1) boost::mpi::broadcast(*g_world, s, 0);
#endif
  return s;
}

void Ranks::sum(double* values, std::size_t n) const {
#ifdef SCFW_WITH_MPI
  if (g_world && g_world->size() > 1 && n > 0) {
    const MPI_Comm comm = *g_world;
    const int count = static_cast<int>(n);
    if (rank() == 0) MPI_Reduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, g_sum_op, 0, comm);
    else MPI_Reduce(values, nullptr, count, MPI_DOUBLE, g_sum_op, 0, comm);
    MPI_Bcast(values, count, MPI_DOUBLE, 0, comm);
  }
#else
  (void)values;
  (void)n;
#endif
}

int Ranks::max(int mine) const {
#ifdef SCFW_WITH_MPI
  if (g_world && g_world->size() > 1) {
    int out = 0;
    MPI_Allreduce(&mine, &out, 1, MPI_INT, MPI_MAX, *g_world);
    return out;
  }
#endif
  return mine;
}

const Ranks& ranks() {
  static const Ranks world;
  return world;
}

bool built_with_mpi() {
#ifdef SCFW_WITH_MPI
  return true;
#else
  return false;
#endif
}

MpiSession::MpiSession(int& argc, char**& argv) {
#ifdef SCFW_WITH_MPI
  if (!launched_by_mpirun() || g_env) return;
  g_env = std::make_unique<boost::mpi::environment>(argc, argv, /*abort_on_exception=*/false);
  static boost::mpi::communicator world;
  g_world = &world;
  MPI_Op_create(&rank_order_sum, /*commute=*/0, &g_sum_op);
  active_ = true;
#else
  (void)argc;
  (void)argv;
#endif
}

MpiSession::~MpiSession() {
#ifdef SCFW_WITH_MPI
  if (!active_) return;
  MPI_Op_free(&g_sum_op);
  g_world = nullptr;
  g_env.reset();  // MPI_Finalize
#endif
}

void MpiSession::abort_job(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
#ifdef SCFW_WITH_MPI
  if (g_world) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::_Exit(code);
}

void MpiSession::exit_now(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

// ---------------------------------------------------------------------------------------------
// The sharded oracle: partial outputs, one reduction per call.

namespace {

class ShardedOracle final : public Oracle {
 public:
  ShardedOracle(std::unique_ptr<Oracle> inner, const Ranks& ranks)
      : inner_(std::move(inner)), ranks_(ranks), n_(inner_->outputs()), d_(inner_->dim()) {
    // The sum over ranks is a flat sum of J's stored values, which needs one pattern on every
    // rank; a shard's pattern is that of its own rows. Refused rather than densified.
    if (inner_->capabilities().has(Capability::SparseJacobian))
      throw InputError("a sparse Jacobian cannot be summed over MPI ranks (each rank's rows have their own "
                       "pattern): use the oracle's dense Jacobian (\"jacobian\": \"dense\") or run on one rank");
    // One buffer for the largest reduction (f, J and the failure flag), so that the iteration
    // loop allocates nothing.
    buffer_.resize(static_cast<std::size_t>(n_) + static_cast<std::size_t>(n_) * static_cast<std::size_t>(d_) + 1);
  }

  int dim() const override { return d_; }
  int outputs() const override { return n_; }
  std::unique_ptr<Sample> make_sample() const override { return inner_->make_sample(); }
  void draw(Rng& rng, Sample& s) const override { inner_->draw(rng, s); }
  // J is dense: a sparse oracle was refused above.
  void evaluate(const Sample& s, const Vec& x, Vec* f, Jacobian* J) const override {
    std::exception_ptr error;
    try {
      inner_->evaluate(s, x, f, J);
    } catch (...) {
      error = std::current_exception();
    }
    reduce(f, J ? &J->dense() : nullptr, error);
  }
  void exact(const Vec& x, Vec* f, Jacobian* J) const override {
    std::exception_ptr error;
    try {
      inner_->exact(x, f, J);
    } catch (...) {
      error = std::current_exception();
    }
    reduce(f, J ? &J->dense() : nullptr, error);
  }
  void hessian_action(const Sample& s, const Vec& x, const Vec& v, Mat& out) const override {
    std::exception_ptr error;
    try {
      inner_->hessian_action(s, x, v, out);
    } catch (...) {
      error = std::current_exception();
    }
    reduce(nullptr, &out, error);
  }
  Capabilities capabilities() const override { return inner_->capabilities() | Capability::Sharded; }
  std::vector<std::string> variable_names() const override { return inner_->variable_names(); }
  std::vector<std::string> output_names() const override { return inner_->output_names(); }
  std::vector<AuxiliaryVariable> auxiliary_variables() const override { return inner_->auxiliary_variables(); }
  std::vector<int> shape() const override { return inner_->shape(); }
  std::shared_ptr<const MatrixEntries> matrix_entries() const override { return inner_->matrix_entries(); }

 private:
  /// Sums f and J over the ranks with a failure flag beside them; when any rank failed, every
  /// rank throws that rank's error instead.
  void reduce(Vec* f, Mat* J, const std::exception_ptr& error) const {
    const bool fits = (!f || f->size() == n_) && (!J || (J->rows() == n_ && J->cols() == d_));
    std::size_t len = 0;
    if (!error && fits) {
      if (f) std::copy(f->data(), f->data() + n_, buffer_.data());
      if (f) len += static_cast<std::size_t>(n_);
      if (J) std::copy(J->data(), J->data() + J->size(), buffer_.data() + len);
      if (J) len += static_cast<std::size_t>(J->size());
    } else {
      len = (f ? static_cast<std::size_t>(n_) : 0) + (J ? static_cast<std::size_t>(n_) * d_ : 0);
      std::fill(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(len), 0.0);
    }
    buffer_[len] = error || !fits ? 1.0 : 0.0;
    ranks_.sum(buffer_.data(), len + 1);
    if (buffer_[len] != 0.0) {
      std::exception_ptr mine = error;
      if (!mine && !fits)
        mine = std::make_exception_ptr(Error("the outputs passed to the sharded oracle have the wrong size"));
      ranks_.agree(mine);
      return;  // (not reached: agree throws on every rank)
    }
    std::size_t at = 0;
    if (f) std::copy(buffer_.data(), buffer_.data() + n_, f->data()), at += static_cast<std::size_t>(n_);
    if (J) std::copy(buffer_.data() + at, buffer_.data() + at + J->size(), J->data());
  }

  std::unique_ptr<Oracle> inner_;
  const Ranks& ranks_;
  int n_, d_;
  mutable std::vector<double> buffer_;
};

}  // namespace

std::unique_ptr<Oracle> wrap_sharded_oracle(std::unique_ptr<Oracle> inner, const Ranks& ranks) {
  return std::make_unique<ShardedOracle>(std::move(inner), ranks);
}

}  // namespace scfw
