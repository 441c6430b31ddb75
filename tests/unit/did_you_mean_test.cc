#include "hpo/config/did_you_mean.h"

#include <doctest/doctest.h>

namespace hpo {
namespace {

TEST_CASE("edit distance counts the usual typos as one edit") {
  CHECK(edit_distance("choices", "choices") == 0);
  CHECK(edit_distance("choises", "choices") == 1);  // substitution
  CHECK(edit_distance("choice", "choices") == 1);  // deletion
  CHECK(edit_distance("chooices", "choices") == 1);  // insertion
  CHECK(edit_distance("chioces", "choices") == 1);  // adjacent swap
  CHECK(edit_distance("Choices", "choices") == 0);  // case is ignored
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("closest_match suggests only reasonably close candidates") {
  const std::vector<std::string> keys = {"type", "low", "high", "log", "step"};
  CHECK(closest_match("hihg", keys) == "high");
  CHECK(closest_match("lw", keys) == "low");
  CHECK(closest_match("stpe", keys) == "step");
  CHECK(closest_match("maximum", keys) == std::nullopt);
  CHECK(closest_match("x", {"y"}) == std::nullopt);  // one letter, wholly different
  CHECK(closest_match("anything", {}) == std::nullopt);
}

TEST_CASE("ties go to the earlier candidate") {
  CHECK(closest_match("lox", {"low", "log"}) == "low");
  CHECK(closest_match("lox", {"log", "low"}) == "log");
}

TEST_CASE("did_you_mean formats a ready-to-append hint") {
  CHECK(did_you_mean("choises", {"type", "choices"}) == " (did you mean 'choices'?)");
  CHECK(did_you_mean("zzz", {"type", "choices"}).empty());
}

TEST_CASE("join_names lists names for messages") {
  CHECK(join_names({"random", "tpe"}) == "random, tpe");
  CHECK(join_names({"one"}) == "one");
  CHECK(join_names({}).empty());
}

}  // namespace
}  // namespace hpo
