#include "scfw/host_arrays.hpp"

#include <cmath>

#include "scfw/data_file.hpp"
#include "scfw/registrar.hpp"

namespace scfw {

namespace {

std::string non_finite(double v) { return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }

void check_name(const std::vector<HostArray>& arrays, const std::string& name) {
  if (name.empty()) throw InputError("data: an array name is empty");
  if (has_control_character(name))
    throw InputError("data \"" + excerpt(name) + "\": the name holds a control character (shown as ?)");
  for (const HostArray& a : arrays)
    if (a.name == name) throw InputError("data \"" + name + "\": passed twice");
}

}  // namespace

std::string HostArray::describe() const {
  if (kind == Kind::Csr)
    return "a " + std::to_string(csr.rows) + " x " + std::to_string(csr.cols) + " CSR matrix with " +
           std::to_string(csr.nnz()) + " non-zeros";
  if (dense.vector) return "a vector of " + std::to_string(dense.rows);
  return "a " + std::to_string(dense.rows) + " x " + std::to_string(dense.cols) + " matrix";
}

void HostArrays::add(const std::string& name, const DenseView& view) {
  check_name(arrays_, name);
  const std::string where = "data \"" + name + "\"";
  if (view.rows < 0 || view.cols < 0) throw InputError(where + ": negative size");
  if (view.vector && view.cols != 1) throw InputError(where + ": a vector has one column");
  if (!view.data && view.rows * view.cols > 0) throw InputError(where + ": no data pointer");
  HostArray a;
  a.name = name;
  a.kind = HostArray::Kind::Dense;
  a.dense = view;
  arrays_.push_back(a);
}

void HostArrays::add(const std::string& name, const CsrView& view) {
  check_name(arrays_, name);
  const std::string where = "data \"" + name + "\"";
  if (view.rows < 0 || view.cols < 0) throw InputError(where + ": negative size");
  if (view.index_bytes != 4 && view.index_bytes != 8)
    throw InputError(where + ": indices of " + std::to_string(view.index_bytes) + " bytes (expected 4 or 8)");
  if (!view.indptr) throw InputError(where + ": no indptr");
  if (view.ptr(0) != 0) throw InputError(where + ": indptr[0] is " + std::to_string(view.ptr(0)) + ", expected 0");
  for (std::int64_t r = 0; r < view.rows; ++r)
    if (view.ptr(r + 1) < view.ptr(r))
      throw InputError(where + ": indptr decreases at row " + std::to_string(r) + " (" + std::to_string(view.ptr(r)) +
                       " then " + std::to_string(view.ptr(r + 1)) + ")");
  const std::int64_t nnz = view.ptr(view.rows);
  if (nnz > 0 && (!view.indices || !view.values)) throw InputError(where + ": no indices or values");
  for (std::int64_t r = 0; r < view.rows; ++r)
    for (std::int64_t k = view.ptr(r); k < view.ptr(r + 1); ++k)
      if (view.index(k) < 0 || view.index(k) >= view.cols)
        throw InputError(where + ": row " + std::to_string(r) + " (entry " + std::to_string(k) + "): column index " +
                         std::to_string(view.index(k)) + " is outside [0, " + std::to_string(view.cols) + ")");
  HostArray a;
  a.name = name;
  a.kind = HostArray::Kind::Csr;
  a.csr = view;
  arrays_.push_back(a);
}

const HostArray* HostArrays::find(const std::string& name) const {
  for (const HostArray& a : arrays_)
    if (a.name == name) return &a;
  return nullptr;
}

void check_finite(const HostArray& a) {
  if (a.is_dense()) {
    const DenseView& v = a.dense;
    for (std::int64_t k = 0, n = v.size(); k < n; ++k) {
      if (std::isfinite(v.data[k])) continue;
      const std::string at = v.vector ? "element " + std::to_string(k)
                                      : "row " + std::to_string(k / v.cols) + ", column " + std::to_string(k % v.cols);
      throw InputError(a.where() + ": " + at + ": not a finite number (" + non_finite(v.data[k]) + ")");
    }
    return;
  }
  const CsrView& v = a.csr;
  for (std::int64_t r = 0; r < v.rows; ++r)
    for (std::int64_t k = v.ptr(r); k < v.ptr(r + 1); ++k)
      if (!std::isfinite(v.values[k]))
        throw InputError(a.where() + ": row " + std::to_string(r) + ", column " + std::to_string(v.index(k)) +
                         " (entry " + std::to_string(k) + "): not a finite number (" + non_finite(v.values[k]) + ")");
}

const HostArray& host_array(const Params& p, const std::string& key, const std::string& name, const Context& ctx) {
  const HostArray* a = ctx.arrays ? ctx.arrays->find(name) : nullptr;
  if (!a) {
    std::string passed;
    if (ctx.arrays)
      for (const HostArray& b : ctx.arrays->all()) passed += (passed.empty() ? "" : ", ") + ("\"" + b.name + "\"");
    p.fail(key, "no array named \"" + excerpt(name) + "\" was passed" +
                    (passed.empty() ? " (none was: a program passes arrays with the problem, e.g. scfw.solve(problem, "
                                                  "data={\"" + excerpt(name) + "\": array}) in Python)"
                                    : " (passed: " + passed + ")"));
  }
  check_finite(*a);
  return *a;
}

const HostArray& host_array(const Params& p, const std::string& key, const Context& ctx) {
  return host_array(p, key, p.get<std::string>(key), ctx);
}

}  // namespace scfw
