// scfw._scfw: the C++ half of the Python module (docs/python.md). The package (scfw/__init__.py)
// checks the keyword options and builds the Result; this file loads the plugins once, composes a
// problem, runs the solver with the GIL released and hands back what the run produced.
//
// Python code runs only with the GIL held: the user's callback, every `callback_every`
// iterations, and the signal check (PyErr_CheckSignals, at most every kSignalPeriod of run
// time, after an iteration), which runs Python's signal handlers, so that Ctrl-C raises
// KeyboardInterrupt. An exception raised there is kept (the first one), the run ends after that
// iteration, and the exception is handed back to the package, which raises it again.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <future>
#include <iostream>
#include <thread>
#include <memory>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "scfw/compare/compare.hpp"
#include "scfw/core/checkpoint.hpp"
#include "scfw/core/diagnostics.hpp"
#include "scfw/core/format.hpp"
#include "scfw/core/memory_limit.hpp"
#include "scfw/core/plugin_check.hpp"
#include "scfw/core/run_checkpoint.hpp"
#include "scfw/core/summary_json.hpp"
#include "scfw/conformance.hpp"
#include "scfw/helpers.hpp"
#include "scfw/state.hpp"
#include "scfw/plugin.hpp"
#include "scfw/host.hpp"

#ifndef SCFW_VERSION
#define SCFW_VERSION "0"
#endif

namespace py = pybind11;
using json = nlohmann::json;

namespace {

constexpr std::chrono::milliseconds kSignalPeriod{50};

/// The plugins of the process: loaded at the first call that needs them (with the GIL held, so
/// once), then kept for the life of the process, as the libraries are. This module is one of
/// them: its folder comes first on the search path, and it registers the components that stand
/// for Python plugins (python_oracle, python_schedule).
scfw::Host& host() {
  static scfw::Host* loaded = nullptr;
  if (!loaded) {
    Dl_info self{};
    std::vector<std::filesystem::path> dirs;
    if (dladdr(reinterpret_cast<void*>(&host), &self) && self.dli_fname)
      dirs.push_back(std::filesystem::path(self.dli_fname).parent_path());
    loaded = new scfw::Host(dirs);
  }
  return *loaded;
}

/// A vector handed to NumPy without a copy: the array owns it through a capsule.
py::array_t<double> to_numpy(scfw::Vec&& v) {
  auto* owned = new scfw::Vec(std::move(v));
  py::capsule base(owned, [](void* p) { delete static_cast<scfw::Vec*>(p); });
  return py::array_t<double>({static_cast<py::ssize_t>(owned->size())}, {static_cast<py::ssize_t>(sizeof(double))},
                             owned->data(), base);
}

/// A read-only NumPy view of `v` (no copy), valid as long as `v` is.
py::array_t<double> read_only_view(const scfw::Vec& v) {
  py::capsule no_owner(&v, [](void*) {});
  py::array_t<double> a({static_cast<py::ssize_t>(v.size())}, {static_cast<py::ssize_t>(sizeof(double))}, v.data(),
                        no_owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

/// The first Python exception raised during a run (in the callback or a signal handler), with its
/// traceback attached. Touched with the GIL held only.
struct PendingError {
  py::object value;

  /// Takes the error indicator (which must be set); keeps it when it is the first.
  void capture() {
    PyObject *type = nullptr, *value_ptr = nullptr, *trace = nullptr;
    PyErr_Fetch(&type, &value_ptr, &trace);
    PyErr_NormalizeException(&type, &value_ptr, &trace);
    if (trace && value_ptr) PyException_SetTraceback(value_ptr, trace);
    py::object v = py::reinterpret_steal<py::object>(value_ptr);
    Py_XDECREF(type);
    Py_XDECREF(trace);
    if (!value && v) value = std::move(v);
  }
  /// "KeyboardInterrupt", "ValueError: bad value"
  std::string describe() const {
    if (!value) return {};
    std::string s = py::str(py::type::handle_of(value).attr("__name__"));
    std::string message = py::str(value);
    return message.empty() ? s : s + ": " + message;
  }
};

/// What the callback sees of one iteration.
struct IterationView {
  long iteration = 0, iterations = 0;
  std::optional<double> objective, gap;
  double best_gap = 0, seconds = 0, gamma = 0, beta = 0, rho = 0, glmo_value = 0;
  py::object y;
};

/// The user's Python callback, every `every` iterations: a falsy result other than None stops the
/// run (status Stopped); an exception aborts it and is kept in `error`.
class PythonCallback final : public scfw::Callback {
 public:
  PythonCallback(py::object fn, long every, PendingError& error) : fn_(std::move(fn)), every_(every), error_(error) {}

  scfw::CallbackResult on_iteration(const scfw::IterationState& s) override {
    if (s.iteration % every_ != 0) return scfw::CallbackResult::Continue;
    py::gil_scoped_acquire gil;
    IterationView view;
    view.iteration = s.iteration;
    view.iterations = s.iterations;
    if (s.has_gap) {
      view.objective = s.objective;
      view.gap = s.gap;
    }
    view.best_gap = s.best_gap;
    view.seconds = s.seconds;
    view.gamma = s.steps.gamma;
    view.beta = s.steps.beta;
    view.rho = s.steps.rho;
    view.glmo_value = s.glmo_value;
    view.y = s.y ? py::object(read_only_view(*s.y)) : py::object(py::none());
    try {
      py::object result = fn_(py::cast(std::move(view)));
      if (result.is_none()) return scfw::CallbackResult::Continue;
      const int truth = PyObject_IsTrue(result.ptr());
      if (truth < 0) throw py::error_already_set();
      if (truth) return scfw::CallbackResult::Continue;
      reason_ = "stopped by callback";
      return scfw::CallbackResult::Stop;
    } catch (py::error_already_set& e) {
      e.restore();
      error_.capture();
      reason_ = "the callback raised " + error_.describe();
      return scfw::CallbackResult::Abort;
    }
  }
  scfw::Status stop_status() const override { return scfw::Status::Stopped; }
  std::string reason() const override { return reason_; }

 private:
  py::object fn_;
  long every_;
  PendingError& error_;
  std::string reason_;
};

/// Runs Python's signal handlers (Ctrl-C: KeyboardInterrupt) after an iteration, at most every
/// kSignalPeriod; an exception they raise stops the run (status Interrupted) and is kept.
class SignalCheck final : public scfw::Callback {
 public:
  explicit SignalCheck(PendingError& error) : error_(error), last_(std::chrono::steady_clock::now()) {}
  scfw::CallbackResult on_iteration(const scfw::IterationState&) override {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < kSignalPeriod) return scfw::CallbackResult::Continue;
    last_ = now;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return scfw::CallbackResult::Continue;
    error_.capture();
    reason_ = error_.describe();
    return scfw::CallbackResult::Stop;
  }
  scfw::Status stop_status() const override { return scfw::Status::Interrupted; }
  std::string reason() const override { return reason_; }

 private:
  PendingError& error_;
  std::chrono::steady_clock::time_point last_;
  std::string reason_;
};

/// The trace file a run's options name, written as `scfw run` writes it; close() throws Error
/// when a write failed.
struct TraceFile {
  explicit TraceFile(const std::string& path) : path(path), stream(scfw::open_trace_file(path)), csv(*stream, path) {}
  void close() {
    stream->close();
    if (csv.failed()) throw scfw::Error(csv.error());
    if (stream->fail()) throw scfw::Error(path + ": cannot write the trace file" + stream->reason());
  }
  std::string path;
  std::unique_ptr<scfw::OutputFile> stream;
  scfw::TraceCsv csv;
};


// ---------------------------------------------------------------------------------------------
// Plugins written in Python. A problem names them as {"plugin": "python_oracle", "object": NAME}
// (python_domain, python_schedule)
// (the package rewrites {"plugin": NAME} so when NAME is a key of solve's `plugins`); the factory
// takes the object from the plugins of the solve running on this thread. Every call into the
// object takes the GIL; an exception it raises is kept (the solve raises it again) and ends the
// run as an scfw::Error naming the plugin and the method, to which the solver adds the iteration.

thread_local std::map<std::string, py::object>* t_plugins = nullptr;
thread_local PendingError* t_error = nullptr;

/// The plugins of the scfw.compare running now, for its worker threads (a solve's thread has
/// its own t_plugins, set even when it has none). One compare with Python plugins at a time:
/// g_compare_lock is taken without the GIL.
std::map<std::string, py::object>* g_compare_plugins = nullptr;
std::mutex g_compare_lock;

/// Sets the plugins and the error slot of the solve on this thread for its lifetime.
struct SolveScope {
  SolveScope(std::map<std::string, py::object>* plugins, PendingError* error) {
    t_plugins = plugins;
    t_error = error;
  }
  ~SolveScope() {
    t_plugins = nullptr;
    t_error = nullptr;
  }
  SolveScope(const SolveScope&) = delete;
  SolveScope& operator=(const SolveScope&) = delete;
};

/// The run's random engine as Python sees it in draw(rng): NumPy-like methods on the engine
/// itself, so that a run's samples depend on its seed alone. Valid during the call only.
struct RngView {
  scfw::Rng* rng = nullptr;
  scfw::Rng& get() const {
    if (!rng) throw scfw::Error("the rng of draw() is used after the call returned");
    return *rng;
  }
};

template <class Draw>
py::object draws(const py::object& size, Draw draw) {
  if (size.is_none()) return py::cast(draw());
  const auto n = size.cast<py::ssize_t>();
  if (n < 0) throw scfw::InputError("size: expected an integer >= 0, got " + std::to_string(n));
  py::array_t<double> out(n);
  double* p = out.mutable_data();
  for (py::ssize_t i = 0; i < n; ++i) p[i] = draw();
  return out;
}

/// Python's error indicator into the solve's slot; an scfw::Error naming the plugin and method.
/// In scfw.compare (no t_error) the exception goes no further than the message: the run fails
/// with it, as a run whose C++ plugin throws does.
[[noreturn]] void python_failed(const std::string& plugin, const char* method) {
  PendingError here;
  here.capture();
  if (t_error && !t_error->value) t_error->value = here.value;
  throw scfw::Error(plugin + ": " + method + "() raised " + here.describe());
}

/// f(), a call into a Python plugin's method; a Python exception becomes python_failed's error.
template <class F>
py::object call_plugin(const std::string& plugin, const char* method, F&& f) {
  try {
    return f();
  } catch (py::error_already_set& e) {
    e.restore();
    python_failed(plugin, method);
  }
}

py::object plugin_object(const std::string& name, const char* role) {
  const auto* plugins = t_plugins ? t_plugins : g_compare_plugins;
  if (!plugins)
    throw scfw::InputError("the Python " + std::string(role) + " \"" + name +
                           "\" is used outside scfw.solve(plugins=...) and scfw.compare(plugins=...)");
  auto it = plugins->find(name);
  if (it == plugins->end())
    throw scfw::InputError("no Python " + std::string(role) + " \"" + name + "\" in the plugins given");
  return it->second;
}

/// obj.NAME, called when it is a method, as an int.
int int_member(const py::object& obj, const std::string& plugin, const char* name) {
  if (!py::hasattr(obj, name)) throw scfw::InputError(plugin + ": a Python oracle needs `" + name + "` (an int or a method returning one)");
  py::object v = obj.attr(name);
  if (PyCallable_Check(v.ptr())) v = v();
  if (!py::isinstance<py::int_>(v)) throw scfw::InputError(plugin + ": `" + name + "` is not an int");
  const long n = v.cast<long>();
  if (n < 1) throw scfw::InputError(plugin + ": `" + name + "` is " + std::to_string(n) + ", expected >= 1");
  return static_cast<int>(n);
}

std::vector<std::string> names_member(const py::object& obj, const char* name) {
  if (!py::hasattr(obj, name)) return {};
  py::object v = obj.attr(name);
  if (PyCallable_Check(v.ptr())) v = v();
  if (v.is_none()) return {};
  return v.cast<std::vector<std::string>>();
}

/// A returned array as float64, C order, of the given shape; an Error naming the plugin, the
/// method and what was wrong, a non-finite value with its index.
py::array_t<double, py::array::c_style | py::array::forcecast> checked_array(const py::handle& value,
                                                                             const std::string& plugin,
                                                                             const char* method, const char* what,
                                                                             std::vector<py::ssize_t> shape) {
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
  if (!a) {
    PyErr_Clear();
    throw scfw::Error(plugin + ": " + method + "() returned " + what + " that is not an array of numbers");
  }
  auto show = [](const std::vector<py::ssize_t>& s) {
    std::string out = "(";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + (s.size() == 1 ? ",)" : ")");
  };
  std::vector<py::ssize_t> got(a.shape(), a.shape() + a.ndim());
  if (got != shape)
    throw scfw::Error(plugin + ": " + method + "() returned " + what + " of shape " + show(got) + ", expected " +
                      show(shape));
  const double* p = a.data();
  for (py::ssize_t i = 0; i < a.size(); ++i)
    if (!std::isfinite(p[i])) {
      std::string at = shape.size() == 2 ? "[" + std::to_string(i / shape[1]) + ", " + std::to_string(i % shape[1]) + "]"
                                         : "[" + std::to_string(i) + "]";
      throw scfw::Error(plugin + ": " + method + "() returned a non-finite value at " + what + at);
    }
  return a;
}

/// A sample of a Python oracle: whatever its draw() returned.
class PythonSample final : public scfw::Sample {
 public:
  ~PythonSample() override {
    if (value) {
      py::gil_scoped_acquire gil;
      value = py::object();
    }
  }
  py::object value;
};

class PythonOracle final : public scfw::Oracle {
 public:
  PythonOracle(const scfw::Params& p, const scfw::Context&) : name_(p.string("object")) {
    py::gil_scoped_acquire gil;
    obj_ = plugin_object(name_, "oracle");
    dim_ = int_member(obj_, name_, "dim");
    outputs_ = int_member(obj_, name_, "outputs");
    for (const char* method : {"draw", "evaluate"})
      if (!py::hasattr(obj_, method) || !PyCallable_Check(obj_.attr(method).ptr()))
        throw scfw::InputError(name_ + ": a Python oracle needs a method " + method +
                               (std::string(method) == "draw" ? "(rng)" : "(sample, x)"));
    exact_ = py::hasattr(obj_, "exact") && PyCallable_Check(obj_.attr("exact").ptr());
    variable_names_ = names_member(obj_, "variable_names");
    output_names_ = names_member(obj_, "output_names");
  }
  ~PythonOracle() override {
    py::gil_scoped_acquire gil;
    obj_ = py::object();
  }
  int dim() const override { return dim_; }
  int outputs() const override { return outputs_; }
  scfw::Capabilities capabilities() const override {
    return exact_ ? scfw::Capabilities(scfw::Capability::Exact) : scfw::Capabilities();
  }
  std::unique_ptr<scfw::Sample> make_sample() const override { return std::make_unique<PythonSample>(); }
  void draw(scfw::Rng& rng, scfw::Sample& s) const override {
    py::gil_scoped_acquire gil;
    auto& sample = static_cast<PythonSample&>(s);
    RngView view{&rng};
    py::object handle = py::cast(&view, py::return_value_policy::reference);
    try {
      sample.value = obj_.attr("draw")(handle);
    } catch (py::error_already_set& e) {
      view.rng = nullptr;
      e.restore();
      python_failed(name_, "draw");
    }
    view.rng = nullptr;
  }
  void evaluate(const scfw::Sample& s, const scfw::Vec& x, scfw::Vec* f, scfw::Jacobian* J) const override {
    py::gil_scoped_acquire gil;
    call("evaluate", obj_.attr("evaluate"), &static_cast<const PythonSample&>(s).value, x, f, J);
  }
  void exact(const scfw::Vec& x, scfw::Vec* f, scfw::Jacobian* J) const override {
    if (!exact_) return scfw::Oracle::exact(x, f, J);
    py::gil_scoped_acquire gil;
    call("exact", obj_.attr("exact"), nullptr, x, f, J);
  }
  std::vector<std::string> variable_names() const override { return variable_names_; }
  std::vector<std::string> output_names() const override { return output_names_; }

 private:
  /// method(sample, x) or method(x) -> (f, J), into the outputs asked for.
  void call(const char* method, const py::object& fn, const py::object* sample, const scfw::Vec& x, scfw::Vec* f,
            scfw::Jacobian* J) const {
    py::object result;
    try {
      py::object xv = read_only_view(x);
      result = sample ? fn(*sample, xv) : fn(xv);
    } catch (py::error_already_set& e) {
      e.restore();
      python_failed(name_, method);
    }
    if (!py::isinstance<py::tuple>(result) || py::len(result) != 2)
      throw scfw::Error(name_ + ": " + method + "() returned " + std::string(py::str(py::type::handle_of(result).attr("__name__"))) +
                        ", expected a tuple (f, J)");
    auto t = result.cast<py::tuple>();
    if (f) {
      auto a = checked_array(t[0], name_, method, "f", {outputs_});
      *f = Eigen::Map<const scfw::Vec>(a.data(), outputs_);
    }
    if (J) {
      auto a = checked_array(t[1], name_, method, "J", {outputs_, dim_});
      J->dense() = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          a.data(), outputs_, dim_);
    }
  }

  std::string name_;
  py::object obj_;
  int dim_ = 0, outputs_ = 0;
  bool exact_ = false;
  std::vector<std::string> variable_names_, output_names_;
};

class PythonSchedule final : public scfw::Schedule {
 public:
  PythonSchedule(const scfw::Params& p, const scfw::Context&) : name_(p.string("object")) {
    py::gil_scoped_acquire gil;
    obj_ = plugin_object(name_, "schedule");
    if (!py::hasattr(obj_, "at") || !PyCallable_Check(obj_.attr("at").ptr()))
      throw scfw::InputError(name_ + ": a Python schedule needs a method at(k, K) returning (gamma, beta, rho)");
  }
  ~PythonSchedule() override {
    py::gil_scoped_acquire gil;
    obj_ = py::object();
  }
  scfw::Steps at(long k, long K) const override {
    py::gil_scoped_acquire gil;
    py::object r;
    try {
      r = obj_.attr("at")(k, K);
    } catch (py::error_already_set& e) {
      e.restore();
      python_failed(name_, "at");
    }
    auto a = checked_array(r, name_, "at", "(gamma, beta, rho)", {3});
    return scfw::Steps{a.data()[0], a.data()[1], a.data()[2]};
  }
  std::string describe(long K) const override {
    py::gil_scoped_acquire gil;
    if (py::hasattr(obj_, "describe")) {
      try {
        return py::str(obj_.attr("describe")(K));
      } catch (py::error_already_set& e) {
        e.restore();
        python_failed(name_, "describe");
      }
    }
    return "Python schedule " + name_;
  }

 private:
  std::string name_;
  py::object obj_;
};

/// The model an outer function's or a domain's model() builds, as Python sees it: a handle on
/// the GLMO's Model that is valid during the call only (a handle kept past it raises instead of
/// writing into a model that is gone).
struct ModelHandle {
  scfw::Model* model = nullptr;
  scfw::Model& get() const {
    if (!model) throw scfw::Error("scfw.Model: used after the model() call that received it returned");
    return *model;
  }
};

/// The Model API's bounds: a Python float, inf and -inf included; NaN refused.
double model_bound(double v, const char* what) {
  if (std::isnan(v)) throw scfw::Error(std::string("scfw.Model: ") + what + " is NaN");
  return v;
}

/// A ModelHandle on m for one model() call; it expires with the scope, whatever Python kept.
struct ModelScope {
  explicit ModelScope(scfw::Model& m) : handle(std::make_shared<ModelHandle>(ModelHandle{&m})) {}
  ~ModelScope() { handle->model = nullptr; }
  ModelScope(const ModelScope&) = delete;
  ModelScope& operator=(const ModelScope&) = delete;
  std::shared_ptr<ModelHandle> handle;
};

/// A Python expression (scfw.Expr, int or float) into e; false for anything else.
bool as_expr(const py::handle& value, scfw::Expr& e) {
  if (py::isinstance<scfw::Expr>(value)) {
    e = value.cast<scfw::Expr>();
    return true;
  }
  if (py::isinstance<py::float_>(value) || (py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value))) {
    e = scfw::Expr(value.cast<double>());
    return true;
  }
  return false;
}

std::string type_name(const py::handle& value) { return py::str(py::type::of(value).attr("__name__")).cast<std::string>(); }

/// A domain known through its LMO and, when the object has model(m), through its LP model too
/// (built with scfw.Model as an outer function's is). Without a model the GLMO must be one that
/// works from the LMO (column_generation), as for the nuclear-norm ball.
class PythonDomain final : public scfw::Domain {
 public:
  PythonDomain(const scfw::Params& p, const scfw::Context& c) : name_(p.string("object")) {
    py::gil_scoped_acquire gil;
    obj_ = plugin_object(name_, "domain");
    dim_ = py::hasattr(obj_, "dim") ? int_member(obj_, name_, "dim") : c.dim;
    if (dim_ < 1) throw scfw::InputError(name_ + ": a Python domain needs `dim` (an int or a method returning one)");
    for (const char* method : {"lmo", "initial_point", "contains"})
      if (!py::hasattr(obj_, method) || !PyCallable_Check(obj_.attr(method).ptr()))
        throw scfw::InputError(name_ + ": a Python domain needs a method " + method +
                               (std::string(method) == "lmo" ? "(g)" : std::string(method) == "contains" ? "(x, tol)" : "()"));
    auto callable = [&](const char* method) {
      return py::hasattr(obj_, method) && PyCallable_Check(obj_.attr(method).ptr());
    };
    has_model_ = callable("model");
    saves_state_ = callable("save_state") && callable("load_state");
    if (py::hasattr(obj_, "keeps_state")) {
      const int truth = PyObject_IsTrue(obj_.attr("keeps_state").ptr());
      if (truth < 0) throw py::error_already_set();
      keeps_state_ = truth != 0;
    }
    if (py::hasattr(obj_, "shape")) {
      py::object shape = obj_.attr("shape");
      if (PyCallable_Check(shape.ptr())) shape = shape();
      if (!shape.is_none()) shape_ = shape.cast<std::vector<int>>();
    }
  }
  ~PythonDomain() override {
    py::gil_scoped_acquire gil;
    obj_ = py::object();
  }
  int dim() const override { return dim_; }
  // lp_model with model(m); saved_state with save_state() and load_state(data); a domain that
  // says it keeps state between calls (keeps_state = True) without them cannot save it: a
  // checkpoint of its run is refused, as for any plugin declaring unsaved_state.
  scfw::Capabilities capabilities() const override {
    scfw::Capabilities c;
    if (has_model_) c |= scfw::Capability::LpModel;
    if (saves_state_)
      c |= scfw::Capability::SavedState;
    else if (keeps_state_)
      c |= scfw::Capability::UnsavedState;
    return c;
  }
  // save_state() returns bytes, which the checkpoint keeps as they are; load_state(data) gets
  // them back in the resumed run's fresh object.
  void save_state(scfw::StateWriter& w) const override {
    if (!saves_state_) return scfw::Domain::save_state(w);
    std::vector<std::uint8_t> bytes;
    {
      py::gil_scoped_acquire gil;
      py::object r = call("save_state", [&] { return obj_.attr("save_state")(); });
      if (!py::isinstance<py::bytes>(r))
        throw scfw::Error(name_ + ": save_state() returned " + type_name(r) + ", expected bytes");
      const std::string data = r.cast<std::string>();
      bytes.assign(data.begin(), data.end());
    }
    w.put("python_state", bytes);
  }
  void load_state(scfw::StateReader& r) override {
    if (!saves_state_) return scfw::Domain::load_state(r);
    std::vector<std::uint8_t> bytes;
    r.get("python_state", bytes);
    py::gil_scoped_acquire gil;
    const py::bytes data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    call("load_state", [&] { return obj_.attr("load_state")(data); });
  }
  // model(m) returns the d coordinates of x as expressions (or numbers) of the variables it adds.
  std::vector<scfw::Expr> model(scfw::Model& m) const override {
    if (!has_model_) return scfw::Domain::model(m);
    py::gil_scoped_acquire gil;
    ModelScope scope(m);
    py::object r = call("model", [&] { return obj_.attr("model")(scope.handle); });
    if (!py::isinstance<py::sequence>(r) || py::isinstance<py::str>(r))
      throw scfw::Error(name_ + ": model() returned " + type_name(r) + ", expected a list of " + std::to_string(dim_) +
                        " scfw.Expr (the coordinates of x)");
    const auto seq = r.cast<py::sequence>();
    if (static_cast<int>(seq.size()) != dim_)
      throw scfw::Error(name_ + ": model() returned " + std::to_string(seq.size()) + " coordinates, expected " +
                        std::to_string(dim_));
    std::vector<scfw::Expr> xs;
    xs.reserve(seq.size());
    for (size_t j = 0; j < seq.size(); ++j) {
      py::object e = seq[j];
      if (!as_expr(e, xs.emplace_back()))
        throw scfw::Error(name_ + ": model() returned " + type_name(e) + " as coordinate " + std::to_string(j) +
                          ", expected an scfw.Expr or a number");
    }
    return xs;
  }
  // Python sees the gradient as a dense read-only array; the answer is a dense atom.
  void lmo(const scfw::Gradient& grad, scfw::Atom& s) const override {
    const scfw::Vec& g = grad.to_dense(g_);
    py::gil_scoped_acquire gil;
    s.set_dense(point(call("lmo", [&] { return obj_.attr("lmo")(read_only_view(g)); }), "lmo"));
  }
  scfw::Vec initial_point() const override {
    py::gil_scoped_acquire gil;
    return point(call("initial_point", [&] { return obj_.attr("initial_point")(); }), "initial_point");
  }
  bool contains(const scfw::Vec& x, double tol) const override {
    py::gil_scoped_acquire gil;
    py::object r = call("contains", [&] { return obj_.attr("contains")(read_only_view(x), tol); });
    const int truth = PyObject_IsTrue(r.ptr());
    if (truth < 0) python_failed(name_, "contains");
    return truth != 0;
  }
  std::vector<int> shape() const override { return shape_; }

 private:
  template <class F>
  py::object call(const char* method, F&& f) const {
    return call_plugin(name_, method, std::forward<F>(f));
  }
  scfw::Vec point(const py::object& value, const char* method) const {
    auto a = checked_array(value, name_, method, "x", {dim_});
    return Eigen::Map<const scfw::Vec>(a.data(), dim_);
  }

  std::string name_;
  py::object obj_;
  int dim_ = 0;
  bool keeps_state_ = false;
  bool has_model_ = false;
  bool saves_state_ = false;
  std::vector<int> shape_;
  mutable scfw::Vec g_;  // a sparse gradient made dense
};

/// An outer function written in Python: value(u, x) -> float and model(m, u, x) -> the expression
/// whose minimum over the variables model() adds is F(u, x), built with scfw.Model and scfw.Expr
/// (the Model API of model.hpp). The GLMO builds the model in its setup and solves it with its LP
/// engine; value() is called where the solver evaluates phi (the gap reports).
class PythonOuter final : public scfw::OuterFunction {
 public:
  PythonOuter(const scfw::Params& p, const scfw::Context&) : name_(p.string("object")) {
    py::gil_scoped_acquire gil;
    obj_ = plugin_object(name_, "outer function");
    for (const char* method : {"value", "model"})
      if (!py::hasattr(obj_, method) || !PyCallable_Check(obj_.attr(method).ptr()))
        throw scfw::InputError(name_ + ": a Python outer function needs a method " + method +
                               (std::string(method) == "value" ? "(u, x)" : "(m, u, x)"));
    traits_.formula = "F written in Python (" + name_ + ")";
    if (py::hasattr(obj_, "lipschitz")) traits_.lipschitz = number_member("lipschitz");
    if (!(traits_.lipschitz > 0.0))
      throw scfw::InputError(name_ + ": `lipschitz` is " + scfw::format_as("%g", traits_.lipschitz) +
                             ", expected a number > 0 (inf when unknown)");
    traits_.monotone = flag_member("monotone");
    traits_.subhomogeneous = flag_member("subhomogeneous");
    traits_.depends_on_x = flag_member("depends_on_x");
    if (py::hasattr(obj_, "formula")) traits_.formula = py::str(obj_.attr("formula")).cast<std::string>();
  }
  ~PythonOuter() override {
    py::gil_scoped_acquire gil;
    obj_ = py::object();
  }

  double value(const scfw::Vec& u, const scfw::Vec& x) const override {
    py::gil_scoped_acquire gil;
    py::object r = call("value", [&] { return obj_.attr("value")(read_only_view(u), read_only_view(x)); });
    const double v = PyFloat_AsDouble(r.ptr());
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      throw scfw::Error(name_ + ": value() returned " + type_name(r) + ", expected a number");
    }
    if (std::isnan(v)) throw scfw::Error(name_ + ": value() returned NaN");
    return v;
  }

  scfw::Expr model(scfw::Model& m, std::span<const scfw::Expr> u, std::span<const scfw::Expr> x) const override {
    py::gil_scoped_acquire gil;
    ModelScope scope(m);
    py::list us, xs;
    for (const auto& e : u) us.append(py::cast(e));
    for (const auto& e : x) xs.append(py::cast(e));
    py::object r = call("model", [&] { return obj_.attr("model")(scope.handle, us, xs); });
    scfw::Expr objective;
    if (!as_expr(r, objective))
      throw scfw::Error(name_ + ": model() returned " + type_name(r) + ", expected an scfw.Expr or a number");
    return objective;
  }

  scfw::OuterTraits traits() const override { return traits_; }

 private:
  template <class F>
  py::object call(const char* method, F&& f) const {
    return call_plugin(name_, method, std::forward<F>(f));
  }
  double number_member(const char* name) const {
    py::object v = obj_.attr(name);
    if (!py::isinstance<py::float_>(v) && !py::isinstance<py::int_>(v))
      throw scfw::InputError(name_ + ": `" + name + "` is not a number");
    return v.cast<double>();
  }
  bool flag_member(const char* name) const {
    if (!py::hasattr(obj_, name)) return false;
    py::object v = obj_.attr(name);
    if (!py::isinstance<py::bool_>(v)) throw scfw::InputError(name_ + ": `" + name + "` is not a bool");
    return v.cast<bool>();
  }

  std::string name_;
  py::object obj_;
  scfw::OuterTraits traits_;
};

/// scfw.Expr and scfw.Model: the Model API (model.hpp) for Python outer functions.
void bind_model_api(py::module_& m) {
  py::class_<scfw::Expr>(m, "Expr",
                         "An affine expression of a model's variables: constant + sum of coef * variable. Supports "
                         "+, - and * / by a number.")
      .def(py::init<double>(), py::arg("constant") = 0.0)
      .def_property_readonly("constant", &scfw::Expr::constant)
      .def_property_readonly("terms", &scfw::Expr::terms, "[(variable index, coefficient)]")
      .def("__add__", [](const scfw::Expr& a, const scfw::Expr& b) { return a + b; }, py::is_operator())
      .def("__add__", [](const scfw::Expr& a, double b) { return a + scfw::Expr(b); }, py::is_operator())
      .def("__radd__", [](const scfw::Expr& a, double b) { return scfw::Expr(b) + a; }, py::is_operator())
      .def("__sub__", [](const scfw::Expr& a, const scfw::Expr& b) { return a - b; }, py::is_operator())
      .def("__sub__", [](const scfw::Expr& a, double b) { return a - scfw::Expr(b); }, py::is_operator())
      .def("__rsub__", [](const scfw::Expr& a, double b) { return scfw::Expr(b) - a; }, py::is_operator())
      .def("__mul__", [](const scfw::Expr& a, double s) { return a * s; }, py::is_operator())
      .def("__rmul__", [](const scfw::Expr& a, double s) { return s * a; }, py::is_operator())
      .def("__truediv__", [](const scfw::Expr& a, double s) { return a * (1.0 / s); }, py::is_operator())
      .def("__neg__", [](const scfw::Expr& a) { return -a; })
      .def("__repr__", [](const scfw::Expr& a) {
        std::string out = "Expr(" + scfw::format_as("%.17g", a.constant());
        for (const auto& [v, c] : a.terms()) out += scfw::format_as(" %+.17g", c) + " * v" + std::to_string(v);
        return out + ")";
      });
  py::implicitly_convertible<py::float_, scfw::Expr>();
  py::implicitly_convertible<py::int_, scfw::Expr>();
  py::class_<ModelHandle, std::shared_ptr<ModelHandle>>(
      m, "Model", "The GLMO's model, handed to an outer function's model(m, u, x) and valid during that call")
      .def(
          "add_var",
          [](ModelHandle& h, double lower, double upper, const std::string& name) {
            return scfw::Expr(h.get().add_var(model_bound(lower, "lower"), model_bound(upper, "upper"), name));
          },
          py::arg("lower") = -scfw::inf, py::arg("upper") = scfw::inf, py::arg("name") = "",
          "A new variable with its bounds, as an expression")
      .def(
          "add_row",
          [](ModelHandle& h, const scfw::Expr& e, double lower, double upper) {
            h.get().add_row(e, model_bound(lower, "lower"), model_bound(upper, "upper"));
          },
          py::arg("expr"), py::arg("lower"), py::arg("upper"), "lower <= expr <= upper")
      .def("add_le", [](ModelHandle& h, const scfw::Expr& a, const scfw::Expr& b) { h.get().add_le(a, b); }, "a <= b")
      .def("add_ge", [](ModelHandle& h, const scfw::Expr& a, const scfw::Expr& b) { h.get().add_ge(a, b); }, "a >= b")
      .def("add_eq", [](ModelHandle& h, const scfw::Expr& a, const scfw::Expr& b) { h.get().add_eq(a, b); }, "a == b")
      .def(
          "add_second_order_cone",
          [](ModelHandle& h, const scfw::Expr& t, const std::vector<scfw::Expr>& xs) {
            h.get().add_second_order_cone(t, xs);
          },
          py::arg("t"), py::arg("xs"), "||xs||_2 <= t")
      .def_property_readonly("num_vars", [](const ModelHandle& h) { return h.get().num_vars(); });
}

void register_python_components(scfw::Registrar& r) {
  const std::vector<scfw::ParamSpec> params{
      scfw::ParamSpec::string("object", "the key of the object in scfw.solve(..., plugins={key: object})").require()};
  r.add<PythonOracle>("python_oracle", "an oracle written in Python (scfw.solve's plugins; docs/python.md)", params);
  r.add<PythonDomain>("python_domain",
                       "a domain written in Python, known by its LMO and its model when it has one (scfw.solve's "
                       "plugins; docs/python.md)",
                       params);
  r.add<PythonOuter>("python_outer",
                      "an outer function written in Python, with its model (scfw.solve's plugins; docs/python.md)",
                      params);
  r.add<PythonSchedule>("python_schedule", "a step-size schedule written in Python (scfw.solve's plugins; docs/python.md)",
                        params);
}

/// scfw.check_oracle: the SDK's conformance check of an oracle (unbiased samples, finite
/// differences of the exact and sampled Jacobians) run on a Python oracle at x.
py::dict check_oracle(const py::object& oracle, const py::array_t<double, py::array::c_style | py::array::forcecast>& x,
                      int samples, double z_limit, double fd_step, double fd_tolerance, unsigned long seed) {
  std::map<std::string, py::object> plugins{{"oracle", oracle}};
  PendingError error;
  SolveScope scope(&plugins, &error);
  scfw::Params params;
  params.set("object", std::string("oracle"));
  PythonOracle o(params, scfw::Context{});
  if (x.ndim() != 1 || x.shape(0) != o.dim())
    throw scfw::InputError("x: expected an array of size " + std::to_string(o.dim()));
  scfw::conformance::OracleCheckOptions options;
  options.samples = samples;
  options.z_limit = z_limit;
  options.fd_step = fd_step;
  options.fd_tolerance = fd_tolerance;
  options.seed = seed;
  const scfw::Vec at = Eigen::Map<const scfw::Vec>(x.data(), x.shape(0));
  scfw::conformance::Report report;
  try {
    py::gil_scoped_release release;
    report = scfw::conformance::check_oracle(o, at, options);
  } catch (const scfw::Error&) {
    if (error.value) {
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.value.ptr())), error.value.ptr());
      throw py::error_already_set();
    }
    throw;
  }
  py::dict d;
  d["ok"] = report.ok;
  d["max_error"] = report.max_error;
  d["message"] = report.message;
  return d;
}

py::object optional_names(const std::vector<std::string>& names) {
  if (names.empty()) return py::none();
  return py::cast(names);
}

std::string plugins_json() {
  json out = json::array();
  for (const auto* c : scfw::sorted_components(host().registry())) out.push_back(scfw::plugin_json(*c));
  return out.dump();
}

/// The plugins called `name`, in the order of a problem file's roles.
std::string describe_json(const std::string& name) {
  json out = json::array();
  for (const auto* c : scfw::sorted_components(host().registry()))
    if (c->info.name == name) out.push_back(scfw::plugin_json(*c));
  return out.dump();
}

std::vector<std::string> closest_plugin_names(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& c : host().registry().components()) names.push_back(c.info.name);
  return scfw::closest_names(name, names, 3);
}

py::dict solve_in_scope(scfw::Host& h, PendingError& error, const std::string& problem, bool is_file,
                        const std::string& source, const std::string& base_dir, const py::dict& options,
                        const py::object& callback, long callback_every, double progress,
                        const py::object& start_values, bool compose_only, const py::list& data);

/// The arrays of solve(data=...) as the SDK's views (host_arrays.hpp), without copying: the
/// package has made each a C-contiguous float64 array (CSR: indptr and indices of one integer
/// type, int32 or int64) and keeps them alive for the solve. Each item of `data` is
/// (name, "dense", array) or (name, "csr", indptr, indices, values, rows, cols).
std::shared_ptr<const scfw::HostArrays> host_arrays(const py::list& data) {
  if (data.empty()) return nullptr;
  auto table = std::make_shared<scfw::HostArrays>();
  const auto doubles = [](const py::handle& h, const std::string& name) {
    if (!py::isinstance<py::array_t<double, py::array::c_style>>(h))
      throw scfw::Error("data \"" + name + "\": the package passed an array that is not C-contiguous float64");
    return py::reinterpret_borrow<py::array>(h);
  };
  for (const py::handle item : data) {
    const py::tuple t = py::reinterpret_borrow<py::tuple>(item);
    const std::string name = t[0].cast<std::string>();
    if (t[1].cast<std::string>() == "dense") {
      const py::array a = doubles(t[2], name);
      scfw::DenseView v;
      v.data = static_cast<const double*>(a.data());
      v.rows = a.ndim() >= 1 ? a.shape(0) : 1;
      v.cols = a.ndim() == 2 ? a.shape(1) : 1;
      v.vector = a.ndim() == 1;
      table->add(name, v);
    } else {
      const py::array indptr = py::reinterpret_borrow<py::array>(t[2]), indices = py::reinterpret_borrow<py::array>(t[3]);
      const py::array values = doubles(t[4], name);
      scfw::CsrView v;
      v.index_bytes = static_cast<int>(indptr.itemsize());
      if (indices.itemsize() != indptr.itemsize() || !(indptr.flags() & py::array::c_style) ||
          !(indices.flags() & py::array::c_style))
        throw scfw::Error("data \"" + name + "\": the package passed CSR indices of two widths");
      v.indptr = indptr.data();
      v.indices = indices.data();
      v.values = static_cast<const double*>(values.data());
      v.rows = t[5].cast<std::int64_t>();
      v.cols = t[6].cast<std::int64_t>();
      if (indptr.size() != v.rows + 1)
        throw scfw::InputError("data \"" + name + "\": indptr has " + std::to_string(indptr.size()) + " entries, expected rows + 1 = " +
                               std::to_string(v.rows + 1));
      if (v.rows >= 0 && indptr.size() > 0) {
        const std::int64_t nnz = v.index_bytes == 4 ? static_cast<const std::int32_t*>(v.indptr)[v.rows]
                                                    : static_cast<const std::int64_t*>(v.indptr)[v.rows];
        if (indices.size() != nnz || values.size() != nnz)
          throw scfw::InputError("data \"" + name + "\": indptr[-1] is " + std::to_string(nnz) + " but there are " +
                                 std::to_string(indices.size()) + " indices and " + std::to_string(values.size()) + " values");
      }
      table->add(name, v);
    }
  }
  return table;
}

/// One solve. `problem` is a file's path (is_file) or a JSON document's text; `options` holds the
/// keyword options the package has checked, by their Python names. Returns a dict of what the
/// run produced; "error" is the exception a callback or a signal handler raised (or None).
py::dict solve(const std::string& problem, bool is_file, const std::string& source, const std::string& base_dir,
               const py::dict& options, const py::object& callback, long callback_every, double progress,
               const py::object& start_values, const py::dict& python_plugins, bool compose_only, const py::list& data) {
  scfw::Host& h = host();
  PendingError error;
  std::map<std::string, py::object> plugins;
  for (auto [key, value] : python_plugins) plugins[key.cast<std::string>()] = py::reinterpret_borrow<py::object>(value);
  SolveScope scope(&plugins, &error);
  try {
    return solve_in_scope(h, error, problem, is_file, source, base_dir, options, callback, callback_every, progress,
                          start_values, compose_only, data);
  } catch (const scfw::Error& e) {
    // A Python plugin raised: its own exception goes on, with where it happened as a note.
    if (!error.value) throw;
    if (py::hasattr(error.value, "add_note")) error.value.attr("add_note")(std::string("scfw: ") + e.what());
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.value.ptr())), error.value.ptr());
    throw py::error_already_set();
  }
}

/// scfw.check: `scfw check`'s conformance checks (plugin_check.hpp) on the problem's plugins,
/// Python ones included. A failed check is a verdict in the list; an exception a Python plugin
/// raised goes on as in solve().
py::list check_problem(const std::string& problem, bool is_file, const std::string& source,
                       const std::string& base_dir, const py::dict& python_plugins, const py::list& data) {
  scfw::Host& h = host();
  scfw::Overrides overrides;
  overrides.arrays = host_arrays(data);
  PendingError error;
  std::map<std::string, py::object> plugins;
  for (auto [key, value] : python_plugins) plugins[key.cast<std::string>()] = py::reinterpret_borrow<py::object>(value);
  SolveScope scope(&plugins, &error);
  std::vector<scfw::PluginCheck> checks;
  try {
    const json doc = is_file ? scfw::read_json_file(problem) : scfw::parse_json_text(problem, source);
    py::gil_scoped_release release;
    checks = scfw::check_plugins(h.registry(), doc, source, base_dir, overrides);
  } catch (const scfw::Error& e) {
    if (!error.value) throw;
    if (py::hasattr(error.value, "add_note")) error.value.attr("add_note")(std::string("scfw: ") + e.what());
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.value.ptr())), error.value.ptr());
    throw py::error_already_set();
  }
  py::list out;
  for (const auto& c : checks) {
    py::dict d;
    d["role"] = c.role;
    d["plugin"] = c.plugin;
    d["check"] = c.name;
    d["verdict"] = c.verdict == scfw::PluginCheck::Verdict::Pass   ? "pass"
                   : c.verdict == scfw::PluginCheck::Verdict::Fail ? "fail"
                                                                   : "skipped";
    d["discrepancy"] = c.discrepancy;
    d["allowed"] = c.allowed;
    d["detail"] = c.detail;
    d["line"] = scfw::format_check(c);
    out.append(d);
  }
  return out;
}

/// The plugin objects of `c` whose state a checkpoint cannot hold (unsaveable_state), a Python
/// domain named with its object's key: "domain python_domain (the Python object \"walk\")".
std::string unsaveable(const scfw::Composition& c, const json& doc) {
  std::string which = scfw::unsaveable_state(c);
  const std::string plain = "domain python_domain";
  const auto at = which.find(plain);
  if (at == std::string::npos || !doc.contains("domain") || !doc["domain"].is_object()) return which;
  const json& block = doc["domain"];
  if (block.value("plugin", "") == "python_domain" && block.contains("object") && block["object"].is_string())
    which.insert(at + plain.size(), " (the Python object \"" + block["object"].get<std::string>() + "\")");
  return which;
}

/// A trace continued from a checkpoint's rows: no header of its own, a row per report.
class ContinuedTrace final : public scfw::Callback {
 public:
  ContinuedTrace(std::ostream& out, const std::string& saved) : csv_(out) {
    out << (saved.empty() ? std::string(scfw::kTraceHeader) + "\n" : saved);
  }
  scfw::CallbackResult on_iteration(const scfw::IterationState& s) override { return csv_.on_iteration(s); }

 private:
  scfw::TraceCsv csv_;
};

py::dict solve_in_scope(scfw::Host& h, PendingError& error, const std::string& problem, bool is_file,
                        const std::string& source, const std::string& base_dir, const py::dict& options,
                        const py::object& callback, long callback_every, double progress,
                        const py::object& start_values, bool compose_only, const py::list& data) {
  auto has = [&](const char* key) { return options.contains(key) && !options[key].is_none(); };
  scfw::Overrides overrides;
  overrides.arrays = host_arrays(data);
  if (has("iterations")) overrides.iterations = options["iterations"].cast<long>();
  if (has("seed")) overrides.seed = options["seed"].cast<std::uint64_t>();
  if (has("trace")) overrides.trace = options["trace"].cast<std::string>();
  if (has("gap_tolerance")) overrides.gap_tolerance = options["gap_tolerance"].cast<double>();
  if (has("time_limit")) overrides.time_limit = options["time_limit"].cast<double>();
  std::optional<std::uint64_t> limit;
  if (has("memory_limit")) {
    py::object m = options["memory_limit"];
    limit = py::isinstance<py::str>(m) ? scfw::parse_size(m.cast<std::string>(), "memory_limit")
                                       : m.cast<std::uint64_t>();
  }
  overrides.memory = scfw::memory_account(limit);
  scfw::OutputOverrides output_overrides;
  if (has("solution")) output_overrides.solution = options["solution"].cast<std::string>();
  if (has("summary_json")) output_overrides.summary_json = options["summary_json"].cast<std::string>();
  if (has("start")) output_overrides.start = options["start"].cast<std::string>();
  if (has("best_iterate")) output_overrides.best_iterate = options["best_iterate"].cast<bool>();
  if (progress > 0) output_overrides.progress = progress;
  if (has("report_every")) overrides.report_every = options["report_every"].cast<long>();

  // Reading and composing (data files included) need no Python: other threads run meanwhile.
  const std::string checkpoint_file = has("checkpoint") ? options["checkpoint"].cast<std::string>() : "";
  const std::string resume_file = has("resume") ? options["resume"].cast<std::string>() : "";
  const long checkpoint_every = has("checkpoint_every") ? options["checkpoint_every"].cast<long>() : 0;
  const double checkpoint_seconds = has("checkpoint_seconds") ? options["checkpoint_seconds"].cast<double>()
                                    : checkpoint_every > 0 ? 0.0
                                                           : 60.0;
  std::optional<scfw::Composition> composed;
  scfw::OutputOptions outputs;
  json doc;
  {
    py::gil_scoped_release release;
    doc = is_file ? scfw::read_json_file(problem) : scfw::parse_json_text(problem, source);
    outputs = scfw::read_output_options(doc, source, base_dir, output_overrides);
    composed.emplace(h.compose(doc, source, base_dir, overrides));
  }
  scfw::Composition& c = *composed;
  const scfw::SolverOptions& run_options = c.options;
  std::optional<scfw::RunCheckpoint> checkpoint;
  if (!compose_only) {
    // Before anything is written, as `scfw run` checks: no output replaces an input or another
    // output; a run resumed from CK may checkpoint to CK again.
    const std::vector<scfw::RunPath> written{
        {"trace", run_options.trace}, {"solution", outputs.solution}, {"summary", outputs.summary_json}};
    std::vector<scfw::RunPath> all_written = written;
    all_written.push_back({"checkpoint", checkpoint_file});
    scfw::check_outputs(all_written, {{"the problem file", is_file ? problem : ""}, {"the start point", outputs.start}});
    scfw::check_outputs(written, {{"the checkpoint being resumed", resume_file}});
    py::gil_scoped_release release;  // reads every data file once more, to fingerprint it
    // The options are `scfw run`'s, checked by the package with the same messages.
    checkpoint.emplace(h.registry(), doc, c, SCFW_VERSION,
                       scfw::CheckpointRequest{checkpoint_file, resume_file, checkpoint_every, checkpoint_seconds},
                       [&doc](const scfw::Composition& composed) { return unsaveable(composed, doc); });
  }
  const bool resumed = checkpoint && checkpoint->resumed();
  scfw::Solver solver(c, run_options);
  // A resumed run continues from its checkpoint's y: the problem's "start" is not applied.
  if (!resumed && !start_values.is_none()) {
    auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(start_values);
    if (!a || a.ndim() != 1) throw scfw::InputError("start: expected a one-dimensional array of numbers");
    scfw::Labelled start;
    start.values = Eigen::Map<const scfw::Vec>(a.data(), a.shape(0));
    solver.set_start(scfw::check_start(c.problem, start, "start"));
  } else if (!resumed && !outputs.start.empty()) {
    solver.set_start(scfw::check_start(c.problem, scfw::read_solution_x(outputs.start), outputs.start));
  }
  if (compose_only) {  // scfw.validate: what `scfw validate` prints
    py::dict d;
    py::list roles;
    for (const auto& [role, name] : c.plugins()) roles.append(py::make_tuple(role, name));
    d["plugins"] = roles;
    d["dim"] = c.problem.dim();
    d["outputs"] = c.problem.outputs();
    d["memory_bytes"] = c.method.memory.held();
    d["notes"] = c.notes();
    return d;
  }

  // The callbacks, in the order of `scfw run`: the traces (a resumed run's start as the
  // checkpoint's rows), the best iterate, the progress, then the user's callback, the signal
  // check and the checkpoint's capture of the trace.
  std::ostringstream trace_text;
  std::optional<scfw::TraceCsv> trace;
  std::optional<ContinuedTrace> continued;
  if (resumed)
    solver.add_callback(continued.emplace(trace_text, checkpoint->resumed_trace()));
  else
    solver.add_callback(trace.emplace(trace_text));
  std::optional<TraceFile> trace_file;
  std::unique_ptr<scfw::ResumedTrace> resumed_trace_file;
  if (!run_options.trace.empty() && resumed) {
    resumed_trace_file = std::make_unique<scfw::ResumedTrace>(run_options.trace, checkpoint->resumed_trace());
    solver.add_callback(*resumed_trace_file);
  } else if (!run_options.trace.empty()) {
    solver.add_callback(trace_file.emplace(run_options.trace).csv);
  }
  scfw::BestIterate best;
  if (outputs.best_iterate) solver.add_callback(best);
  std::unique_ptr<scfw::Callback> progress_report;
  if (progress < 0 && isatty(STDERR_FILENO))
    progress_report = std::make_unique<scfw::ProgressLine>(std::cerr, 0.1, run_options.time_limit);
  else if (progress != 0 || outputs.progress > 0)
    progress_report = std::make_unique<scfw::ProgressLog>(std::cerr, outputs.progress > 0 ? outputs.progress : 1.0,
                                                          run_options.time_limit);
  if (progress_report) solver.add_callback(*progress_report);
  std::unique_ptr<PythonCallback> python_callback;
  if (!callback.is_none()) {
    python_callback = std::make_unique<PythonCallback>(callback, callback_every, error);
    solver.add_callback(*python_callback);
  }
  SignalCheck signals(error);
  solver.add_callback(signals);
  checkpoint->attach(solver);

  scfw::Summary summary;
  {
    py::gil_scoped_release release;
    summary = solver.run();
  }
  if (trace_file) trace_file->close();
  if (resumed_trace_file) resumed_trace_file->finish();

  py::dict out;
  const bool failed = summary.status == scfw::Status::Failed;
  std::optional<scfw::Solution> solution;
  if (!failed) {
    py::gil_scoped_release release;
    solution = scfw::make_solution(c.problem, summary, outputs.best_iterate ? &best : nullptr);
    if (!outputs.solution.empty()) scfw::write_solution(outputs.solution, *solution);
  }
  const json summary_json =
      scfw::to_json(summary, scfw::describe_run(h.registry(), c.problem, c.method, run_options, SCFW_VERSION));
  if (!failed && !outputs.summary_json.empty()) scfw::write_json_file(outputs.summary_json, summary_json);

  out["status"] = scfw::status_token(summary.status);
  out["reason"] = summary.reason;
  out["message"] = summary.message;
  out["iterations"] = summary.iterations;
  out["seconds"] = summary.seconds;
  out["gap"] = summary.has_gap ? py::object(py::float_(summary.final_gap)) : py::object(py::none());
  out["best_gap"] = summary.has_gap ? py::object(py::float_(summary.best_gap)) : py::object(py::none());
  out["objective"] = solution && solution->has_objective ? py::object(py::float_(solution->objective))
                     : summary.has_gap && summary.gap_iteration == summary.iterations
                         ? py::object(py::float_(summary.final_objective))
                         : py::object(py::none());
  out["x_names"] = solution ? optional_names(solution->x.names) : py::object(py::none());
  out["shape"] = solution && !solution->shape.empty() ? py::object(py::tuple(py::cast(solution->shape)))
                                                      : py::object(py::none());
  out["f"] = solution && solution->has_f ? py::object(to_numpy(std::move(solution->f.values))) : py::object(py::none());
  out["f_names"] = solution && solution->has_f ? optional_names(solution->f.names) : py::object(py::none());
  if (solution && solution->has_best) {
    out["best_x"] = to_numpy(std::move(solution->best.values));
    out["best_iteration"] = solution->best_iteration;
  } else {
    out["best_x"] = py::none();
    out["best_iteration"] = py::none();
  }
  out["y"] = to_numpy(std::move(summary.y));
  if (summary.factors.active()) {
    // (coef, U, V): y = U diag(coef) V^T, the columns in use.
    const scfw::Factors& F = summary.factors;
    const py::ssize_t r = F.count();
    py::array_t<double> coef(r), U({static_cast<py::ssize_t>(F.rows()), r}), V({static_cast<py::ssize_t>(F.cols()), r});
    auto c = coef.mutable_unchecked<1>();
    auto u = U.mutable_unchecked<2>();
    auto v = V.mutable_unchecked<2>();
    for (int a = 0; a < F.count(); ++a) {
      c(a) = F.coef(a);
      for (int i = 0; i < F.rows(); ++i) u(i, a) = F.u(a)[i];
      for (int j = 0; j < F.cols(); ++j) v(j, a) = F.v(a)[j];
    }
    out["factors"] = py::make_tuple(coef, U, V);
  } else {
    out["factors"] = py::none();
  }
  out["trace_csv"] = trace_text.str();
  out["summary_json"] = summary_json.dump();
  std::string report = summary.full();
  if (const std::string lines = checkpoint->summary(); !lines.empty())
    report += (report.ends_with('\n') ? "" : "\n") + lines;
  out["report"] = report;
  out["brief"] = summary.brief();
  out["error"] = error.value ? error.value : py::object(py::none());
  return out;
}

/// `scfw compare`: every (method, seed, K) of an experiment (a file's path or a JSON document's
/// text) on `jobs` worker threads, its files written to `out` ("": the experiment's "out", else
/// compare-<stem>). The calling thread waits without the GIL and checks Python's signals every
/// kSignalPeriod: an exception there (Ctrl-C) stops the runs and is handed back as "error".
py::dict compare(const std::string& experiment, bool is_file, const std::string& source, const std::string& base_dir,
                 unsigned jobs, const std::string& out, bool plots, bool progress, const py::dict& python_plugins,
                 const py::list& data) {
  scfw::Host& h = host();
  std::shared_ptr<const scfw::HostArrays> arrays = host_arrays(data);
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  // With Python plugins the runs go one after the other on one worker: every worker would call
  // the same Python objects (a C++ plugin is composed once per worker), and under the GIL.
  std::map<std::string, py::object> plugins;
  for (auto [key, value] : python_plugins) plugins[key.cast<std::string>()] = py::reinterpret_borrow<py::object>(value);
  if (!plugins.empty()) jobs = 1;
  std::unique_lock<std::mutex> python_compare(g_compare_lock, std::defer_lock);
  if (!plugins.empty()) {
    py::gil_scoped_release release;
    python_compare.lock();
  }
  struct CompareScope {
    explicit CompareScope(std::map<std::string, py::object>* p) : on(p != nullptr) {
      if (on) g_compare_plugins = p;
    }
    ~CompareScope() {
      if (on) g_compare_plugins = nullptr;
    }
    bool on;
  } scope(plugins.empty() ? nullptr : &plugins);
  std::optional<scfw::Experiment> e;
  {
    py::gil_scoped_release release;
    if (is_file) {
      e.emplace(scfw::load_experiment(h.registry(), experiment));
    } else {
      e.emplace(scfw::parse_experiment(h.registry(), scfw::parse_json_text(experiment, source), source, base_dir));
    }
    const size_t runs = e->methods.size() * e->seeds.size() * e->budgets.size();
    e->memory = scfw::memory_account(std::nullopt, static_cast<unsigned>(std::clamp<size_t>(runs, 1, jobs)));
    e->arrays = arrays;
    scfw::compare_check(h.registry(), *e);
  }
  scfw::CompareOptions options;
  options.jobs = jobs;
  options.plots = plots;
  options.out = !out.empty() ? std::filesystem::path(out)
                : !e->out.empty() ? std::filesystem::path(e->out)
                                  : std::filesystem::path("compare-" + std::filesystem::path(source).stem().string());
  std::atomic<bool> stop{false};
  options.stop_requested = [&stop] { return stop.load(std::memory_order_relaxed); };
  if (progress)
    options.on_progress = [](size_t done, size_t total) {
      std::fprintf(stderr, "compare: %zu/%zu runs done\n", done, total);
      std::fflush(stderr);
    };
  PendingError error;
  scfw::CompareResult result;
  {
    py::gil_scoped_release release;
    auto running = std::async(std::launch::async, [&] { return scfw::run_compare(h.registry(), *e, options); });
    while (running.wait_for(kSignalPeriod) != std::future_status::ready) {
      if (stop.load()) continue;
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) {
        error.capture();
        stop.store(true);
      }
    }
    result = running.get();
  }
  py::list failures;
  for (const auto& r : result.runs)
    if (!r.ok && !r.error.empty())
      failures.append(py::dict(py::arg("method") = e->methods[r.method].label, py::arg("K") = r.K,
                               py::arg("seed") = r.seed, py::arg("error") = r.error));
  py::dict d;
  d["out"] = std::filesystem::absolute(options.out).string();
  d["table"] = scfw::format_compare_table(result);
  d["failures"] = failures;
  d["interrupted"] = result.interrupted;
  d["plot_warning"] = result.plot_warning;
  d["error"] = error.value ? error.value : py::object(py::none());
  return d;
}

}  // namespace

SCFW_PLUGIN("python", SCFW_VERSION, register_python_components)

PYBIND11_MODULE(_scfw, m) {
  m.doc() = "scfw's C++ side; use the package scfw";
  m.attr("__version__") = SCFW_VERSION;
  // Registered base first: pybind11 tries the translators newest first, so InputError, a
  // scfw::Error too, gets its own type.
  static py::exception<scfw::Error> solver_error(m, "SolverError", PyExc_RuntimeError);
  static py::exception<scfw::InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const scfw::InputError& e) {
      PyErr_SetString(input_error.ptr(), e.what());
    } catch (const scfw::Error& e) {
      PyErr_SetString(solver_error.ptr(), e.what());
    } catch (const json::exception& e) {
      PyErr_SetString(input_error.ptr(), (std::string("problem: ") + e.what()).c_str());
    }
  });

  bind_model_api(m);
  py::class_<IterationView>(m, "IterationState",
                            "What a callback sees after an iteration; y is a read-only view valid during the call")
      .def_readonly("iteration", &IterationView::iteration, "iterations done: y is y_iteration")
      .def_readonly("iterations", &IterationView::iterations, "K")
      .def_readonly("objective", &IterationView::objective, "phi(y) when a gap was reported here, else None")
      .def_readonly("gap", &IterationView::gap, "the generalized Frank-Wolfe gap when reported here, else None")
      .def_readonly("best_gap", &IterationView::best_gap, "the smallest gap reported so far (inf before the first)")
      .def_readonly("seconds", &IterationView::seconds, "wall time since the run began")
      .def_readonly("gamma", &IterationView::gamma)
      .def_readonly("beta", &IterationView::beta)
      .def_readonly("rho", &IterationView::rho)
      .def_readonly("glmo_value", &IterationView::glmo_value)
      .def_readonly("y", &IterationView::y, "y_iteration: a read-only view, valid during the call (copy it to keep it)")
      .def("__repr__", [](const IterationView& v) {
        return "IterationState(iteration=" + std::to_string(v.iteration) + "/" + std::to_string(v.iterations) +
               (v.gap ? ", gap=" + scfw::format_number(*v.gap, 6) : std::string()) + ")";
      });

  m.def("plugins_json", &plugins_json, "every plugin found, as `scfw plugins --json` (JSON text)");
  m.def("describe_json", &describe_json, py::arg("name"), "the plugins called name (JSON text)");
  m.def("closest_plugin_names", &closest_plugin_names, py::arg("name"));
  m.def("solve", &solve, py::arg("problem"), py::arg("is_file"), py::arg("source"), py::arg("base_dir"),
        py::arg("options"), py::arg("callback"), py::arg("callback_every"), py::arg("progress"),
        py::arg("start_values"), py::arg("plugins"), py::arg("compose_only"), py::arg("data") = py::list());
  py::class_<RngView>(m, "Rng", "the run's random engine in a Python oracle's draw(rng); valid during the call")
      .def("integers", [](const RngView& r, std::int64_t low, std::int64_t high, const py::object& size) -> py::object {
             if (high <= low) throw scfw::InputError("integers: expected low < high");
             std::uniform_int_distribution<std::int64_t> pick(low, high - 1);
             if (size.is_none()) return py::cast(pick(r.get()));
             const auto n = size.cast<py::ssize_t>();
             py::array_t<std::int64_t> out(n);
             for (py::ssize_t i = 0; i < n; ++i) out.mutable_data()[i] = pick(r.get());
             return out;
           }, py::arg("low"), py::arg("high"), py::arg("size") = py::none(),
           "integers in [low, high), drawn as std::uniform_int_distribution<int64_t>(low, high - 1) on the run's engine")
      .def("uniform", [](const RngView& r, double low, double high, const py::object& size) {
             std::uniform_real_distribution<double> u(low, high);
             return draws(size, [&] { return u(r.get()); });
           }, py::arg("low") = 0.0, py::arg("high") = 1.0, py::arg("size") = py::none())
      .def("normal", [](const RngView& r, double loc, double scale, const py::object& size) {
             std::normal_distribution<double> g(loc, scale);
             return draws(size, [&] { return g(r.get()); });
           }, py::arg("loc") = 0.0, py::arg("scale") = 1.0, py::arg("size") = py::none());
  m.def("check", &check_problem, py::arg("problem"), py::arg("is_file"), py::arg("source"), py::arg("base_dir"),
        py::arg("plugins"), py::arg("data") = py::list());
  m.def("check_oracle", &check_oracle, py::arg("oracle"), py::arg("x"), py::arg("samples"), py::arg("z_limit"),
        py::arg("fd_step"), py::arg("fd_tolerance"), py::arg("seed"));
  m.def("compare", &compare, py::arg("experiment"), py::arg("is_file"), py::arg("source"), py::arg("base_dir"),
        py::arg("jobs"), py::arg("out"), py::arg("plots"), py::arg("progress"), py::arg("plugins"),
        py::arg("data") = py::list());
}
