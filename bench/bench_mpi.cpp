// scfw over MPI ranks (docs/scaling.md): what one iteration of a sharded least_squares_tasks
// oracle costs per rank count, split into the rank's own work and the reduction.
//
//   mpirun -np P build/bin/bench_mpi FILE [--tasks M] [--features D] [--batch B] [--repeats R]
//   build/bin/bench_mpi --generate OUT --rows N [--features D] [--nnz Z] [--seed S]
//
// The first form builds the oracle on FILE (LIBSVM, split into M label-stratified tasks) with each
// rank holding its byte range of the file, and times, median over R repeats:
//   exact    Oracle::exact(x, f, J) over the rank's rows (the gap report's pass over all rows),
//   batch    Oracle::evaluate of one sample of B rows per task (f and J),
//   reduce   the host's rank-order sum of the n + n d outputs (Ranks::sum), alone, and of
//            1 to 10^6 doubles (over more than one rank),
//   stop     the per-iteration agreement of `scfw run` on a stop signal (Ranks::max of one int),
// with x a fixed point of the l1 ball; the compute figures are the slowest rank's. It also prints
// the seconds to read the rank's share and each rank's peak resident memory (VmHWM).
// The second form writes a synthetic LIBSVM file (labels +-1, Z distinct features per row out of
// D, values 1, like a9a's binary features) for a data set larger than a9a.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "scfw/core/distributed.hpp"
#include "scfw/core/registry.hpp"
#include "scfw/error.hpp"
#include "scfw/registrar.hpp"

using namespace scfw;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// The largest of every rank's value (a rank-order sum of one-hot slots).
double slowest(double mine) {
  const Ranks& r = ranks();
  std::vector<double> all(static_cast<size_t>(r.size()), 0.0);
  all[static_cast<size_t>(r.rank())] = mine;
  r.sum(all.data(), all.size());
  return *std::max_element(all.begin(), all.end());
}

long peak_kib() {
  std::ifstream in("/proc/self/status");
  std::string key;
  long v = 0;
  while (in >> key) {
    if (key == "VmHWM:") {
      in >> v;
      return v;
    }
    in.ignore(1 << 20, '\n');
  }
  return -1;
}

int generate(const std::string& out, long rows, int features, int nnz, unsigned long seed) {
  std::mt19937_64 g(seed);
  std::ofstream f(out);
  std::vector<int> idx(static_cast<size_t>(features));
  for (long r = 0; r < rows; ++r) {
    for (int j = 0; j < features; ++j) idx[static_cast<size_t>(j)] = j + 1;
    for (int k = 0; k < nnz; ++k) std::swap(idx[static_cast<size_t>(k)], idx[static_cast<size_t>(k) + g() % (features - k)]);
    std::sort(idx.begin(), idx.begin() + nnz);
    f << ((g() & 3) == 0 ? "+1" : "-1");  // a9a's class balance, about 1 in 4 positive
    for (int k = 0; k < nnz; ++k) f << ' ' << idx[static_cast<size_t>(k)] << ":1";
    f << '\n';
  }
  f.close();
  if (!f) {
    std::fprintf(stderr, "error: %s: cannot write\n", out.c_str());
    return 1;
  }
  std::printf("bench_mpi: wrote %s: %ld rows, %d of %d features per row\n", out.c_str(), rows, nnz, features);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MpiSession session(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_mpi FILE [--tasks M] [--features D] [--batch B] [--repeats R]\n"
                         "       bench_mpi --generate OUT --rows N [--features D] [--nnz Z] [--seed S]\n");
    return 2;
  }
  std::string file = argv[1], generate_to;
  int tasks = 10, features = 123, batch = 1000, repeats = 20, nnz = 14;
  long rows = 0;
  unsigned long seed = 1;
  int first = 2;
  if (file == "--generate" && argc >= 3) generate_to = argv[2], first = 3;
  for (int i = first; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--tasks") tasks = std::atoi(argv[i + 1]);
    else if (a == "--features") features = std::atoi(argv[i + 1]);
    else if (a == "--batch") batch = std::atoi(argv[i + 1]);
    else if (a == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (a == "--rows") rows = std::atol(argv[i + 1]);
    else if (a == "--nnz") nnz = std::atoi(argv[i + 1]);
    else if (a == "--seed") seed = std::strtoul(argv[i + 1], nullptr, 10);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (!generate_to.empty()) return generate(generate_to, rows, features, std::min(nnz, features), seed);

  const Ranks& world = ranks();
  const bool root = world.root();
  try {
    Registry registry;
    registry.load_path(Registry::search_path());
    Context ctx;
    ctx.shard = world.size() > 1 ? &world : nullptr;
    auto block = [&](int b) {
      return nlohmann::json{{"plugin", "least_squares_tasks"}, {"file", file}, {"tasks", tasks},
                            {"features", features}, {"batch", b}};
    };
    auto t0 = Clock::now();
    const auto exact = registry.make<Oracle>("least_squares_tasks", block(0), ctx, "bench_mpi", "/oracle");
    const double read_s = slowest(since(t0));
    const auto sampled = registry.make<Oracle>("least_squares_tasks", block(batch), ctx, "bench_mpi", "/oracle");
    const int n = exact->outputs(), d = exact->dim();
    Vec x = Vec::Zero(d), f(n);
    for (int j = 0; j < d; ++j) x[j] = (j % 3 == 0 ? 1.0 : -0.5) / d;  // inside the l1 ball of radius 1
    scfw::Jacobian J(n, d);
    Rng rng(1);
    auto sample = sampled->make_sample();
    std::vector<double> buffer(static_cast<size_t>(n) * (d + 1), 0.0);
    std::vector<double> t_exact, t_batch, t_reduce;
    for (int r = 0; r < repeats; ++r) {
      world.sum(buffer.data(), 1);  // line the ranks up
      t0 = Clock::now();
      exact->exact(x, &f, &J);
      t_exact.push_back(since(t0));
      sampled->draw(rng, *sample);
      world.sum(buffer.data(), 1);
      t0 = Clock::now();
      sampled->evaluate(*sample, x, &f, &J);
      t_batch.push_back(since(t0));
      world.sum(buffer.data(), 1);
      t0 = Clock::now();
      world.sum(buffer.data(), buffer.size());
      t_reduce.push_back(since(t0));
    }
    const double e = slowest(median(t_exact)), b = slowest(median(t_batch)), red = slowest(median(t_reduce));
    const double peak = slowest(static_cast<double>(peak_kib()));
    if (root) {
      std::printf("bench_mpi: %s, %d tasks, d = %d, %d rank%s, median of %d\n", file.c_str(), n, d, world.size(),
                  world.size() == 1 ? "" : "s", repeats);
      std::printf("  read the share      %9.3f ms (slowest rank)\n", 1e3 * read_s);
      std::printf("  exact pass          %9.3f ms compute (slowest rank)\n", 1e3 * e);
      std::printf("  batch %5d / task  %9.3f ms compute (slowest rank)\n", batch, 1e3 * b);
      std::printf("  reduce n(d+1) = %d doubles %9.1f us\n", n * (d + 1), 1e6 * red);
      std::printf("  peak resident       %9.1f MiB (largest rank)\n", peak / 1024.0);
    }
    // The reduction alone at several lengths: its latency (1 double) and its cost per double.
    if (world.size() > 1) {
      for (size_t len : {size_t{1}, size_t{1000}, size_t{10000}, size_t{100000}, size_t{1000000}}) {
        std::vector<double> v(len, 1.0), t;
        for (int r = 0; r < repeats; ++r) {
          world.sum(buffer.data(), 1);
          t0 = Clock::now();
          world.sum(v.data(), v.size());
          t.push_back(since(t0));
        }
        const double m = slowest(median(t));
        if (root) std::printf("  reduce %8zu doubles %11.1f us\n", len, 1e6 * m);
      }
      std::vector<double> t;
      for (int r = 0; r < repeats; ++r) {
        world.sum(buffer.data(), 1);
        t0 = Clock::now();
        if (world.max(0) != 0) throw std::runtime_error("the stop agreement saw a signal");
        t.push_back(since(t0));
      }
      const double stop = slowest(median(t));  // a collective: every rank
      if (root) std::printf("  stop agreement (max of 1 int) %7.1f us\n", 1e6 * stop);
    }
  } catch (const std::exception& err) {
    if (root) std::fprintf(stderr, "error: %s\n", err.what());
    if (world.size() > 1) MpiSession::exit_now(1);
    return 1;
  }
  return 0;
}
