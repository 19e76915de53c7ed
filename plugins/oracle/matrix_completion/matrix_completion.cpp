// Oracle `matrix_completion`: the inner map of the paper's Task 3 (robust matrix completion,
// Section 6), over x = X flattened row-major (x[i * cols + j] = X_ij, d = rows * cols; the
// domain is `nuclear_ball` with the same rows and cols).
//
// The observed entries Omega = {e = (i_e, j_e, M_e)} are split into n groups G_1..G_n by a fixed
// seeded random partition (`groups`; group sizes differ by at most one; groups = 0 means one
// group per entry, n = |Omega|), or, with "grouping": "blocks", by blocks: the observed rows are
// ranked by their mean observed value (ties: smaller index) and cut into `row_bins` bins of
// (nearly) equal numbers of rows (rank t of a rows goes to bin t * row_bins / a), the columns
// likewise into `col_bins`, and a group is a non-empty (row bin, column bin[, value]) cell
// (`by_value`: one group per distinct observed value in the cell), cells in increasing order of
// (row bin, column bin, value), entries of a cell in file / generator order. Then
//
//   f_g(x) = s_g/|G_g| sum_{e in G_g} (X_{i_e j_e} - M_e)    (mean residual of group g, times s_g)
//
// with s_g = 1 (`weighting` "mean", the default) or s_g = |G_g| / |Omega| ("share": f_g is the
// group's sum of residuals over |Omega|, so ||f||_1 = (1/|Omega|) sum_g |sum_{e in G_g} r_e| is at
// most the paper's (1/|Omega|) sum_e |r_e|, equal when every group's residuals share a sign).
//
// Under "mean", with the outer function F(u) = (1/n) ||u||_1, the objective is
//   (1/n) sum_g |mean_{e in G_g} (X_e - M_e)|.
// With groups = 0 this is exactly the paper's 1/|Omega| sum_e |X_e - M_e| (and f is then
// deterministic: a sample is exact); with n < |Omega| random groups (equal sizes) it is a lower
// bound of it that is reached by unbiased samples (docs/formulations.md discusses the choice).
// A sample draws `batch` entries per group uniformly with replacement: f~_g is s_g times the
// mean of the drawn residuals, its Jacobian row holds s_g/batch at each drawn entry's
// coordinate. `batch` 0 takes every entry of each group: the sample is the exact f and J (with
// the `deterministic` schedule, Frank-Wolfe with exact passes). f is affine: the Hessian action is 0.
//
// "jacobian": "sparse" declares the Jacobian's pattern (jacobian.hpp): row g holds the coordinates
// of group g's observed entries, |Omega| non-zeros in all instead of n x rows x cols (the full
// MovieLens-100K: 10^5 against 3.2 10^7 per Jacobian at 20 groups). The values are the dense ones.
//
// Data: `synthetic` (the paper's 30 x 20 rank-5 matrix, 30% observed, Laplacian noise) or `file`:
// whitespace-separated `row col value` lines (extra fields, e.g. MovieLens' timestamp, are
// ignored; u.data is read as is), indices 1-based unless `one_based` = false, or `array`, the
// name of a k x 3 matrix of (row, col, value) triplets the host passes (host_arrays.hpp), its
// indices read as a file's. The array is read in place: the oracle holds the triplets' group
// order, not their coordinates and values (TripletEntries), unless `top_rows` / `top_cols`
// renumber them (then it holds the kept entries, as from a file).
//
// Sub-matrix (`top_rows`, `top_cols`, optional, either source): only the entries whose row is
// among the `top_rows` rows with the most observed entries and whose column is among the
// `top_cols` columns with the most observed entries are kept (counts over the whole data, ties
// broken by the smaller index; a value >= the number of rows / columns keeps them all). The kept
// rows and columns are renumbered densely in increasing original order, so M becomes
// min(top_rows, rows) x min(top_cols, cols) and the domain must use those sizes. The kept entries
// stay in the file / generator order.
#include <scfw/data_file.hpp>
#include <scfw/helpers.hpp>
#include <scfw/host_arrays.hpp>
#include <scfw/plugin.hpp>

#include <algorithm>
#include <utility>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace {

using scfw::Mat;
using scfw::Params;
using scfw::Rng;
using scfw::Vec;

struct Entries {
  int rows = 0, cols = 0;
  std::vector<std::int64_t> index;  // i * cols + j
  std::vector<double> value;
};

// Synthetic data. With g = Rng(seed), in this order: U (rows x rank) and W (cols x rank) entries
// N(0, 1) (std::normal_distribution), L = U W^T / sqrt(rank) (entries of unit variance); the
// observed set is the first round(density * rows * cols) positions of a partial Fisher-Yates
// shuffle of 0 .. rows * cols - 1 (std::uniform_int_distribution); each observed
// M_e = L_e + noise * (E1 - E2), E1, E2 ~ Exp(1) (std::exponential_distribution): Laplace noise
// of scale `noise`.
//
// Nothing of size rows x cols is held (a 10^4 x 10^4 instance with 10^6 observed entries needs
// about 100 MB, not 2.4 GB): the shuffle keeps only the positions it has moved (a hash map,
// at most one per observed entry), and L is computed a band of rows at a time, only for the
// bands holding observed entries, with the same Eigen product restricted to those rows (every
// band has at least kBand rows, so the product takes the same kernel as the whole matrix and
// each entry is the same double; tests/test_matrix_completion.cpp checks it against the whole
// product).
Entries make_synthetic(const Params& s, const scfw::Memory& memory) {
  // Ranges and defaults as declared in register_components.
  const std::int64_t r = s.get<int>("rows"), c = s.get<int>("cols"), rank = s.get<int>("rank");
  const double density = s.get<double>("density"), noise = s.get<double>("noise");
  const std::int64_t total = r * c;
  const std::int64_t m = std::max<std::int64_t>(1, std::llround(density * static_cast<double>(total)));
  // Rows per band of L: kBand, or more while a band stays within 4 MiB, a multiple of kBand.
  constexpr std::int64_t kBand = 24;
  const std::int64_t band = std::min(r, std::max<std::int64_t>(1, (std::int64_t{1} << 19) / std::max<std::int64_t>(1, c) / kBand) * kBand);
  // Held below: the factors, the moved positions (a hash-map node and a bucket, 64 bytes each),
  // the observed entries (position, value, noise) and their order by row, one band of L.
  memory.reserve(scfw::add_bytes(scfw::add_bytes(scfw::bytes_of({r + c, rank, 8}), scfw::bytes_of({m, 64 + 8 + 8 + 8 + 8})),
                                 scfw::bytes_of({std::min(r, 2 * band), c, 8})),
                 "the synthetic matrix's " + std::to_string(m) + " observed entries (rows x cols = " + std::to_string(r) + " x " +
                     std::to_string(c) + ")");
  Rng g(s.get<std::uint64_t>("seed"));
  std::normal_distribution<double> normal;
  Eigen::MatrixXd U(r, rank), W(c, rank);
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t k = 0; k < rank; ++k) U(i, k) = normal(g);
  for (std::int64_t j = 0; j < c; ++j)
    for (std::int64_t k = 0; k < rank; ++k) W(j, k) = normal(g);
  // The partial Fisher-Yates shuffle of pos = 0 .. total - 1: step k swaps pos[k] with pos[j],
  // j uniform in [k, total); pos[k] is final after step k (later steps touch only indices > k).
  // `moved` holds pos[j] for the j != pos[j] above k.
  Entries e;
  e.rows = static_cast<int>(r);
  e.cols = static_cast<int>(c);
  e.index.resize(static_cast<size_t>(m));
  {
    std::unordered_map<std::int64_t, std::int64_t> moved;
    moved.reserve(static_cast<size_t>(m));
    auto at = [&moved](std::int64_t i) {
      const auto it = moved.find(i);
      return it == moved.end() ? i : it->second;
    };
    for (std::int64_t k = 0; k < m; ++k) {
      std::uniform_int_distribution<std::int64_t> pick(k, total - 1);
      const std::int64_t j = pick(g);
      const std::int64_t pk = at(k), pj = at(j);
      e.index[static_cast<size_t>(k)] = pj;
      moved[j] = pk;  // pos[k] is never read again
      moved.erase(k);
    }
  }
  std::exponential_distribution<double> expo(1.0);
  e.value.resize(static_cast<size_t>(m));
  for (std::int64_t k = 0; k < m; ++k) {
    const double lap = expo(g) - expo(g);
    e.value[static_cast<size_t>(k)] = noise * lap;  // L_e added below
  }
  // L by bands of rows: the observed entries ordered by row, then each band that holds one.
  std::vector<std::int64_t> by_row(static_cast<size_t>(m));
  std::iota(by_row.begin(), by_row.end(), 0);
  std::sort(by_row.begin(), by_row.end(), [&e](std::int64_t a, std::int64_t b) {
    return e.index[static_cast<size_t>(a)] < e.index[static_cast<size_t>(b)];
  });
  const double scale = std::sqrt(static_cast<double>(rank));
  // Band b holds rows [b band, (b + 1) band), the last one also the rows left over, so no band
  // is shorter than `band` (a matrix of fewer than kBand rows is one band: the whole product).
  const std::int64_t bands = std::max<std::int64_t>(1, r / band);
  Eigen::MatrixXd L;
  for (size_t t = 0; t < by_row.size();) {
    const std::int64_t b = std::min(e.index[static_cast<size_t>(by_row[t])] / c / band, bands - 1);
    const std::int64_t i0 = b * band, h = b == bands - 1 ? r - i0 : band;
    L = U.middleRows(i0, h) * W.transpose() / scale;
    for (; t < by_row.size() && e.index[static_cast<size_t>(by_row[t])] / c < i0 + h; ++t) {
      const std::int64_t p = e.index[static_cast<size_t>(by_row[t])];
      e.value[static_cast<size_t>(by_row[t])] += L(p / c - i0, p % c);
    }
  }
  return e;
}

/// The entries of `count` triplets read from a file or an array: the shape (`rows`, `cols`, or
/// the largest indices), repeated entries refused; with `keep` false, the shape alone (an array
/// read in place). ri(k), ci(k), val(k): triplet k's 0-based row and column and its value.
/// `source` names the data; `at(k)` locates triplet k in messages, `named(k)` names it in the
/// text of another's ("line 7", "row 6").
template <class Row, class Col, class Val, class At, class Named>
Entries collect(std::int64_t count, const Row& ri, const Col& ci, const Val& val, bool keep, std::int64_t base,
                std::int64_t rows, std::int64_t cols, const std::string& source, const At& at, const Named& named) {
  Entries e;
  // The shape from the largest indices, each at most kMaxCells (so that neither the + 1 nor the
  // product overflows an int64: a 0-based index may be 2^63 - 1).
  constexpr std::int64_t kMaxCells = (std::int64_t{1} << 31) - 1;
  std::int64_t max_row = 0, max_col = 0;
  for (std::int64_t k = 0; k < count; ++k) {
    max_row = std::max(max_row, ri(k));
    max_col = std::max(max_col, ci(k));
  }
  const std::int64_t R = rows >= 1 ? rows : std::min(max_row, kMaxCells) + 1;
  const std::int64_t C = cols >= 1 ? cols : std::min(max_col, kMaxCells) + 1;
  // Each side within an int; their product may exceed one (observed coordinates hold no
  // rows x cols vector; the whole matrix's coordinates are refused later, by name).
  if (R > kMaxCells || C > kMaxCells) throw scfw::InputError(source + ": rows * cols is too large");
  e.rows = static_cast<int>(R);
  e.cols = static_cast<int>(C);
  std::unordered_map<std::int64_t, std::int64_t> seen;
  seen.reserve(static_cast<size_t>(count));
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t p = ri(k) * C + ci(k);
    const auto [it, fresh] = seen.emplace(p, k);
    if (!fresh)
      throw scfw::InputError(at(k) + ": entry (" + std::to_string(ri(k) + base) + ", " + std::to_string(ci(k) + base) +
                             ") repeats " + named(it->second));
    if (!keep) continue;
    e.index.push_back(p);
    e.value.push_back(val(k));
  }
  return e;
}

Entries read_file(const std::string& path, bool one_based, std::int64_t rows, std::int64_t cols) {
  scfw::check_data_path(path);
  std::ifstream in;
  scfw::open_data_file(in, path);
  std::vector<std::int64_t> ri, ci;
  std::vector<double> vals;
  std::vector<int> line_of;
  std::string line;
  int number = 0;
  const std::int64_t base = one_based ? 1 : 0;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream ss(line);
    std::string a, b, v;
    if (!(ss >> a)) continue;  // blank line
    if (a[0] == '#') continue;
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (!(ss >> b >> v)) throw scfw::InputError(where + "expected `row col value`, got \"" + scfw::excerpt(line) + "\"");
    auto parse_index = [&](const std::string& t, const char* what) {
      size_t used = 0;
      long long k = 0;
      try {
        k = std::stoll(t, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != t.size() || t.empty()) throw scfw::InputError(where + what + " is not an integer: \"" + scfw::excerpt(t) + "\"");
      if (k < base) throw scfw::InputError(where + what + " " + scfw::excerpt(t) + " is below " + std::to_string(base) + (one_based ? " (indices are 1-based)" : ""));
      return static_cast<std::int64_t>(k) - base;
    };
    const std::int64_t i = parse_index(a, "row"), j = parse_index(b, "col");
    size_t used = 0;
    double x = 0.0;
    try {
      x = std::stod(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != v.size() || !std::isfinite(x)) throw scfw::InputError(where + "value is not a finite number: \"" + scfw::excerpt(v) + "\"");
    if (rows >= 1 && i >= rows) throw scfw::InputError(where + "row " + scfw::excerpt(a) + " is beyond rows = " + std::to_string(rows));
    if (cols >= 1 && j >= cols) throw scfw::InputError(where + "col " + scfw::excerpt(b) + " is beyond cols = " + std::to_string(cols));
    ri.push_back(i);
    ci.push_back(j);
    vals.push_back(x);
    line_of.push_back(number);
  }
  if (vals.empty()) throw scfw::InputError(path + ": no entries");
  return collect(
      static_cast<std::int64_t>(vals.size()), [&](std::int64_t k) { return ri[static_cast<size_t>(k)]; },
      [&](std::int64_t k) { return ci[static_cast<size_t>(k)]; }, [&](std::int64_t k) { return vals[static_cast<size_t>(k)]; }, true,
      base, rows, cols, path, [&](std::int64_t k) { return path + ":" + std::to_string(line_of[static_cast<size_t>(k)]); },
      [&](std::int64_t k) { return "line " + std::to_string(line_of[static_cast<size_t>(k)]); });
}

/// The triplets of a k x 3 matrix the host passed (`array`): row k holds (row, col, value), the
/// indices as numbers with integer values, read with `one_based` as a file's; messages as the
/// file's, located by the array's name and the row (0-based). Every triplet is checked; with
/// `keep` false nothing is copied: the entries returned are empty and only their shape is set
/// (the oracle reads the triplets in place, TripletEntries).
Entries read_array(const scfw::HostArray& a, bool one_based, std::int64_t rows, std::int64_t cols, bool keep) {
  if (!a.is_dense() || a.dense.vector || a.dense.cols != 3)
    throw scfw::InputError(a.where() + ": expected a k x 3 matrix of (row, col, value) triplets, got " + a.describe());
  const scfw::DenseView& T = a.dense;
  if (T.rows == 0) throw scfw::InputError(a.where() + ": no entries");
  const std::int64_t base = one_based ? 1 : 0;
  for (std::int64_t k = 0; k < T.rows; ++k) {
    const std::string where = a.where() + ": row " + std::to_string(k) + ": ";
    auto index = [&](double v, const char* what) {
      if (v != std::floor(v) || std::abs(v) > 9.0e15)
        throw scfw::InputError(where + what + " is not an integer: " + scfw::format_number(v, 17));
      if (v < static_cast<double>(base))
        throw scfw::InputError(where + what + " " + scfw::format_number(v) + " is below " + std::to_string(base) +
                               (one_based ? " (indices are 1-based; \"one_based\": false reads them from 0)" : ""));
      return static_cast<std::int64_t>(v) - base;
    };
    const std::int64_t i = index(T(k, 0), "row"), j = index(T(k, 1), "col");
    if (rows >= 1 && i >= rows) throw scfw::InputError(where + "row " + scfw::format_number(T(k, 0)) + " is beyond rows = " + std::to_string(rows));
    if (cols >= 1 && j >= cols) throw scfw::InputError(where + "col " + scfw::format_number(T(k, 1)) + " is beyond cols = " + std::to_string(cols));
  }
  // Every index is now an integer in range: read as the oracle reads them.
  return collect(
      T.rows, [&](std::int64_t k) { return static_cast<std::int64_t>(T(k, 0)) - base; },
      [&](std::int64_t k) { return static_cast<std::int64_t>(T(k, 1)) - base; }, [&](std::int64_t k) { return T(k, 2); }, keep, base,
      rows, cols, a.where(), [&](std::int64_t k) { return a.where() + ": row " + std::to_string(k); },
      [&](std::int64_t k) { return "row " + std::to_string(k); });
}

// Keeps the entries in the top_rows most observed rows and top_cols most observed columns (0:
// all), renumbered densely in increasing original order (see the header). False, `e` unchanged,
// when no observed entry is left.
bool restrict_to_top(Entries& e, std::int64_t top_rows, std::int64_t top_cols) {
  if (top_rows <= 0 && top_cols <= 0) return true;
  const std::int64_t C = e.cols;
  // The kept original indices of one axis, increasing, or empty for "all of them". Only the
  // observed indices are counted (work and memory grow with the entries, not with rows or cols:
  // a file naming column 10^9 must not allocate by it); unobserved ones have count 0 and follow
  // the observed ones, smaller index first, as under a stable sort of all counts.
  auto select = [&](bool rows, std::int64_t top, std::int64_t total) {
    std::vector<std::int64_t> kept;
    if (top <= 0 || top >= total) return kept;
    std::vector<std::int64_t> seen;
    seen.reserve(e.index.size());
    for (const std::int64_t p : e.index) seen.push_back(rows ? p / C : p % C);
    std::sort(seen.begin(), seen.end());
    std::vector<std::pair<std::int64_t, std::int64_t>> counted;  // (index, count), increasing index
    for (size_t k = 0; k < seen.size();) {
      size_t l = k;
      while (l < seen.size() && seen[l] == seen[k]) ++l;
      counted.emplace_back(seen[k], static_cast<std::int64_t>(l - k));
      k = l;
    }
    std::stable_sort(counted.begin(), counted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (size_t k = 0; k < counted.size() && static_cast<std::int64_t>(kept.size()) < top; ++k) kept.push_back(counted[k].first);
    std::sort(kept.begin(), kept.end());
    // Fewer observed than top: the smallest unobserved indices make up the rest.
    const std::vector<std::int64_t> observed = kept;
    for (std::int64_t i = 0; static_cast<std::int64_t>(kept.size()) < top && i < total; ++i)
      if (!std::binary_search(observed.begin(), observed.end(), i)) kept.push_back(i);
    std::sort(kept.begin(), kept.end());
    return kept;
  };
  const std::vector<std::int64_t> keep_row = select(true, top_rows, e.rows), keep_col = select(false, top_cols, C);
  // The new index of original index i, or -1 when it is dropped.
  auto renumber = [](const std::vector<std::int64_t>& kept, std::int64_t i) -> std::int64_t {
    if (kept.empty()) return i;
    const auto it = std::lower_bound(kept.begin(), kept.end(), i);
    return it != kept.end() && *it == i ? it - kept.begin() : -1;
  };
  const std::int64_t R = keep_row.empty() ? e.rows : static_cast<std::int64_t>(keep_row.size());
  const std::int64_t K = keep_col.empty() ? C : static_cast<std::int64_t>(keep_col.size());
  Entries kept;
  kept.rows = static_cast<int>(R);
  kept.cols = static_cast<int>(K);
  for (size_t k = 0; k < e.index.size(); ++k) {
    const std::int64_t i = renumber(keep_row, e.index[k] / C), j = renumber(keep_col, e.index[k] % C);
    if (i < 0 || j < 0) continue;
    kept.index.push_back(i * K + j);
    kept.value.push_back(e.value[k]);
  }
  if (kept.value.empty()) return false;
  e = std::move(kept);
  return true;
}

// The entries as the evaluation loops read them, in group order (position k: group g holds
// k = begin_[g] .. begin_[g+1]-1): pos(k), the entry's coordinate in x (i * cols + j), and
// value(k), its observed M_e. The loops are templates over the two kinds below, so that an entry
// pays no branch on where the entries are.

/// The oracle's own copy of the entries (synthetic data, a file, an array cut by top_rows or
/// top_cols), stored in group order.
struct HeldEntries {
  const std::int64_t* idx = nullptr;
  const double* val = nullptr;
  std::int64_t pos(std::int64_t k) const { return idx[k]; }
  double value(std::int64_t k) const { return val[k]; }
};

/// The host's k x 3 triplets, read in place through the group order: position k is triplet
/// order[k], its indices converted as read_array checked them.
struct TripletEntries {
  const double* t = nullptr;  // row-major, (row, col, value) per triplet
  const std::int64_t* order = nullptr;
  std::int64_t cols = 0;
  std::int64_t shift = 0;  // base * (cols + 1): (i - base) * cols + (j - base) = i * cols + j - shift
  std::int64_t pos(std::int64_t k) const {
    const double* e = t + 3 * order[k];
    return static_cast<std::int64_t>(e[0]) * cols + static_cast<std::int64_t>(e[1]) - shift;
  }
  double value(std::int64_t k) const { return t[3 * order[k] + 2]; }
};

struct EntrySample final : scfw::Sample {
  std::vector<std::int64_t> picks;  // positions into the group-ordered entry list
};

class MatrixCompletion final : public scfw::Oracle {
 public:
  MatrixCompletion(const Params& p, const scfw::Context& ctx) {
    const bool synthetic = p.has("synthetic"), file = p.has("file"), array = p.has("array");
    if (synthetic + file + array == 0) p.fail("synthetic", "no data source: give \"synthetic\", \"file\" or \"array\"");
    if (synthetic + file + array > 1)
      p.fail(array ? "array" : "file", "give only one data source of \"synthetic\", \"file\" and \"array\"");
    // An array is read in place unless a sub-matrix renumbers its entries (top_rows, top_cols):
    // then the kept entries' new coordinates are computed and held, and the values beside them
    // (8 bytes each, as an index into the array would be).
    observed_ = p.get<std::string>("coordinates") == "observed";
    const bool in_place = array && !p.has("top_rows") && !p.has("top_cols") && !observed_;
    if (array) {
      const scfw::HostArray& a = scfw::host_array(p, "array", ctx);
      const bool one_based = p.get<bool>("one_based");
      e_ = read_array(a, one_based, p.find<int>("rows").value_or(0), p.find<int>("cols").value_or(0), !in_place);
      if (in_place) {
        triplets_ = a.dense.data;
        count_ = a.dense.rows;
        shift_ = (one_based ? 1 : 0) * (static_cast<std::int64_t>(e_.cols) + 1);
      }
    } else if (synthetic) {
      for (const char* k : {"rows", "cols"})
        if (p.has(k)) p.fail(k, "only used with \"file\" or \"array\"; the generator takes synthetic.rows / synthetic.cols");
      e_ = make_synthetic(p.object("synthetic"), ctx.memory);
    } else {
      const std::filesystem::path path(scfw::locate_data_file(p, "file", ctx.base_dir));
      // rows, cols 0: the largest index in the file.
      e_ = read_file(path.string(), p.get<bool>("one_based"), p.find<int>("rows").value_or(0),
                     p.find<int>("cols").value_or(0));
    }
    // 0: keep every row (column).
    if (!restrict_to_top(e_, p.find<std::int64_t>("top_rows").value_or(0), p.find<std::int64_t>("top_cols").value_or(0)))
      p.fail(p.has("top_rows") ? "top_rows" : "top_cols", "no observed entry is left in the top_rows x top_cols sub-matrix");
    if (!in_place) count_ = static_cast<std::int64_t>(e_.value.size());
    const std::int64_t m = count_;
    const bool blocks = p.get<std::string>("grouping") == "blocks";
    if (!blocks)
      for (const char* k : {"row_bins", "col_bins", "by_value"})
        if (p.has(k)) p.fail(k, "only used with \"grouping\": \"blocks\"");
    batch_ = p.get<int>("batch");
    // The order of the entries: group g is entries begin_[g] .. begin_[g + 1] - 1 of it.
    std::vector<std::int64_t> order(static_cast<size_t>(m));
    std::iota(order.begin(), order.end(), 0);
    std::int64_t n = 0;
    if (blocks) {
      // Held while grouping: the row and column statistics and one key per entry.
      ctx.memory.reserve(scfw::bytes_of({m, 8 + 8 + 8 + 8 + 24}), "the grouping keys of " + std::to_string(m) + " entries");
      n = group_by_blocks(p, order);
    } else {
      n = p.get<std::int64_t>("groups");
      if (n == 0) n = m;  // one group per observed entry
      if (n > m) p.fail("groups", "there are " + std::to_string(n) + " groups but only " + std::to_string(m) + " observed entries");
    }
    // Held below and by make_sample(): the grouped entries (their coordinates and values, and the
    // order while they are gathered; in place, the order alone), the group bounds and scales, one
    // sample.
    ctx.memory.reserve(scfw::add_bytes(scfw::bytes_of({m, in_place ? 8 : 24}),
                                       scfw::add_bytes(scfw::bytes_of({n + 1, 16}), scfw::bytes_of({n, batch_, 8}))),
                       std::string(in_place ? "the group order of the entries (read in place)" : "the entries") +
                           " and a sample of batch entries per group (groups x batch = " + std::to_string(n) + " x " +
                           std::to_string(batch_) + ")");
    if (!blocks) {
      // The random partition: entries in a shuffled order (Rng(partition_seed)), dealt into n
      // consecutive blocks. groups = 0 keeps the file/generator order (group g = entry g).
      if (n < m) {
        Rng g(p.get<std::uint64_t>("partition_seed"));
        std::shuffle(order.begin(), order.end(), g);
      }
      begin_.resize(static_cast<size_t>(n) + 1);
      for (std::int64_t g = 0; g <= n; ++g) begin_[static_cast<size_t>(g)] = g * m / n;
    }
    if (in_place) {
      order_ = std::move(order);
    } else {
      idx_.resize(static_cast<size_t>(m));
      val_.resize(static_cast<size_t>(m));
      for (std::int64_t k = 0; k < m; ++k) {
        idx_[static_cast<size_t>(k)] = e_.index[static_cast<size_t>(order[static_cast<size_t>(k)])];
        val_[static_cast<size_t>(k)] = e_.value[static_cast<size_t>(order[static_cast<size_t>(k)])];
      }
      // idx_ and val_ are the entries from here on; e_ keeps the shape.
      e_.index = {};
      e_.value = {};
    }
    n_ = static_cast<int>(n);
    // "mean": f_g is the group's mean residual (scale 1); "share": its sum of residuals over
    // |Omega|, the mean times |G_g| / |Omega|.
    scale_.assign(static_cast<size_t>(n), 1.0);
    if (p.get<std::string>("weighting") == "share")
      for (std::int64_t g = 0; g < n; ++g)
        scale_[static_cast<size_t>(g)] = static_cast<double>(begin_[static_cast<size_t>(g) + 1] - begin_[static_cast<size_t>(g)]) / static_cast<double>(m);
    if (observed_) {
      use_observed_coordinates(ctx);
    } else {
      const std::int64_t cells = std::int64_t{e_.rows} * e_.cols;
      if (cells > std::numeric_limits<int>::max())
        p.fail("coordinates", "x would hold rows x cols = " + std::to_string(cells) +
                                  " numbers, more than a vector of scfw holds (2^31 - 1): give \"coordinates\": \"observed\"");
      d_ = static_cast<int>(cells);
    }
    if (p.get<std::string>("jacobian") == "sparse") build_pattern(ctx);
  }

  /// Exact f and J and the Hessian action always; with "jacobian": "sparse", J in the pattern of
  /// the observed entries.
  scfw::Capabilities capabilities() const override {
    scfw::Capabilities c = scfw::Capability::Exact | scfw::Capability::HessianAction;
    if (pattern_) c |= scfw::Capability::SparseJacobian;
    return c;
  }

  std::shared_ptr<const scfw::JacobianPattern> jacobian_pattern() const override { return pattern_; }

  // J of the oracle's kind: the pattern's values, or the dense n x d matrix.
  void evaluate(const scfw::Sample& s, const Vec& x, Vec* f, scfw::Jacobian* J) const override {
    if (batch_ == 0) {  // the whole group: the exact f and J
      own(s);
      exact(x, f, J);
      return;
    }
    with_entries([&](const auto& src) {
      if (J && J->is_sparse())
        evaluate_values(src, s, x, f, J->data());
      else
        evaluate_dense(src, s, x, f, J ? &J->dense() : nullptr);
    });
  }

  void exact(const Vec& x, Vec* f, scfw::Jacobian* J) const override {
    with_entries([&](const auto& src) {
      if (J && J->is_sparse())
        exact_values(src, x, f, J->data());
      else
        exact_dense(src, x, f, J ? &J->dense() : nullptr);
    });
  }

  template <class Src>
  void evaluate_values(const Src& src, const scfw::Sample& s, const Vec& x, Vec* f, double* J) const {
    check(x, f, nullptr);
    const auto& picks = own(s).picks;
    const double inv = 1.0 / batch_;
    if (J) std::fill(J, J + pattern_->nnz(), 0.0);
    for (int g = 0; g < n_; ++g) {
      const double w = scale_[static_cast<size_t>(g)] * inv;  // inv itself under "mean"
      double sum = 0.0;
      for (int b = 0; b < batch_; ++b) {
        const std::int64_t k = picks[static_cast<size_t>(g) * batch_ + b];
        sum += x[src.pos(k)] - src.value(k);
        if (J) J[slot_[static_cast<size_t>(k)]] += w;
      }
      if (f) (*f)[g] = w * sum;
    }
  }

  template <class Src>
  void exact_values(const Src& src, const Vec& x, Vec* f, double* J) const {
    check(x, f, nullptr);
    if (J) std::fill(J, J + pattern_->nnz(), 0.0);
    for (int g = 0; g < n_; ++g) {
      const double inv = scale_[static_cast<size_t>(g)] * (1.0 / static_cast<double>(begin_[g + 1] - begin_[g]));
      double sum = 0.0;
      for (std::int64_t k = begin_[g]; k < begin_[g + 1]; ++k) {
        sum += x[src.pos(k)] - src.value(k);
        if (J) J[slot_[static_cast<size_t>(k)]] += inv;
      }
      if (f) (*f)[g] = inv * sum;
    }
  }

  int dim() const override { return d_; }
  int outputs() const override { return n_; }
  /// x is the rows x cols matrix X, row-major: a domain of another shape would read another matrix.
  /// Under "coordinates": "observed" x is X at the observed entries (matrix_entries()), no grid.
  std::vector<int> shape() const override {
    if (observed_) return {};
    return {e_.rows, e_.cols};
  }
  std::shared_ptr<const scfw::MatrixEntries> matrix_entries() const override { return entries_; }
  /// X_ij as "r<i>c<j>" (1-based; x is X row-major, as nuclear_ball stores it).
  std::vector<std::string> variable_names() const override {
    std::vector<std::string> names;
    names.reserve(static_cast<size_t>(d_));
    if (observed_) {
      for (int k = 0; k < d_; ++k) {
        std::string name = "r";  // appends, as below
        name += std::to_string(entries_->row[static_cast<size_t>(k)] + 1);
        name += 'c';
        name += std::to_string(entries_->col[static_cast<size_t>(k)] + 1);
        names.push_back(std::move(name));
      }
      return names;
    }
    for (int i = 1; i <= e_.rows; ++i)
      for (int j = 1; j <= e_.cols; ++j) {
        std::string name = "r";  // built by appends: g++ 12 warns (-Wrestrict) on "r" + to_string(i)
        name += std::to_string(i);
        name += 'c';
        name += std::to_string(j);
        names.push_back(std::move(name));
      }
    return names;
  }
  std::vector<std::string> output_names() const override {
    std::vector<std::string> names;
    for (int g = 1; g <= n_; ++g) names.push_back("group " + std::to_string(g));
    return names;
  }

  std::unique_ptr<scfw::Sample> make_sample() const override {
    auto s = std::make_unique<EntrySample>();
    s->picks.assign(static_cast<size_t>(n_) * batch_, 0);
    return s;
  }

  void draw(Rng& rng, scfw::Sample& s) const override {
    auto& picks = own(s).picks;
    if (batch_ == 0) return;  // the whole group: nothing to draw
    for (int g = 0; g < n_; ++g) {
      std::uniform_int_distribution<std::int64_t> pick(begin_[g], begin_[g + 1] - 1);
      for (int b = 0; b < batch_; ++b) picks[static_cast<size_t>(g) * batch_ + b] = pick(rng);
    }
  }

  template <class Src>
  void evaluate_dense(const Src& src, const scfw::Sample& s, const Vec& x, Vec* f, Mat* J) const {
    check(x, f, J);
    const auto& picks = own(s).picks;
    const double inv = 1.0 / batch_;
    for (int g = 0; g < n_; ++g) {
      const double w = scale_[static_cast<size_t>(g)] * inv;  // inv itself under "mean"
      double sum = 0.0;
      if (J) J->row(g).setZero();
      for (int b = 0; b < batch_; ++b) {
        const std::int64_t k = picks[static_cast<size_t>(g) * batch_ + b];
        const std::int64_t c = src.pos(k);
        sum += x[c] - src.value(k);
        if (J) (*J)(g, c) += w;
      }
      if (f) (*f)[g] = w * sum;
    }
  }

  template <class Src>
  void exact_dense(const Src& src, const Vec& x, Vec* f, Mat* J) const {
    check(x, f, J);
    for (int g = 0; g < n_; ++g) {
      const double inv = scale_[static_cast<size_t>(g)] * (1.0 / static_cast<double>(begin_[g + 1] - begin_[g]));
      double sum = 0.0;
      if (J) J->row(g).setZero();
      for (std::int64_t k = begin_[g]; k < begin_[g + 1]; ++k) {
        const std::int64_t c = src.pos(k);
        sum += x[c] - src.value(k);
        if (J) (*J)(g, c) += inv;
      }
      if (f) (*f)[g] = inv * sum;
    }
  }

  void hessian_action(const scfw::Sample&, const Vec& x, const Vec&, Mat& out) const override {
    check(x, nullptr, &out);
    out.setZero();
  }

 private:
  static const EntrySample& own(const scfw::Sample& s) {
    auto* p = dynamic_cast<const EntrySample*>(&s);
    if (!p) throw scfw::Error("matrix_completion: the sample was not made by this oracle's make_sample()");
    return *p;
  }
  static EntrySample& own(scfw::Sample& s) { return const_cast<EntrySample&>(own(static_cast<const scfw::Sample&>(s))); }

  /// fn(source): the loops above, over the held entries or over the host's triplets.
  template <class Fn>
  void with_entries(Fn&& fn) const {
    if (triplets_) {
      fn(TripletEntries{triplets_, order_.data(), e_.cols, shift_});
      return;
    }
    fn(HeldEntries{idx_.data(), val_.data()});
  }

  /// Entry k's coordinate and value in the source's order (file / generator / array order),
  /// before the grouping (used while grouping, not per iteration).
  std::int64_t entry_pos(std::int64_t k) const {
    if (!triplets_) return e_.index[static_cast<size_t>(k)];
    const double* e = triplets_ + 3 * k;
    return static_cast<std::int64_t>(e[0]) * e_.cols + static_cast<std::int64_t>(e[1]) - shift_;
  }
  double entry_value(std::int64_t k) const { return triplets_ ? triplets_[3 * k + 2] : e_.value[static_cast<size_t>(k)]; }

  void check(const Vec& x, const Vec* f, const Mat* J) const {
    if (x.size() != d_) throw scfw::Error("matrix_completion: x has size " + std::to_string(x.size()) + ", expected " + std::to_string(d_));
    if (f && f->size() != n_) throw scfw::Error("matrix_completion: f has size " + std::to_string(f->size()) + ", expected " + std::to_string(n_));
    if (J && (J->rows() != n_ || J->cols() != d_))
      throw scfw::Error("matrix_completion: J is " + std::to_string(J->rows()) + " x " + std::to_string(J->cols()) + ", expected " +
                        std::to_string(n_) + " x " + std::to_string(d_));
  }

  /// "grouping": "blocks" (see the header): sets begin_, puts the entries of each group together in
  /// `order` (stable: file / generator order within a group) and returns the number of groups.
  std::int64_t group_by_blocks(const Params& p, std::vector<std::int64_t>& order) {
    const std::int64_t m = count_, C = e_.cols;
    // Bin of each entry's row (column): the observed rows ranked by their mean observed value
    // (ties: smaller index), rank t of a rows in bin t * bins / a (bins capped at a).
    auto bin_per_entry = [&](bool rows, std::int64_t bins) {
      std::vector<std::pair<std::int64_t, std::int64_t>> at;  // (row or column, entry), sorted
      at.reserve(static_cast<size_t>(m));
      for (std::int64_t k = 0; k < m; ++k) {
        const std::int64_t pos = entry_pos(k);
        at.emplace_back(rows ? pos / C : pos % C, k);
      }
      std::sort(at.begin(), at.end());
      std::vector<std::pair<double, std::int64_t>> mean_index;  // per observed row: (mean, row)
      std::vector<std::int64_t> axis(static_cast<size_t>(m));    // entry -> its place in mean_index
      for (size_t k = 0; k < at.size();) {
        size_t l = k;
        double sum = 0.0;
        for (; l < at.size() && at[l].first == at[k].first; ++l) {
          sum += entry_value(at[l].second);
          axis[static_cast<size_t>(at[l].second)] = static_cast<std::int64_t>(mean_index.size());
        }
        mean_index.emplace_back(sum / static_cast<double>(l - k), at[k].first);
        k = l;
      }
      std::vector<std::int64_t> ranked(mean_index.size());
      std::iota(ranked.begin(), ranked.end(), 0);
      std::sort(ranked.begin(), ranked.end(), [&](std::int64_t a, std::int64_t b) {
        return mean_index[static_cast<size_t>(a)] < mean_index[static_cast<size_t>(b)];
      });
      const std::int64_t a = static_cast<std::int64_t>(mean_index.size()), used = std::min(bins, a);
      std::vector<std::int64_t> bin(mean_index.size());
      for (std::int64_t t = 0; t < a; ++t) bin[static_cast<size_t>(ranked[static_cast<size_t>(t)])] = t * used / a;
      for (auto& v : axis) v = bin[static_cast<size_t>(v)];
      return axis;
    };
    const std::vector<std::int64_t> row_bin = bin_per_entry(true, p.find<std::int64_t>("row_bins").value_or(1));
    const std::vector<std::int64_t> col_bin = bin_per_entry(false, p.find<std::int64_t>("col_bins").value_or(1));
    const bool by_value = p.find<bool>("by_value").value_or(false);
    auto key = [&](std::int64_t k) {
      const auto u = static_cast<size_t>(k);
      return std::make_tuple(row_bin[u], col_bin[u], by_value ? entry_value(k) : 0.0);
    };
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return key(a) < key(b); });
    begin_.assign(1, 0);
    for (std::int64_t k = 1; k < m; ++k)
      if (key(order[static_cast<size_t>(k)]) != key(order[static_cast<size_t>(k - 1)])) begin_.push_back(k);
    begin_.push_back(m);
    return static_cast<std::int64_t>(begin_.size()) - 1;
  }

  /// "coordinates": "observed": x holds X at the observed entries only, coordinate t the t-th
  /// entry in row-major order. The entries' positions i * cols + j become coordinates (idx_), so
  /// the loops above read x as they do the whole matrix, and the entries' rows and columns are
  /// what matrix_entries() declares.
  void use_observed_coordinates(const scfw::Context& ctx) {
    const std::int64_t m = count_;
    ctx.memory.reserve(scfw::bytes_of({m, 8 + 8}), "the observed entries' rows and columns (" + std::to_string(m) + " entries)");
    std::vector<std::int64_t> sorted(idx_);
    std::sort(sorted.begin(), sorted.end());
    auto entries = std::make_shared<scfw::MatrixEntries>();
    entries->rows = e_.rows;
    entries->cols = e_.cols;
    entries->row.resize(static_cast<size_t>(m));
    entries->col.resize(static_cast<size_t>(m));
    for (std::int64_t t = 0; t < m; ++t) {
      entries->row[static_cast<size_t>(t)] = static_cast<int>(sorted[static_cast<size_t>(t)] / e_.cols);
      entries->col[static_cast<size_t>(t)] = static_cast<int>(sorted[static_cast<size_t>(t)] % e_.cols);
    }
    for (auto& pos : idx_) pos = std::lower_bound(sorted.begin(), sorted.end(), pos) - sorted.begin();
    entries_ = std::move(entries);
    d_ = static_cast<int>(m);
  }

  /// The pattern: row g holds the coordinates of group g's entries, sorted (an entry's position is
  /// unique, so no column repeats); slot_[k] is entry k's place among the pattern's values.
  void build_pattern(const scfw::Context& ctx) {
    const std::int64_t m = count_;
    ctx.memory.reserve(scfw::bytes_of({m, 8 + 4}), "the sparse Jacobian's pattern and slots (" + std::to_string(m) + " entries)");
    std::vector<std::int64_t> row_start{0};
    std::vector<int> col(static_cast<size_t>(m));
    slot_.resize(static_cast<size_t>(m));
    std::vector<std::pair<std::int64_t, std::int64_t>> by_col;  // (coordinate, entry) of one group
    for (int g = 0; g < n_; ++g) {
      by_col.clear();
      for (std::int64_t k = begin_[g]; k < begin_[g + 1]; ++k)
        by_col.emplace_back(triplets_ ? entry_pos(order_[static_cast<size_t>(k)]) : idx_[static_cast<size_t>(k)], k);
      std::sort(by_col.begin(), by_col.end());
      for (size_t t = 0; t < by_col.size(); ++t) {
        const std::int64_t at = begin_[g] + static_cast<std::int64_t>(t);
        col[static_cast<size_t>(at)] = static_cast<int>(by_col[t].first);
        slot_[static_cast<size_t>(by_col[t].second)] = at;
      }
      row_start.push_back(begin_[g + 1]);
    }
    pattern_ = std::make_shared<const scfw::JacobianPattern>(n_, d_, std::move(row_start), std::move(col));
  }

  Entries e_;  // the shape (rows, cols); its entries only until they are grouped into idx_, val_
  std::shared_ptr<const scfw::JacobianPattern> pattern_;  // "jacobian": "sparse"; null when dense
  std::vector<std::int64_t> slot_;                         // entry -> place in the pattern's values
  std::vector<std::int64_t> idx_;  // group-ordered entries: coordinate in x
  std::vector<double> val_;        // and observed value (both empty when the triplets are read in place)
  const double* triplets_ = nullptr;  // "array" read in place: the host's k x 3 triplets
  std::vector<std::int64_t> order_;   // and the triplet at each group-ordered position
  std::int64_t shift_ = 0;            // base * (cols + 1), TripletEntries
  std::int64_t count_ = 0;            // |Omega|
  std::vector<std::int64_t> begin_;
  std::vector<double> scale_;      // per group: 1 ("mean") or |G_g| / |Omega| ("share")
  bool observed_ = false;                                 // "coordinates": "observed"
  std::shared_ptr<const scfw::MatrixEntries> entries_;   // and its entries; null otherwise
  int n_ = 0, d_ = 0, batch_ = 1;
};

void register_components(scfw::Registrar& r) {
  using scfw::ParamSpec;
  r.add<MatrixCompletion>(
      "matrix_completion",
      "f_g(X) = mean_{e in G_g} (X_e - M_e) over n groups of observed entries (Task 3, x = X row-major); a sample "
      "draws `batch` entries per group",
      {ParamSpec::integer("groups", "number n of groups of observed entries (0: one per entry, the paper's exact objective)")
           .nonnegative()
           .def(20),
       ParamSpec::integer("batch", "entries drawn per group for one sample, uniformly with replacement; 0 = every entry "
                                   "of the group (the exact f and J: Frank-Wolfe with exact passes under the "
                                   "`deterministic` schedule)")
           .nonnegative()
           .def(1),
       ParamSpec::choice("jacobian", {"dense", "sparse"},
                         "\"sparse\": declare the Jacobian's pattern (row g: the coordinates of group g's observed "
                         "entries), so V and the GLMO work on |Omega| values; \"dense\": n x rows x cols")
           .def("dense"),
       ParamSpec::choice("coordinates", {"matrix", "observed"},
                         "\"matrix\": x is the whole rows x cols matrix X, row-major; \"observed\": x is X at the "
                         "observed entries only (row-major order), the domain sees them, and with column_generation "
                         "the host keeps X as rank-one factors (docs/memory.md, \"Factored iterates\"): memory and time "
                         "follow |Omega|, not rows x cols")
           .def("matrix"),
       ParamSpec::integer("partition_seed", "seed of the random partition of the entries into groups").nonnegative().def(1),
       ParamSpec::choice("grouping", {"random", "blocks"},
                         "\"random\": `groups` groups by a seeded random partition; \"blocks\": one group per non-empty "
                         "(row bin, column bin[, value]) cell (row_bins, col_bins, by_value; `groups` and `partition_seed` "
                         "unused)")
           .def("random"),
       ParamSpec::integer("row_bins",
                          "\"blocks\": the observed rows ranked by their mean observed value (ties: smaller index) and cut "
                          "into this many bins of (nearly) equal row counts (default 1; >= the observed rows: one bin per row)")
           .at_least(1),
       ParamSpec::integer("col_bins", "\"blocks\": the same for the columns (default 1)").at_least(1),
       ParamSpec::boolean("by_value", "\"blocks\": also split each cell by the observed value (ratings 1..5: five groups per cell; default false)"),
       ParamSpec::choice("weighting", {"mean", "share"},
                         "f_g is the group's mean residual (\"mean\") or its sum of residuals over |Omega| (\"share\": "
                         "||f||_1 <= (1/|Omega|) sum |X_e - M_e|, equal when each group's residuals share a sign)")
           .def("mean"),
       ParamSpec::object("synthetic",
                         {ParamSpec::integer("rows", "rows of M").at_least(1).def(30),
                          ParamSpec::integer("cols", "columns of M").at_least(1).def(20),
                          ParamSpec::integer("rank", "rank of the low-rank part").at_least(1).def(5),
                          ParamSpec::number("density", "fraction of entries observed").above(0).at_most(1).def(0.3),
                          ParamSpec::number("noise", "scale b of the Laplace noise").nonnegative().def(0.3),
                          ParamSpec::integer("seed", "data seed, independent of the run seed").nonnegative().def(1)},
                         "rank-r M = U W^T / sqrt(r) with Gaussian factors, a random observed subset, Laplace noise"),
       ParamSpec::string("file", "`row col value` lines, whitespace-separated, extra fields ignored (MovieLens u.data); relative to the problem file"),
       ParamSpec::string("array", "the name of a k x 3 matrix of (row, col, value) triplets the host passes in memory, in "
                                  "place of a file, its indices read as the file's (scfw.solve(problem, data={NAME: triplets}) in "
                                  "Python): float64, row-major, read in place without a copy (Python converts any other array "
                                  "once); with top_rows or top_cols the kept entries are copied"),
       ParamSpec::integer("rows", "rows of M (default: the largest row index)").at_least(1),
       ParamSpec::integer("cols", "columns of M (default: the largest column index)").at_least(1),
       ParamSpec::boolean("one_based", "indices in the file start at 1 (MovieLens); false: at 0").def(true),
       ParamSpec::integer("top_rows",
                          "keep only the entries in the top_rows rows with the most observed entries (ties: smaller "
                          "index; default: all rows); kept rows renumbered densely in increasing original order")
           .at_least(1),
       ParamSpec::integer("top_cols",
                          "keep only the entries in the top_cols columns with the most observed entries (ties: "
                          "smaller index; default: all columns); kept columns renumbered densely in increasing "
                          "original order (the domain is then min(top_rows, rows) x min(top_cols, cols))")
           .at_least(1)});
}

}  // namespace

SCFW_PLUGIN("matrix_completion", SCFW_PLUGIN_VERSION, register_components)
