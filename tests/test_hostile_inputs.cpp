// Hostile inputs to the file readers (issue #12): problem files that are not regular files or are
// too large, data files that are folders, data that is not finite or overflows, a price CSV
// without its header row, and huge tokens, which every message cuts to 40 bytes.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "plugin_support.hpp"
#include "scfw/core/diagnostics.hpp"
#include "scfw/core/plugin_lookup.hpp"
#include "scfw/core/problem.hpp"
#include "scfw/data_file.hpp"
#include "scfw/error.hpp"

namespace fs = std::filesystem;
using scfw::test::input_error;
using scfw::test::TempDir;
using nlohmann::json;

namespace {

template <class T>
std::string make_error(const std::string& plugin, json block, const scfw::Context& ctx = {}) {
  return input_error([&] { scfw::test::make<T>(plugin, scfw::test::params(std::move(block), "p.json", "/oracle"), ctx); });
}

}  // namespace

TEST_CASE("excerpt: short text whole, long text cut at 40 bytes with its size, control characters shown as ?") {
  CHECK(scfw::excerpt("abc") == "abc");
  CHECK(scfw::excerpt(std::string(40, 'x')) == std::string(40, 'x'));
  CHECK(scfw::excerpt(std::string(10'000'000, 'x')) == std::string(40, 'x') + "... (10000000 bytes)");
  CHECK(scfw::excerpt(std::string("a\0b\tc", 5)) == "a?b?c");
  // A two-byte UTF-8 character across the cut is left out whole.
  CHECK(scfw::excerpt(std::string(39, 'x') + "\xC3\xA9" + "yz") == std::string(39, 'x') + "... (43 bytes)");
  CHECK(scfw::diagnostics::excerpt(std::string(41, 'y')) == std::string(40, 'y') + "... (41 bytes)");
}

TEST_CASE("problem files: a folder, a character device, a FIFO and a file over 64 MiB are refused") {
  TempDir dir;
  const std::string d = dir.path.string();
  CHECK(input_error([&] { scfw::read_json_file(d); }) == d + ": is a directory");
  CHECK(input_error([&] { scfw::read_json_file("/dev/zero"); }) == "/dev/zero: is not a regular file (a character device)");
  const fs::path fifo = dir.path / "fifo.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(input_error([&] { scfw::read_json_file(fifo); }) == fifo.string() + ": is not a regular file (a FIFO)");

  // A sparse file: its size is stated without writing 64 MiB.
  const fs::path big = dir.path / "big.json";
  std::ofstream(big) << "{}";
  fs::resize_file(big, (std::uintmax_t{64} << 20) + 1);
  CHECK(input_error([&] { scfw::read_json_file(big); }) ==
        big.string() +
            ": the file has 67108865 bytes; problem and experiment files are limited to 67108864 bytes (64 MiB): put "
            "large data in a data file the plugin reads");
  // At the limit exactly, the file is read: an object followed by white space.
  {
    std::ofstream out(big, std::ios::binary | std::ios::trunc);
    out << "{\"a\": 1}" << std::string((std::size_t{64} << 20) - 8, ' ');
  }
  REQUIRE(fs::file_size(big) == (std::uintmax_t{64} << 20));
  CHECK(scfw::read_json_file(big) == json{{"a", 1}});
  fs::remove(big);
}

TEST_CASE("problem files: a duplicate key of 10 MB is cut in the message") {
  TempDir dir;
  const std::string key(10'000'000, 'k');
  const std::string file = dir.write("dup.json", "{\"a\": {\"" + key + "\": 1, \"" + key + "\": 2}}");
  CHECK(input_error([&] { scfw::read_json_file(file); }) ==
        file + ": /a/" + std::string(40, 'k') + "... (10000000 bytes): duplicate key (a JSON object names each key once)");
  const std::string root = dir.write("root.json", "{\"b\": 1, \"b\": 2}");
  CHECK(input_error([&] { scfw::read_json_file(root); }) == root + ": /b: duplicate key (a JSON object names each key once)");
  // The keys of the enclosing objects too: cut, control characters as '?' (a backspace here,
  // written \b in the file; duplicate_key_under_control.json is the fuzzer's input).
  const std::string outer = dir.write("outer.json", "{\"o\\br\": {\"" + std::string(50, 'p') + "\": {\"c\": 1, \"c\": 2}}}");
  CHECK(input_error([&] { scfw::read_json_file(outer); }) ==
        outer + ": /o?r/" + std::string(40, 'p') + "... (50 bytes)/c: duplicate key (a JSON object names each key once)");
}

TEST_CASE("an unknown plugin name of 10 MB is cut in the message") {
  const json block = {{"plugin", std::string(10'000'000, 'z')}};
  CHECK(input_error([&] { scfw::find_plugin(scfw::test::registry(), scfw::Kind::Outer, block, "p.json", "/outer"); }) ==
        "p.json: /outer/plugin: unknown outer plugin \"" + std::string(40, 'z') + "... (10000000 bytes)\"");
}

TEST_CASE("least_squares_tasks: a folder, non-finite values and a 10 MB token") {
  TempDir dir;
  const std::string d = dir.path.string();
  const json block = {{"file", d}, {"tasks", 1}};
  CHECK(make_error<scfw::Oracle>("least_squares_tasks", block) == d + ": is a directory");
  const auto lsq = [&](const std::string& name, const std::string& text) {
    return make_error<scfw::Oracle>("least_squares_tasks", {{"file", dir.write(name, text)}, {"tasks", 1}});
  };
  const std::string p1 = (dir.path / "inf.svm").string();
  CHECK(lsq("inf.svm", "1 1:1\n-1 1:1e400\n") == p1 + ":2: the value is not a finite number: \"1:1e400\"");
  const std::string p2 = (dir.path / "nan.svm").string();
  CHECK(lsq("nan.svm", "nan 1:1\n") == p2 + ":1: the label is not a finite number: \"nan\"");
  const std::string p3 = (dir.path / "huge.svm").string();
  CHECK(lsq("huge.svm", "1 1:" + std::string(10'000'000, '7') + "x\n") ==
        p3 + ":1: expected index:value, got \"1:" + std::string(38, '7') + "... (10000003 bytes)\"");
}

TEST_CASE("portfolio_returns: a folder, a file without its header row, returns that overflow, drift 1e308") {
  TempDir dir;
  const std::string d = dir.path.string();
  CHECK(make_error<scfw::Oracle>("portfolio_returns", {{"file", d}, {"groups", 1}}) == d + ": is a directory");

  const std::string headless = dir.write("headless.csv", "2020-01-02,101.5,20\n2020-01-03,102,21\n2020-01-06,103,22\n");
  CHECK(make_error<scfw::Oracle>("portfolio_returns", {{"file", headless}, {"groups", 1}}) ==
        headless + ":1: expected a header row date,<asset>,..., got a row of numbers (\"2020-01-02,101.5,20\")");

  // No date column: the first asset's prices stood where the date is read, and were dropped.
  const std::string dateless = dir.write("dateless.csv", "AAL,AAPL\n14.75,67.85\n14.46,68.56\n14.6,69\n");
  CHECK(make_error<scfw::Oracle>("portfolio_returns", {{"file", dateless}, {"groups", 1}}) ==
        dateless + ":2: column 1 (AAL) holds a number (\"14.75\") where the date is read, and that asset would be "
                   "dropped: put a column of dates first, or name the column \"date\" if it holds dates");
  // Dates written as numbers under a header that says so are dates.
  const std::string numeric_dates = dir.write("numeric_dates.csv", "Date,A,B\n20200102,1,2\n20200103,2,3\n20200106,3,4\n");
  CHECK(make_error<scfw::Oracle>("portfolio_returns", {{"file", numeric_dates}, {"groups", 1}}) == "(no InputError)");

  const std::string overflow = dir.write("overflow.csv", "date,A,B\nd1,1,1e-300\nd2,2,1e300\nd3,3,1\n");
  CHECK(make_error<scfw::Oracle>("portfolio_returns", {{"file", overflow}, {"groups", 1}}) ==
        overflow + ":3: column 3 (B): the return p_t / p_{t-1} - 1 overflows (1e+300 after 1e-300)");

  const std::string drift = make_error<scfw::Oracle>(
      "portfolio_returns", {{"synthetic", {{"assets", 2}, {"days", 5}, {"drift", 1e308}}}, {"groups", 1}});
  CHECK(drift.rfind("p.json: /oracle/synthetic/drift: the returns of asset ", 0) == 0);
  CHECK(drift.find(" overflow: their sum over days 1..") != std::string::npos);

  // Returns (not prices) that are finite one by one but whose sum over days overflows.
  const std::string sum = dir.write("sum.csv", "date,A\nd1,1e308\nd2,1e308\nd3,1\n");
  CHECK(make_error<scfw::Oracle>("portfolio_returns", {{"file", sum}, {"groups", 1}, {"prices", false}}) ==
        sum + ":3: column 2 (A): the sum of the returns up to this row overflows");
}

TEST_CASE("matrix_completion and polytope: a folder is reported as one, tokens are cut") {
  TempDir dir;
  const std::string d = dir.path.string();
  CHECK(make_error<scfw::Oracle>("matrix_completion", {{"file", d}}) == d + ": is a directory");
  const std::string ratings = dir.write("u.data", "1 1 5\n2 2 " + std::string(100, '9') + "q\n");
  CHECK(make_error<scfw::Oracle>("matrix_completion", {{"file", ratings}}) ==
        ratings + ":2: value is not a finite number: \"" + std::string(40, '9') + "... (101 bytes)\"");

  CHECK(make_error<scfw::Domain>("polytope", {{"file", d}, {"dim", 2}}, scfw::test::context(2, 1)) ==
        d + ": is a directory");
  const std::string rows = dir.write("rows.csv", "1,0,1\n0,1e999,1\n");
  CHECK(make_error<scfw::Domain>("polytope", {{"file", rows}, {"dim", 2}}, scfw::test::context(2, 1)) ==
        rows + ":2: not a finite number: \"1e999\"");
}

// Clp aborted the process (an assertion inside ClpSimplexPrimal) while bounding a polytope with a
// right-hand side of -1e308 (CI's fuzzing, tests/fuzz/regressions/polytope_csv/
// rhs_beyond_lp_limit.csv): numbers beyond the LP limit of 1e20 are refused as input.
TEST_CASE("polytope: coefficients and right-hand sides beyond 1e20 are refused before Clp sees them") {
  TempDir dir;
  const std::string rows = dir.write("rows.csv", "1,0,1\n0,1,-1e308\n");
  CHECK(make_error<scfw::Domain>("polytope", {{"file", rows}, {"dim", 2}}, scfw::test::context(2, 1)) ==
        rows + ":2: \"-1e308\" is not below 1e20 in magnitude, as an LP's coefficients and right-hand sides must "
               "be");
  const std::string big_a = dir.write("a.csv", "1e20,0,1\n");
  CHECK(make_error<scfw::Domain>("polytope", {{"file", big_a}, {"dim", 2}}, scfw::test::context(2, 1)) ==
        big_a + ":1: \"1e20\" is not below 1e20 in magnitude, as an LP's coefficients and right-hand sides must "
                "be");
  CHECK(make_error<scfw::Domain>("polytope", {{"A", {1, 0, 0, 1}}, {"b", {1, -2e20}}, {"dim", 2}},
                                 scfw::test::context(2, 1)) ==
        "p.json: /oracle/b: entry 1 = -2e+20 is not below 1e20 in magnitude, as an LP's coefficients and "
        "right-hand sides must be");
  // Just below is accepted, and its box is Clp's: [-9.99e19, 9.99e19]^2.
  auto box = scfw::test::make<scfw::Domain>(
      "polytope",
      scfw::test::params({{"A", {1, 0, -1, 0, 0, 1, 0, -1}}, {"b", {9.99e19, 9.99e19, 9.99e19, 9.99e19}}, {"dim", 2}},
                         "p.json", "/domain"),
      scfw::test::context(2, 1));
  scfw::Vec x;
  scfw::test::lmo_dense(*box, scfw::Vec::Constant(2, 1.0), x);
  CHECK(x[0] == -9.99e19);
  CHECK(x[1] == -9.99e19);
}

// The findings of the fuzz targets under the strict verdict (tests/fuzz/fuzz_support.hpp: one
// line without any control character, a location, at most 300 bytes besides the paths); each
// reproducer is also replayed from tests/fuzz/regressions/.

TEST_CASE("excerpt and show: C1 controls and the line separators are control characters too") {
  // U+0085 (NEL, which ends a line), U+009B, U+2028, U+2029; a two-byte letter stays.
  CHECK(scfw::excerpt("a\xC2\x85" "b\xC2\x9B" "c\xE2\x80\xA8" "d\xE2\x80\xA9" "e\xC3\xA9") == "a?b?c?d?e\xC3\xA9");
  CHECK(scfw::diagnostics::show(json("a\xC2\x85" "b\xE2\x80\xA8" "c\xC3\xA9")) == "\"a\\u0085b\\u2028c\xC3\xA9\"");
  // DEL, which dump() leaves as it is.
  CHECK(scfw::diagnostics::show(json("porta\x7f\x7f" "ble")) == "\"porta\\u007f\\u007fble\"");
  // The cut comes after the escapes (100 DELs: 10 escapes, not 57), and never splits a letter.
  std::string shown;
  for (int i = 0; i < 9; ++i) shown += "\\u007f";
  CHECK(scfw::diagnostics::show(json(std::string(100, '\x7f'))) == "\"" + shown + "\\u...");
  const std::string e = "\xC3\xA9";  // a two-byte letter
  CHECK(scfw::diagnostics::show(json(std::string(53, 'a') + e + e + "zzzz")) == std::string("\"").append(53, 'a') + e + "...");
  CHECK(scfw::diagnostics::show(json(std::string(56, 'a') + e + e)) == std::string("\"").append(56, 'a') + "...");
}

TEST_CASE("problem files: the token a syntax error quotes is cut and shows no control character") {
  TempDir dir;
  // A DEL and a DLE in a key (the DLE ends the string; the parser shows it as <U+0010>).
  const std::string del = dir.write("del.json", "{\"fil6\x7f\x10\": 1}");
  CHECK(input_error([&] { scfw::read_json_file(del); }) ==
        del + ": line 1, column 8: syntax error while parsing object key - invalid string: control character U+0010 "
              "(DLE) must be escaped to \\u0010; last read: '\"fil6?<U+0010>'; expected string literal");
  // A 200-byte string ended by a newline, holding the parser's own words.
  const std::string text = "x'; expected ':'" + std::string(184, 'y');
  const std::string lf = dir.write("lf.json", "{\"a\": \"" + text + "\n\"}");
  CHECK(input_error([&] { scfw::read_json_file(lf); }) ==
        lf + ": line 2, column 0: syntax error while parsing value - invalid string: control character U+000A (LF) must "
             "be escaped to \\u000A or \\n; last read: '\"x'; expected ':'" + std::string(23, 'y') +
             "... (209 bytes)'");
  // A number that overflows, 1e followed by 100 nines.
  const std::string big = dir.write("big.json", "{\"a\": 1e" + std::string(100, '9') + "}");
  CHECK(input_error([&] { scfw::read_json_file(big); }) ==
        big + ": line 1, column 108: number overflow parsing '1e" + std::string(38, '9') + "... (102 bytes)'");
}

TEST_CASE("problem files: an unknown top-level key or product key is cut to 40 bytes in the pointer") {
  const std::string key(100, '/');
  CHECK(input_error([&] { scfw::compose(scfw::test::registry(), json{{key, 1}}, "p.json", "."); }) ==
        "p.json: /" + [] { std::string s; for (int i = 0; i < 40; ++i) s += "~1"; return s; }() +
            "... (100 bytes): unknown key; expected one of \"domain\", \"glmo\", \"iterations\", \"name\", \"oracle\", "
            "\"outer\", \"output\", \"report\", \"schedule\", \"seed\", \"start\", \"stop\", \"tracker\"");
}

TEST_CASE("problem files: an unknown parameter of a plugin with many names the three closest, not all") {
  // matrix_completion's 16 names, listed whole, made a 319-byte message (many_parameters.json).
  const json block = {{std::string(76, '!'), 1}};
  CHECK(make_error<scfw::Oracle>("matrix_completion", block) ==
        "p.json: /oracle/" + std::string(40, '!') +
            "... (76 bytes): unknown parameter of matrix_completion; it has 18 parameters; closest: \"array\", "
            "\"batch\", \"by_value\"");
}

TEST_CASE("matrix_completion: huge indices are refused without overflow; an empty top_rows x top_cols cut is located") {
  TempDir dir;
  // 999909999909 x 909990990 overflowed the product of the shape (UBSan); a 0-based index of
  // 2^63 - 1 overflowed the shape itself.
  const std::string wide = dir.write("wide.data", "999909999909 909990990 1\n");
  CHECK(make_error<scfw::Oracle>("matrix_completion", {{"file", wide}}) == wide + ": rows * cols is too large");
  const std::string last = dir.write("last.data", "9223372036854775807 0 1\n");
  CHECK(make_error<scfw::Oracle>("matrix_completion", {{"file", last}, {"one_based", false}}) ==
        last + ": rows * cols is too large");
  // Row 1 has the most entries, column 3 too, but (1, 3) is not observed.
  const std::string apart = dir.write("apart.data", "1 1 1\n1 2 1\n2 3 1\n3 3 1\n4 3 1\n");
  CHECK(make_error<scfw::Oracle>("matrix_completion", {{"file", apart}, {"top_rows", 1}, {"top_cols", 1}, {"groups", 1}}) ==
        "p.json: /oracle/top_rows: no observed entry is left in the top_rows x top_cols sub-matrix");
}

TEST_CASE("penalty and fairness: one output is refused at the outer function's block") {
  CHECK(make_error<scfw::OuterFunction>("penalty", json::object(), scfw::test::context(3, 1)) ==
        "p.json: /oracle: penalty: F needs n >= 2 outputs (the loss u_0 and at least one constraint), got n = 1");
  CHECK(make_error<scfw::OuterFunction>("fairness", json::object(), scfw::test::context(3, 1)) ==
        "p.json: /oracle: fairness: F needs n >= 2 outputs (u_0 and at least one group loss), got n = 1");
}

TEST_CASE("data files: a name holding a control character is refused, shown with ?") {
  TempDir dir;
  const std::string d = dir.path.string();
  const std::string name = d + "/a\nb\xC2\x85.txt";
  for (const json& block : {json{{"plugin", "least_squares_tasks"}, {"file", name}, {"tasks", 1}},
                            json{{"plugin", "portfolio_returns"}, {"file", name}, {"groups", 1}},
                            json{{"plugin", "matrix_completion"}, {"file", name}, {"groups", 1}}}) {
    json params = block;
    params.erase("plugin");
    CHECK(make_error<scfw::Oracle>(block["plugin"].get<std::string>(), params) ==
          d + "/a?b?.txt: the file name holds a control character (shown as ?); rename the file");
  }
  CHECK(make_error<scfw::Domain>("polytope", {{"file", d + "/x\ry.csv"}, {"dim", 2}}, scfw::test::context(2, 1)) ==
        d + "/x?y.csv: the file name holds a control character (shown as ?); rename the file");
}
