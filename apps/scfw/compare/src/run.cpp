// scfw compare: the run stage — every (method, seed, K) on a pool of worker threads (compare.hpp).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "internal.hpp"
#include "scfw/compare/compare.hpp"
#include "scfw/core/distributed.hpp"
#include "scfw/core/output_file.hpp"
#include "scfw/core/report.hpp"
#include "scfw/core/solution.hpp"
#include "scfw/core/stopping.hpp"
#include "scfw/core/summary_json.hpp"
#include "scfw/error.hpp"

#ifndef SCFW_VERSION
#define SCFW_VERSION "0"
#endif

namespace fs = std::filesystem;

namespace scfw {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// One worker's problem, composed for its first run and kept for the others. One per worker
/// rather than one for all: the oracle and outer plugins are const and keep no state, but the
/// host's wrappers around them count calls and time in plain (non-atomic) counters, and every
/// run replaces the domain; sharing would need both made thread-safe for a saving of one data
/// load per extra worker.
class WorkerProblem {
 public:
  WorkerProblem(const Registry& registry, const Experiment& e) : registry_(registry), e_(e) {}

  /// The problem for the next run. The oracle and outer function are reused as they are (they
  /// keep no state between calls). The domain is built anew from its block for every run but
  /// the first: nuclear_ball keeps the previous LMO call's Lanczos vector as its next start and
  /// polytope keeps Clp's basis, and either would let a run's iterates depend on the runs this
  /// worker did before it — on --jobs. A domain reads little or nothing, so renewing it costs
  /// next to nothing next to the oracle's data. Returns true when the problem was composed now.
  bool prepare() {
    if (!problem_) {
      problem_.emplace(compose_experiment_problem(registry_, e_));
      data_ = compare_detail::data_fingerprints(problem_->data_files);
      return true;
    }
    problem_->renew_domain();
    return false;
  }
  Problem& get() { return *problem_; }
  /// The fingerprints of the data files it read, taken when it was composed.
  const nlohmann::json& data() const { return data_; }

 private:
  const Registry& registry_;
  const Experiment& e_;
  std::optional<Problem> problem_;
  nlohmann::json data_;
};

/// What a rank sends rank 0 for one finished run under MPI (run_all): the run's fields, its
/// trace CSV and its summary JSON, packed as bytes (doubles bit for bit).
struct Packer {
  std::string bytes;
  template <class T>
  void put(const T& v) {
    bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put(const std::string& v) {
    put(static_cast<std::uint64_t>(v.size()));
    bytes += v;
  }
};

struct Unpacker {
  const std::string& bytes;
  size_t at = 0;
  template <class T>
  void get(T& v) {
    if (at + sizeof v > bytes.size()) throw Error("compare: a rank's results are truncated");
    std::copy(bytes.data() + at, bytes.data() + at + sizeof v, reinterpret_cast<char*>(&v));
    at += sizeof v;
  }
  void get(std::string& v) {
    std::uint64_t n = 0;
    get(n);
    if (at + n > bytes.size()) throw Error("compare: a rank's results are truncated");
    v.assign(bytes.data() + at, n);
    at += n;
  }
};

/// The fields of a run after its index and ok flag, in the order they travel: `field` is a
/// Packer's put or an Unpacker's get. (`Run` is CompareRun, const when packing.)
template <class Run, class Field>
void run_fields(Run& r, Field&& field) {
  field(r.error);
  field(r.final_gap), field(r.best_gap), field(r.final_objective), field(r.seconds);
  field(r.iterations);
  field(r.times.oracle), field(r.times.tracker), field(r.times.glmo), field(r.times.update), field(r.times.gap);
  field(r.compose_seconds);
}

void pack_run(Packer& p, size_t index, const CompareRun& r, const std::string& trace, const std::string& summary,
              const std::string& solution) {
  p.put(static_cast<std::uint64_t>(index));
  p.put(static_cast<std::uint8_t>(r.ok));
  run_fields(r, [&p](const auto& v) { p.put(v); });
  for (const std::string* text : {&trace, &summary, &solution}) p.put(*text);
}

/// Unpacks one run into result.runs[index]; returns its trace, summary and solution texts (the
/// solution's empty when none was kept).
size_t unpack_run(Unpacker& u, std::vector<CompareRun>& runs, std::string& trace, std::string& summary,
                  std::string& solution) {
  std::uint64_t index = 0;
  u.get(index);
  if (index >= runs.size()) throw Error("compare: a rank sent an unknown run");
  CompareRun& r = runs[index];
  std::uint8_t ok = 0;
  u.get(ok);
  r.ok = ok != 0;
  run_fields(r, [&u](auto& v) { u.get(v); });
  for (std::string* text : {&trace, &summary, &solution}) u.get(*text);
  return index;
}

}  // namespace

void run_all(const Registry& registry, const Experiment& e, const fs::path& out, const CompareOptions& options,
             CompareResult& result) {
  using compare_detail::safe_name;
  result.runs.clear();
  for (size_t m = 0; m < e.methods.size(); ++m)
    for (long K : e.budgets)
      for (std::uint64_t s : e.seeds) {
        CompareRun r;
        r.method = m, r.K = K, r.seed = s;
        r.trace = "traces/" + safe_name(e.methods[m].label) + "-K" + std::to_string(K) + "-seed" + std::to_string(s) + ".csv";
        result.runs.push_back(std::move(r));
      }
  // Longest runs first so that the workers finish together; results stay in (method, K, seed) order.
  std::vector<size_t> order(result.runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return result.runs[a].K > result.runs[b].K; });
  // Under mpirun (docs/scaling.md) rank r takes the runs at positions r, r + P, r + 2P, ... of that
  // order, each run still single-threaded with its own seed, so every number but the timings is
  // what one process computes. The traces and summaries go to rank 0, which writes every file.
  const Ranks& mpi = ranks();
  const size_t P = static_cast<size_t>(mpi.size()), me = static_cast<size_t>(mpi.rank());
  const size_t total = order.size();
  std::vector<std::string> trace_text(P > 1 ? result.runs.size() : 0), summary_text(P > 1 ? result.runs.size() : 0),
      solution_text(P > 1 ? result.runs.size() : 0);
  auto solution_file = [&](const CompareRun& r) {
    return out / "solutions" / fs::path(r.trace).filename();
  };
  std::vector<char> finished(result.runs.size(), 0);
  size_t done = 0;  // runs finished by this process (under MPI, at the end: by every rank), resumed ones apart
  // Every summary records the run's document and the libraries' hash; --resume keeps the runs
  // whose summaries match (rank 0 decides, and every rank leaves those runs out of its share).
  const std::string hash = compare_detail::libraries_hash(registry);
  auto summary_path = [&](const CompareRun& r) {
    return out / "summaries" / fs::path(r.trace).filename().replace_extension(".json");
  };
  if (options.resume) {
    std::string kept(result.runs.size(), '0');
    // The data the runs would read now: the problem composed once, and only when a summary
    // matches in everything else. A problem that cannot be composed keeps nothing (its runs then
    // fail as they would without --resume).
    std::optional<nlohmann::json> data_now;
    auto data = [&]() -> const nlohmann::json& {
      if (!data_now) {
        try {
          data_now = compare_detail::data_fingerprints(compose_experiment_problem(registry, e).data_files);
        } catch (const std::exception&) {
          data_now = nlohmann::json();  // null: equal to no summary's array
        }
      }
      return *data_now;
    };
    if (mpi.root())
      for (size_t i = 0; i < result.runs.size(); ++i) {
        CompareRun& r = result.runs[i];
        if (compare_detail::read_finished_run(summary_path(r), out / r.trace, run_document(registry, e, r.method, r.K, r.seed),
                                              hash, data, r))
          kept[i] = '1';
      }
    kept = mpi.broadcast(kept);
    std::vector<size_t> rest;
    for (size_t i : order)
      if (kept[i] == '1') ++result.resumed;  // not `finished`: no rank sends it to rank 0
      else rest.push_back(i);
    order = std::move(rest);
  }
  if (P > 1) {
    std::vector<size_t> mine;
    for (size_t i = me; i < order.size(); i += P) mine.push_back(order[i]);
    order = std::move(mine);
  }

  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(1, order.size())));
  std::atomic<size_t> next{0};
  std::atomic<bool> abort{false};
  std::mutex mu;
  std::exception_ptr input_error;

  auto worker = [&] {
    WorkerProblem shared(registry, e);
    for (;;) {
      if (abort.load()) return;
      if (options.stop_requested && options.stop_requested()) {
        std::lock_guard<std::mutex> lock(mu);
        result.interrupted = true;
        return;
      }
      const size_t slot = next.fetch_add(1);
      if (slot >= order.size()) return;
      CompareRun& r = result.runs[order[slot]];
      try {
        const auto t0 = Clock::now();
        std::optional<Composition> fresh;
        std::optional<Method> method;
        Problem* problem = nullptr;
        nlohmann::json data;
        SolverOptions so;
        bool composed_problem = true;
        if (options.fresh_problem) {
          fresh.emplace(compose_fresh(registry, e, r.method, r.K, r.seed));
          problem = &fresh->problem;
          so = fresh->options;
          data = compare_detail::data_fingerprints(problem->data_files);
        } else {
          composed_problem = shared.prepare();
          problem = &shared.get();
          data = shared.data();
          method.emplace(compose_experiment_method(registry, e, *problem, r.method, r.K));
          so = run_options(e, r.K, r.seed);
        }
        so.factors = options.solutions;  // y as factors only for a solution file (the iterates do not change)
        r.compose_seconds = seconds_since(t0);
        if (composed_problem) {
          std::lock_guard<std::mutex> lock(mu);
          ++result.problems_composed;
        }
        Solver solver(*problem, fresh ? fresh->method : *method, so);
        std::unique_ptr<std::ostringstream> text;  // with several ranks, rank 0 writes it (below)
        std::unique_ptr<OutputFile> file;
        if (P > 1) text = std::make_unique<std::ostringstream>();
        else file = open_trace_file(out / r.trace);
        TraceCsv trace(P > 1 ? static_cast<std::ostream&>(*text) : *file, (out / r.trace).string());
        solver.add_callback(trace);
        std::optional<StopRequest> stop;
        if (options.stop_requested) {
          stop.emplace(options.stop_requested);
          solver.add_callback(*stop);
        }
        const Summary s = solver.run();
        // The run's JSON summary (docs/outputs.md): summaries/<run>.json beside traces/<run>.csv.
        const fs::path summary_file = summary_path(r);
        nlohmann::json summary_json =
            to_json(s, describe_run(registry, *problem, fresh ? fresh->method : *method, so, SCFW_VERSION));
        summary_json["experiment_run"] = run_document(registry, e, r.method, r.K, r.seed);
        summary_json["libraries_hash"] = hash;
        summary_json["data_files"] = std::move(data);
        std::optional<Solution> solution;
        if (options.solutions) solution.emplace(make_solution(*problem, s));
        if (P > 1) {
          trace_text[order[slot]] = text->str();
          summary_text[order[slot]] = summary_json.dump();
          if (solution) {
            std::ostringstream csv;
            write_solution_csv(csv, *solution);
            solution_text[order[slot]] = csv.str();
          }
        } else {
          file->close();
          if (file->fail()) throw Error((out / r.trace).string() + ": cannot write the trace file" + file->reason());
          write_json_file(summary_file, summary_json);
          if (solution) write_solution(solution_file(r), *solution);
        }
        r.ok = s.status == Status::IterationLimit && s.has_gap;
        if (!r.ok) r.error = s.message.empty() ? std::string(to_string(s.status)) : s.message;
        r.final_gap = s.final_gap, r.best_gap = s.best_gap, r.final_objective = s.final_objective;
        r.seconds = s.seconds, r.iterations = s.iterations, r.times = s.times;
      } catch (const InputError&) {
        std::lock_guard<std::mutex> lock(mu);
        if (!input_error) input_error = std::current_exception();
        abort = true;
        return;
      } catch (const std::exception& err) {
        r.ok = false;
        r.error = err.what();
      }
      std::lock_guard<std::mutex> lock(mu);
      ++done;
      finished[order[slot]] = 1;
      if (!r.ok) ++result.failed;
      result.compose_seconds += r.compose_seconds;
      if (options.on_progress) options.on_progress(done, order.size());
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (P > 1) {
    mpi.agree(input_error);  // a bad problem on any rank: the same InputError on every rank
    Packer mine;
    mine.put(static_cast<std::uint64_t>(result.problems_composed));
    for (size_t i = 0; i < result.runs.size(); ++i)
      if (finished[i]) pack_run(mine, i, result.runs[i], trace_text[i], summary_text[i], solution_text[i]);
    const std::vector<std::string> all = mpi.gather_to_root(mine.bytes);
    if (!mpi.root()) return;  // rank 0 summarizes and writes
    result.failed = 0, result.compose_seconds = 0, result.problems_composed = 0, done = 0;
    std::string trace, summary, solution;
    for (const std::string& bytes : all) {
      Unpacker u{bytes};
      std::uint64_t composed = 0;
      u.get(composed);
      result.problems_composed += composed;
      while (u.at < bytes.size()) {
        const size_t i = unpack_run(u, result.runs, trace, summary, solution);
        const CompareRun& r = result.runs[i];
        auto file = open_trace_file(out / r.trace);
        *file << trace;
        file->close();
        if (file->fail()) throw Error((out / r.trace).string() + ": cannot write the trace file" + file->reason());
        write_json_file(summary_path(r), parse_json_text(summary, "the summary of run " + r.trace));
        if (!solution.empty())
          write_output_file(solution_file(r), "solution file", [&](std::ostream& o) { o << solution; });
        ++done;
        if (!r.ok) ++result.failed;
        result.compose_seconds += r.compose_seconds;
      }
    }
  }
  if (input_error) std::rethrow_exception(input_error);
  if (done + result.resumed < total) result.interrupted = true;
}

}  // namespace scfw
