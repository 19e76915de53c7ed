// Oracle `portfolio_returns`: the inner map of the paper's Task 2 (CVaR portfolio, Section 6).
//
// x = (w, y0) in R^{A+1}: w the weights of A assets, y0 the CVaR threshold (read by the outer
// function `cvar_ru`; f does not depend on it). With "threshold": false, x = w in R^A, for an outer
// function of the weights only (cvar, max, ...). The T days of returns r_1..r_T are split into n
// scenario groups of consecutive days (`groups`; group g holds days [floor(g T / n),
// floor((g+1) T / n))). Then
//
//   f_g(x) = -1/|G_g| sum_{t in G_g} r_t^T w          (the expected loss of group g)
//
// A sample xi draws `batch` days per group uniformly with replacement; f~_g is the mean of -r_t^T w
// over the drawn days and its Jacobian row is -mean r_t (0 in the y0 column): unbiased for f_g and
// its Jacobian. f is linear, so the Hessian action is 0.
//
// Data: `synthetic` (seeded generator below), `file`, a CSV with a header row whose first
// column is the date (the format of sp500_5yr_close_top100.csv), or `array`, the name of a days x
// assets matrix the host passes in memory (host_arrays.hpp); with `prices` = true (default) the
// columns are prices and r_t = p_t / p_{t-1} - 1 (T = rows - 1), otherwise they are returns. A
// matrix of returns is read in place, without a copy (unless its data is not 16-byte aligned:
// Eigen's vectorized sums then group the terms otherwise, and the results would differ in their
// last bits from the same numbers read from a file).
#include <scfw/data_file.hpp>
#include <scfw/helpers.hpp>
#include <scfw/host_arrays.hpp>
#include <scfw/plugin.hpp>

#include <algorithm>
#include <bit>
#include <cctype>
#include <exception>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "scfw/byte_range.hpp"

namespace {

using scfw::Mat;
using scfw::Params;
using scfw::Rng;
using scfw::Vec;
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// ---------------------------------------------------------------------------------------------
// Synthetic returns. With g = Rng(seed), in this order:
//   1. loadings B (A x K, K = `factors`): each N(0, 1) (one std::normal_distribution);
//      drifts mu_a = drift * (0.5 + U(0, 1)) (std::uniform_real_distribution);
//   2. for each day t: K factor draws f_k ~ t_3 * factor_vol / sqrt(3 * K), then A idiosyncratic
//      draws e_a ~ t_3 * idio_vol / sqrt(3) (std::student_t_distribution(3), variance 3);
//      r_t = mu + B f + e.
// So the daily volatility is about sqrt(factor_vol^2 + idio_vol^2) = 1% with the defaults
// (0.006, 0.008), the tails are Student-t with 3 degrees of freedom (finite variance, infinite
// fourth moment) and the assets are correlated through the factors.
// The first (day, asset) at which a return, or the running sum of an asset's returns over the
// days (what the group means add up), is not finite. False when there is none. `start`: the sums
// over the days before R's first (over MPI ranks, those of the ranks before), else zero.
bool first_overflow(const Eigen::Ref<const RowMat>& R, Eigen::Index& t_out, Eigen::Index& a_out, const Vec* start = nullptr) {
  Vec sum = start ? *start : Vec::Zero(R.cols());
  for (Eigen::Index t = 0; t < R.rows(); ++t)
    for (Eigen::Index a = 0; a < R.cols(); ++a) {
      sum[a] += R(t, a);
      if (!std::isfinite(sum[a])) {
        t_out = t;
        a_out = a;
        return true;
      }
    }
  return false;
}

RowMat make_synthetic(const Params& s) {
  // Ranges and defaults as declared in register_components.
  const std::int64_t A = s.get<int>("assets"), T = s.get<int>("days"), K = s.get<int>("factors");
  const double drift = s.get<double>("drift"), fvol = s.get<double>("factor_vol"), ivol = s.get<double>("idio_vol");
  Rng g(s.get<std::uint64_t>("seed"));
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  std::student_t_distribution<double> t3(3.0);
  Eigen::MatrixXd B(A, K);
  for (std::int64_t a = 0; a < A; ++a)
    for (std::int64_t k = 0; k < K; ++k) B(a, k) = normal(g);
  Vec mu(A);
  for (std::int64_t a = 0; a < A; ++a) mu[a] = drift * (0.5 + unif(g));
  RowMat R(T, A);
  Vec f(K), e(A);
  const double fs = K > 0 ? fvol / std::sqrt(3.0 * static_cast<double>(K)) : 0.0, is = ivol / std::sqrt(3.0);
  for (std::int64_t t = 0; t < T; ++t) {
    for (std::int64_t k = 0; k < K; ++k) f[k] = fs * t3(g);
    for (std::int64_t a = 0; a < A; ++a) e[a] = is * t3(g);
    R.row(t) = (mu + B * f + e).transpose();
  }
  // Huge parameters (drift 1e308) overflow: refuse the data instead of running on infinities.
  // The group means sum the returns over days, so the running sums must stay finite too.
  Eigen::Index bad_t = -1, bad_a = -1;
  if (first_overflow(R, bad_t, bad_a))
    s.fail(!std::isfinite(mu[bad_a] * static_cast<double>(T)) ? "drift" : ivol >= fvol ? "idio_vol" : "factor_vol",
           "the returns of asset " + std::to_string(bad_a + 1) + " overflow: their sum over days 1.." +
               std::to_string(bad_t + 1) + " is not finite");
  return R;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

/// One rank's lines of the file (read_share below): the header line, then the rank's own lines,
/// the first of them line `first_line` of the file.
struct Share {
  std::string text;
  long first_line = 2;
  std::vector<long> line_of;  // set by read_file: the line of each data row
};

// The messages of the overflow checks, the same from the one-process and the sharded reader.
scfw::InputError return_overflow(const std::string& path, long line, Eigen::Index a, const std::vector<std::string>& assets,
                                 double p, double p_before) {
  return scfw::InputError(path + ":" + std::to_string(line) + ": column " + std::to_string(a + 2) + " (" +
                          scfw::excerpt(assets[static_cast<size_t>(a)]) + "): the return p_t / p_{t-1} - 1 overflows (" +
                          scfw::format_number(p) + " after " + scfw::format_number(p_before) + ")");
}
scfw::InputError sum_overflow(const std::string& path, long line, Eigen::Index a, const std::vector<std::string>& assets) {
  return scfw::InputError(path + ":" + std::to_string(line) + ": column " + std::to_string(a + 2) + " (" +
                          scfw::excerpt(assets[static_cast<size_t>(a)]) + "): the sum of the returns up to this row overflows");
}

/// With `share`: parses share->text and returns the rank's price (or return) rows as they are.
RowMat read_file(const std::string& path, bool prices, std::vector<std::string>& assets, Share* share = nullptr) {
  std::ifstream file;
  std::istringstream text;
  if (share) {
    text.str(share->text);
  } else {
    scfw::check_data_path(path);
    scfw::open_data_file(file, path);
  }
  std::istream& in = share ? static_cast<std::istream&>(text) : file;
  std::string line;
  if (!std::getline(in, line)) throw scfw::InputError(path + ":1: empty file (expected a header row date,<asset>,...)");
  const std::vector<std::string> header = split_csv(scfw::trim_field(line));
  if (header.size() < 2) throw scfw::InputError(path + ":1: the header has no asset column (expected date,<asset>,...)");
  const size_t A = header.size() - 1;
  // "date", "Date", "timestamp", "trading_day": a header that calls the first column a date.
  const auto names_a_date = [](std::string c) {
    std::transform(c.begin(), c.end(), c.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return c.find("date") != std::string::npos || c.find("time") != std::string::npos ||
           c.find("day") != std::string::npos;
  };
  // A file without its header row would lose its first day and name the assets by numbers.
  const auto is_number = [](const std::string& c) {
    std::size_t used = 0;
    try {
      std::stod(c, &used);
    } catch (const std::out_of_range&) {
      return true;
    } catch (const std::exception&) {
      return false;
    }
    return !c.empty() && used == c.size();
  };
  if (std::all_of(header.begin() + 1, header.end(), [&](const std::string& c) { return is_number(scfw::trim_field(c)); }))
    throw scfw::InputError(path + ":1: expected a header row date,<asset>,..., got a row of numbers (\"" +
                           scfw::excerpt(scfw::trim_field(line)) + "\")");
  assets.clear();
  for (size_t a = 1; a < header.size(); ++a) assets.push_back(scfw::trim_field(header[a]));
  std::vector<double> values;
  std::vector<long> line_of;  // the line of each data row
  long number = share ? share->first_line - 1 : 1;
  while (std::getline(in, line)) {
    ++number;
    const std::string t = scfw::trim_field(line);
    if (t.empty()) continue;
    line_of.push_back(number);
    const std::vector<std::string> cells = split_csv(t);
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (cells.size() != A + 1)
      throw scfw::InputError(where + "expected " + std::to_string(A + 1) + " fields (date and " + std::to_string(A) +
                             " assets), got " + std::to_string(cells.size()));
    // The first column is skipped as the date. Numbers there, under a header that does not call
    // the column a date or a time, are the first asset of a file without a date column: read
    // on, its prices would be dropped without a word.
    if (line_of.size() == 1 && is_number(scfw::trim_field(cells[0])) && !names_a_date(scfw::trim_field(header[0])))
      throw scfw::InputError(where + "column 1 (" + scfw::excerpt(scfw::trim_field(header[0])) +
                             ") holds a number (\"" + scfw::excerpt(scfw::trim_field(cells[0])) +
                             "\") where the date is read, and that asset would be dropped: put a column of dates "
                             "first, or name the column \"date\" if it holds dates");
    for (size_t a = 1; a <= A; ++a) {
      const std::string c = scfw::trim_field(cells[a]);
      double v = 0.0;
      if (!scfw::parse_finite(c, v))
        throw scfw::InputError(where + "column " + std::to_string(a + 1) + " (" + scfw::excerpt(scfw::trim_field(header[a])) + "): not a finite number: \"" + scfw::excerpt(c) + "\"");
      if (prices && !(v > 0.0))
        throw scfw::InputError(where + "column " + std::to_string(a + 1) + " (" + scfw::excerpt(scfw::trim_field(header[a])) + "): a price must be > 0, got \"" + scfw::excerpt(c) + "\"");
      values.push_back(v);
    }
  }
  const std::int64_t rows = static_cast<std::int64_t>(values.size() / A);
  if (share) {
    share->line_of = std::move(line_of);
    return Eigen::Map<const RowMat>(values.data(), rows, static_cast<Eigen::Index>(A));
  }
  if (rows < (prices ? 2 : 1))
    throw scfw::InputError(path + ": " + std::to_string(rows) + " data row(s); need at least " + (prices ? "2 prices" : "1 return"));
  const Eigen::Map<const RowMat> P(values.data(), rows, static_cast<Eigen::Index>(A));
  Eigen::Index bad_t = -1, bad_a = -1;
  if (!prices) {
    if (first_overflow(P, bad_t, bad_a)) throw sum_overflow(path, line_of[static_cast<size_t>(bad_t)], bad_a, assets);
    return P;
  }
  RowMat R(rows - 1, static_cast<Eigen::Index>(A));
  for (std::int64_t t = 1; t < rows; ++t) {
    R.row(t - 1) = P.row(t).cwiseQuotient(P.row(t - 1)).array() - 1.0;
    for (Eigen::Index a = 0; a < R.cols(); ++a)
      if (!std::isfinite(R(t - 1, a)))
        throw return_overflow(path, line_of[static_cast<size_t>(t)], a, assets, P(t, a), P(t - 1, a));
  }
  if (first_overflow(R, bad_t, bad_a)) throw sum_overflow(path, line_of[static_cast<size_t>(bad_t) + 1], bad_a, assets);
  return R;
}

/// The one-process reader's check of the running sums over days (first_overflow), over MPI ranks:
/// the sums run rank after rank, in the order of the file, so that each rank starts from the
/// one-process sums bit for bit, and every rank throws the message of the first overflow of the
/// file (Shard::agree takes the lowest rank's). `R`: this rank's returns; return k is on line
/// line_of[k + shift].
void check_shard_overflow(const std::string& path, const RowMat& R, const std::vector<long>& line_of, Eigen::Index shift,
                          const std::vector<std::string>& assets, const scfw::Shard& shard) {
  const Eigen::Index A = static_cast<Eigen::Index>(assets.size());
  Vec start = Vec::Zero(A);
  for (int r = 1; r < shard.size(); ++r) {  // rank r - 1 hands its sums to rank r
    std::vector<std::int64_t> sums(static_cast<size_t>(A), 0);
    if (shard.rank() == r - 1) {
      Vec sum = start;
      for (Eigen::Index t = 0; t < R.rows(); ++t)
        for (Eigen::Index a = 0; a < A; ++a) sum[a] += R(t, a);
      for (Eigen::Index a = 0; a < A; ++a) sums[static_cast<size_t>(a)] = std::bit_cast<std::int64_t>(sum[a]);
    }
    const auto all = shard.all_gather(sums);
    if (shard.rank() == r)
      for (Eigen::Index a = 0; a < A; ++a) start[a] = std::bit_cast<double>(all[static_cast<size_t>(r - 1)][static_cast<size_t>(a)]);
  }
  std::exception_ptr error;
  Eigen::Index bad_t = -1, bad_a = -1;
  if (first_overflow(R, bad_t, bad_a, &start))
    error = std::make_exception_ptr(sum_overflow(path, line_of[static_cast<size_t>(bad_t + shift)], bad_a, assets));
  shard.agree(error);
}

/// This rank's days of returns over MPI ranks (Context::shard, docs/scaling.md): the rank reads
/// the header and the lines of its byte range; a price row's return needs the row before it, so
/// each rank gets the last price row of the ranks before it. Sets `first_day` to the global index
/// of the rank's first return and `days` to the number of returns over all ranks.
RowMat read_file_shard(const std::string& path, bool prices, std::vector<std::string>& assets,
                       const scfw::Shard& shard, std::int64_t& first_day, std::int64_t& days) {
  Share share;
  std::exception_ptr error;
  std::string header;
  try {
    std::ifstream in;
    scfw::open_data_file(in, path);
    std::getline(in, header);
    share.text = scfw::read_line_share(path, shard.rank(), shard.size());
    if (shard.rank() == 0) {  // its share starts with the header
      const auto eol = share.text.find('\n');
      share.text.erase(0, eol == std::string::npos ? share.text.size() : eol + 1);
    }
  } catch (...) {
    error = std::current_exception();
  }
  shard.agree(error);
  const std::int64_t lines[] = {scfw::count_lines(share.text)};
  const auto counts = shard.all_gather(lines);
  for (int r = 0; r < shard.rank(); ++r) share.first_line += counts[static_cast<std::size_t>(r)][0];
  share.text = header + "\n" + share.text;
  RowMat rows;
  try {
    rows = read_file(path, prices, assets, &share);
  } catch (...) {
    error = std::current_exception();
  }
  shard.agree(error);
  // Row counts and every rank's last row (bit patterns), so a rank can take the row before its first.
  const Eigen::Index A = rows.cols();
  std::vector<std::int64_t> mine{static_cast<std::int64_t>(rows.rows())};
  for (Eigen::Index a = 0; a < A; ++a) mine.push_back(rows.rows() ? std::bit_cast<std::int64_t>(rows(rows.rows() - 1, a)) : 0);
  const auto all = shard.all_gather(mine);
  std::int64_t total = 0, before = 0;
  int previous = -1;  // the last rank before this one with rows
  for (std::size_t r = 0; r < all.size(); ++r) {
    total += all[r][0];
    if (static_cast<int>(r) < shard.rank()) {
      before += all[r][0];
      if (all[r][0] > 0) previous = static_cast<int>(r);
    }
  }
  if (total < (prices ? 2 : 1))
    throw scfw::InputError(path + ": " + std::to_string(total) + " data row(s); need at least " + (prices ? "2 prices" : "1 return"));
  days = prices ? total - 1 : total;
  if (!prices) {
    first_day = before;
    check_shard_overflow(path, rows, share.line_of, 0, assets, shard);
    return rows;
  }
  // Return t (0-based) is p_{t+1} / p_t - 1: this rank owns the returns of its own price rows
  // but the very first one of the file.
  RowMat P(rows.rows() + (previous >= 0 ? 1 : 0), A);
  if (previous >= 0)
    for (Eigen::Index a = 0; a < A; ++a) P(0, a) = std::bit_cast<double>(all[static_cast<std::size_t>(previous)][static_cast<std::size_t>(a) + 1]);
  P.bottomRows(rows.rows()) = rows;
  first_day = previous >= 0 ? before - 1 : 0;
  if (P.rows() < 2) {
    check_shard_overflow(path, RowMat(0, A), share.line_of, 0, assets, shard);
    return RowMat(0, A);
  }
  RowMat R(P.rows() - 1, A);
  for (Eigen::Index t = 1; t < P.rows(); ++t) R.row(t - 1) = P.row(t).cwiseQuotient(P.row(t - 1)).array() - 1.0;
  // Return k is that of price row k + 1 of P, row k + 1 - (P.rows() - rows.rows()) of the share.
  const Eigen::Index shift = 1 - (P.rows() - rows.rows());
  try {
    for (Eigen::Index k = 0; k < R.rows(); ++k)
      for (Eigen::Index a = 0; a < A; ++a)
        if (!std::isfinite(R(k, a)))
          throw return_overflow(path, share.line_of[static_cast<size_t>(k + shift)], a, assets, P(k + 1, a), P(k, a));
  } catch (...) {
    error = std::current_exception();
  }
  shard.agree(error);
  check_shard_overflow(path, R, share.line_of, shift, assets, shard);
  return R;
}

/// The checks of read_file() on a days x assets matrix the host passed (`array`), with the same
/// words, located by the array's name and 0-based (row, column). Returns prices converted to
/// returns in `R` (charged); returns are checked and left where they are (`R` stays empty).
void check_array(const scfw::HostArray& a, bool prices, RowMat& R, const scfw::Memory& memory) {
  const std::string kind = prices ? "prices" : "returns";
  if (!a.is_dense() || a.dense.vector)
    throw scfw::InputError(a.where() + ": expected a days x assets matrix of " + kind + ", got " + a.describe());
  const scfw::DenseView& P = a.dense;
  if (P.cols < 1) throw scfw::InputError(a.where() + ": no asset column (a " + std::to_string(P.rows) + " x 0 matrix)");
  if (P.rows < (prices ? 2 : 1))
    throw scfw::InputError(a.where() + ": " + std::to_string(P.rows) + " row(s); need at least " + (prices ? "2 prices" : "1 return"));
  const auto at = [&](std::int64_t t, std::int64_t j) {
    return a.where() + ": row " + std::to_string(t) + ", column " + std::to_string(j) + ": ";
  };
  const auto sum_overflow_at = [&](const Eigen::Ref<const RowMat>& M, std::int64_t shift) {
    Eigen::Index bad_t = -1, bad_a = -1;
    if (first_overflow(M, bad_t, bad_a))
      throw scfw::InputError(at(bad_t + shift, bad_a) + "the sum of the returns up to this row overflows");
  };
  const Eigen::Map<const RowMat> M(P.data, P.rows, P.cols);
  if (!prices) {
    sum_overflow_at(M, 0);
    return;
  }
  for (std::int64_t t = 0; t < P.rows; ++t)
    for (std::int64_t j = 0; j < P.cols; ++j)
      if (!(P(t, j) > 0.0)) throw scfw::InputError(at(t, j) + "a price must be > 0, got " + scfw::format_number(P(t, j)));
  memory.reserve(scfw::bytes_of({P.rows - 1, P.cols, 8}), "the returns of " + a.where() + " (" +
                                                             std::to_string(P.rows - 1) + " x " + std::to_string(P.cols) + ")");
  R.resize(P.rows - 1, P.cols);
  for (std::int64_t t = 1; t < P.rows; ++t) {
    R.row(t - 1) = M.row(t).cwiseQuotient(M.row(t - 1)).array() - 1.0;
    for (Eigen::Index j = 0; j < R.cols(); ++j)
      if (!std::isfinite(R(t - 1, j)))
        throw scfw::InputError(at(t, j) + "the return p_t / p_{t-1} - 1 overflows (" + scfw::format_number(M(t, j)) +
                               " after " + scfw::format_number(M(t - 1, j)) + ")");
  }
  sum_overflow_at(R, 1);
}

struct DaySample final : scfw::Sample {
  std::vector<std::int64_t> days;
};

class PortfolioReturns final : public scfw::Oracle {
 public:
  PortfolioReturns(const Params& p, const scfw::Context& ctx) {
    const bool synthetic = p.has("synthetic"), file = p.has("file"), array = p.has("array");
    if (synthetic + file + array == 0) p.fail("synthetic", "no data source: give \"synthetic\", \"file\" or \"array\"");
    if (synthetic + file + array > 1)
      p.fail(array ? "array" : "file", "give only one data source of \"synthetic\", \"file\" and \"array\"");
    if (array) {
      const scfw::HostArray& a = scfw::host_array(p, "array", ctx);
      check_array(a, p.get<bool>("prices"), R_, ctx.memory);
      if (R_.size() == 0 && reinterpret_cast<std::uintptr_t>(a.dense.data) % 16 == 0) {
        data_ = a.dense.data;  // the host's returns, read in place
        rows_ = a.dense.rows;
        cols_ = a.dense.cols;
      } else if (R_.size() == 0) {
        ctx.memory.reserve(scfw::bytes_of({a.dense.rows, a.dense.cols, 8}),
                           "an aligned copy of " + a.where() + " (" + a.describe() + ", not 16-byte aligned)");
        R_ = Eigen::Map<const RowMat>(a.dense.data, a.dense.rows, a.dense.cols);
      }
    } else if (synthetic) {
      const Params& s = p.object("synthetic");
      ctx.memory.reserve(scfw::add_bytes(scfw::bytes_of({s.get<int>("days"), s.get<int>("assets"), 8}),
                                         scfw::bytes_of({s.get<int>("assets"), s.get<int>("factors") + 3, 8})),
                         "the synthetic returns (days x assets = " + std::to_string(s.get<int>("days")) + " x " +
                             std::to_string(s.get<int>("assets")) + ")");
      R_ = make_synthetic(s);
    } else {
      const std::filesystem::path path(scfw::locate_data_file(p, "file", ctx.base_dir));
      if (ctx.shard) {
        R_ = read_file_shard(path.string(), p.get<bool>("prices"), assets_, *ctx.shard, first_day_, days_);
        sharded_ = true;
      } else {
        R_ = read_file(path.string(), p.get<bool>("prices"), assets_);
      }
    }
    if (!data_) {
      data_ = R_.data();
      rows_ = R_.rows();
      cols_ = R_.cols();
    }
    const Eigen::Map<const RowMat> R(data_, rows_, cols_);  // the returns, owned or the host's
    if (!sharded_) days_ = R.rows();
    const std::int64_t T = days_;
    const std::int64_t n = p.get<std::int64_t>("groups");
    if (n > T) p.fail("groups", "there are " + std::to_string(n) + " groups but only " + std::to_string(T) + " days of returns");
    batch_ = p.get<int>("batch");
    // Held below and by make_sample(): the group means, the group bounds, one sample.
    ctx.memory.reserve(scfw::add_bytes(scfw::bytes_of({n, R.cols(), 8}), scfw::add_bytes(scfw::bytes_of({n + 1, 8}), scfw::bytes_of({n, batch_, 8}))),
                       "the group means and a sample of batch days per group (groups x batch = " + std::to_string(n) +
                           " x " + std::to_string(batch_) + ")");
    begin_.resize(static_cast<size_t>(n) + 1);
    for (std::int64_t g = 0; g <= n; ++g) begin_[static_cast<size_t>(g)] = g * T / n;
    A_ = static_cast<int>(R.cols());
    threshold_ = p.get<bool>("threshold");
    n_ = static_cast<int>(n);
    means_.resize(n_, A_);
    if (!sharded_) {
      for (int g = 0; g < n_; ++g)
        means_.row(g) = R.middleRows(begin_[g], begin_[g + 1] - begin_[g]).colwise().mean();
    } else {  // this rank's part of each group's mean: the sum of its own days / |G_g|
      const std::int64_t lo = first_day_, hi = first_day_ + R.rows();
      for (int g = 0; g < n_; ++g) {
        const std::int64_t b = std::max(lo, begin_[g]), e = std::min(hi, begin_[g + 1]);
        means_.row(g).setZero();
        if (b < e)
          means_.row(g) = R.middleRows(b - lo, e - b).colwise().sum() / static_cast<double>(begin_[g + 1] - begin_[g]);
      }
    }
  }

  /// Exact f and J and the Hessian action; over MPI ranks (file data) the outputs are sums over
  /// this rank's days (shard.hpp).
  scfw::Capabilities capabilities() const override {
    scfw::Capabilities c = scfw::Capability::Exact | scfw::Capability::HessianAction;
    if (sharded_) c |= scfw::Capability::Sharded;
    return c;
  }

  int dim() const override { return A_ + (threshold_ ? 1 : 0); }
  int outputs() const override { return n_; }
  /// The assets as named in the file's header (synthetic data: "asset 1", ...), then y0, the
  /// value-at-risk level of cvar_ru.
  std::vector<std::string> variable_names() const override {
    std::vector<std::string> names = assets_;
    if (names.empty())
      for (int a = 1; a <= A_; ++a) names.push_back("asset " + std::to_string(a));
    if (threshold_) names.push_back("VaR");
    return names;
  }
  /// y0, the last coordinate: only cvar_ru gives it a meaning.
  std::vector<scfw::AuxiliaryVariable> auxiliary_variables() const override {
    if (!threshold_) return {};
    return {{A_, "cvar_threshold", "the CVaR threshold y0 (the value at risk of the Rockafellar-Uryasev form)",
             "use \"cvar_ru\", which reads it (its alpha is the confidence level: cvar's alpha 0.05 is cvar_ru's "
             "0.95), or set \"threshold\": false in the oracle block for an outer function of the weights only"}};
  }
  std::vector<std::string> output_names() const override {
    std::vector<std::string> names;
    for (int g = 1; g <= n_; ++g) names.push_back("group " + std::to_string(g));
    return names;
  }
  /// Days of returns T (for tests and summaries).
  std::int64_t days() const { return rows_; }

  std::unique_ptr<scfw::Sample> make_sample() const override {
    auto s = std::make_unique<DaySample>();
    s->days.assign(static_cast<size_t>(n_) * batch_, 0);
    return s;
  }

  void draw(Rng& rng, scfw::Sample& s) const override {
    auto& days = own(s).days;
    for (int g = 0; g < n_; ++g) {
      std::uniform_int_distribution<std::int64_t> pick(begin_[g], begin_[g + 1] - 1);
      for (int b = 0; b < batch_; ++b) days[static_cast<size_t>(g) * batch_ + b] = pick(rng);
    }
  }

  void evaluate(const scfw::Sample& s, const Vec& x, Vec* f, scfw::Jacobian* Jj) const override {
    Mat* J = Jj ? &Jj->dense() : nullptr;  // a dense Jacobian: no pattern is declared
    check(x, f, J);
    const auto& days = own(s).days;
    const double inv = 1.0 / batch_;
    const auto w = x.head(A_);
    // J by plain loops over its contiguous rows (row-major), with the same operations per entry
    // as 0 - inv r_1 - inv r_2 ..., so the values are bitwise those of Eigen's row expressions;
    // the dot products stay Eigen's (their summation order is its own).
    const Eigen::Map<const RowMat> R(data_, rows_, cols_);
    const std::int64_t T = R.rows();
    const size_t A = static_cast<size_t>(A_);
    for (int g = 0; g < n_; ++g) {
      double sum = 0.0;
      double* jr = J ? J->data() + static_cast<size_t>(g) * static_cast<size_t>(J->cols()) : nullptr;
      if (jr) std::fill(jr, jr + J->cols(), 0.0);
      for (int b = 0; b < batch_; ++b) {
        const std::int64_t t = days[static_cast<size_t>(g) * batch_ + b] - first_day_;
        if (t < 0 || t >= T) continue;  // another rank's day
        sum -= R.row(t).dot(w);
        if (jr) {
          const double* r = R.data() + static_cast<size_t>(t) * A;
          for (size_t a = 0; a < A; ++a) jr[a] -= inv * r[a];
        }
      }
      if (f) (*f)[g] = inv * sum;
    }
  }

  void exact(const Vec& x, Vec* f, scfw::Jacobian* Jj) const override {
    Mat* J = Jj ? &Jj->dense() : nullptr;
    check(x, f, J);
    if (f) *f = -(means_ * x.head(A_));
    if (J) {
      J->leftCols(A_) = -means_;
      if (threshold_) J->col(A_).setZero();
    }
  }

  void hessian_action(const scfw::Sample&, const Vec& x, const Vec&, Mat& out) const override {
    check(x, nullptr, &out);
    out.setZero();
  }

 private:
  static const DaySample& own(const scfw::Sample& s) {
    auto* p = dynamic_cast<const DaySample*>(&s);
    if (!p) throw scfw::Error("portfolio_returns: the sample was not made by this oracle's make_sample()");
    return *p;
  }
  static DaySample& own(scfw::Sample& s) { return const_cast<DaySample&>(own(static_cast<const scfw::Sample&>(s))); }

  void check(const Vec& x, const Vec* f, const Mat* J) const {
    const int d = dim();
    if (x.size() != d) throw scfw::Error("portfolio_returns: x has size " + std::to_string(x.size()) + ", expected " + std::to_string(d));
    if (f && f->size() != n_) throw scfw::Error("portfolio_returns: f has size " + std::to_string(f->size()) + ", expected " + std::to_string(n_));
    if (J && (J->rows() != n_ || J->cols() != d))
      throw scfw::Error("portfolio_returns: J is " + std::to_string(J->rows()) + " x " + std::to_string(J->cols()) + ", expected " +
                        std::to_string(n_) + " x " + std::to_string(d));
  }

  RowMat R_;        // T x A returns (over MPI ranks: this rank's days first_day_ ..), when owned
  const double* data_ = nullptr;  // the returns read: R_'s, or the host's array in place
  Eigen::Index rows_ = 0, cols_ = 0;
  std::int64_t first_day_ = 0, days_ = 0;  // days_: T over all ranks
  bool sharded_ = false;
  RowMat means_;    // n x A group means
  std::vector<std::int64_t> begin_;
  std::vector<std::string> assets_;  // the file's header (empty for synthetic data)
  int A_ = 0, n_ = 0, batch_ = 1;
  bool threshold_ = true;  // x ends with y0
};

void register_components(scfw::Registrar& r) {
  using scfw::ParamSpec;
  r.add<PortfolioReturns>(
      "portfolio_returns",
      "f_g(w, y0) = -mean_{t in group g} r_t^T w, the expected loss of n groups of consecutive days (Task 2); a "
      "sample draws `batch` days per group",
      {ParamSpec::integer("groups", "number n of scenario groups of consecutive days").at_least(1).def(200),
       ParamSpec::integer("batch", "days drawn per group for one sample, uniformly with replacement").at_least(1).def(1),
       ParamSpec::object("synthetic",
                         {ParamSpec::integer("assets", "number of assets A (d = A + 1, or A without the threshold)").at_least(1).def(50),
                          ParamSpec::integer("days", "days of returns T").at_least(1).def(2000),
                          ParamSpec::integer("factors", "common factors K").nonnegative().def(3),
                          ParamSpec::number("drift", "mean daily return scale (asset a: drift * U(0.5, 1.5))").def(3e-4),
                          ParamSpec::number("factor_vol", "daily volatility from the factors").nonnegative().def(0.006),
                          ParamSpec::number("idio_vol", "idiosyncratic daily volatility").nonnegative().def(0.008),
                          ParamSpec::integer("seed", "data seed, independent of the run seed").nonnegative().def(1)},
                         "Student-t (3 degrees of freedom) factor model of daily returns, about 1% daily volatility"),
       ParamSpec::string("file", "CSV with a header row, a first `date` column and one column per asset (relative to the problem file)"),
       ParamSpec::string("array", "the name of a days x assets matrix the host passes in memory, in place of a file "
                                  "(scfw.solve(problem, data={NAME: matrix}) in Python)"),
       ParamSpec::boolean("prices", "the file (or array) holds prices (converted to simple returns p_t/p_{t-1} - 1); false: returns").def(true),
       ParamSpec::boolean("threshold", "x ends with the CVaR threshold y0 that cvar_ru reads (d = A + 1); false: x = w (d = A)").def(true)});
}

}  // namespace

SCFW_PLUGIN("portfolio_returns", SCFW_PLUGIN_VERSION, register_components)
