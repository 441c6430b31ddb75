#include "samplers/param_value.h"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

namespace hpo {
namespace {

TEST_CASE("to_string gives the shortest text that reads back exactly") {
  CHECK(to_string(ParamValue(0.1)) == "0.1");
  CHECK(to_string(ParamValue(5e-6)) == "5e-06");
  CHECK(std::stod(to_string(ParamValue(0.07582043400037158))) == 0.07582043400037158);
  CHECK(to_string(ParamValue(int64_t{64})) == "64");
  CHECK(to_string(ParamValue(true)) == "true");
  CHECK(to_string(ParamValue(std::monostate{})) == "null");
  CHECK(to_string(ParamValue(std::string("relu"))) == "relu");
}

TEST_CASE("short forms keep four significant digits") {
  CHECK(short_number(0.07582043400037158) == "0.07582");
  CHECK(short_number(2.7862622682047426e-05) == "2.786e-05");
  CHECK(short_number(-INFINITY) == "-inf");
  CHECK(short_number(NAN) == "nan");
  CHECK(to_short_string(ParamValue(int64_t{123456})) == "123456");  // ints stay whole
}

TEST_CASE("as_double accepts numbers only") {
  CHECK(as_double(ParamValue(int64_t{3})) == 3.0);
  CHECK_THROWS_AS(as_double(ParamValue(std::string("3"))), std::invalid_argument);
}

}  // namespace
}  // namespace hpo
