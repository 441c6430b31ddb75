// How Optuna 3.1 writes values into its RDB schema, as pure functions, so
// that studies written by hpo and by Optuna read the same in both.
#ifndef HPO_STORAGE_OPTUNA_CODEC_H_
#define HPO_STORAGE_OPTUNA_CODEC_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "samplers/distribution.h"
#include "samplers/param_value.h"

namespace hpo {

// JSON text as Python's json.dumps writes it (", " and ": " separators,
// non-ASCII escaped), the form Optuna stores in value_json columns.
std::string to_python_json(const nlohmann::json& value);
std::string to_python_json(const nlohmann::ordered_json& value);
// Parses value_json text. Also reads the bare Infinity, -Infinity and NaN
// that Python writes for non-finite floats. Throws std::invalid_argument.
nlohmann::json from_python_json(const std::string& text);

// trial_params.distribution_json, e.g. {"name": "IntDistribution",
// "attributes": {"log": false, "step": 3, "low": 1, "high": 10}}.
std::string encode_distribution(const Distribution& dist);
// Also accepts Optuna's legacy names (UniformDistribution, ...) and its
// abbreviated {"type": "float", ...} form. Throws std::invalid_argument.
Distribution decode_distribution(const std::string& text);

// A categorical choice as JSON and back: ints stay ints (64, not 64.0) so
// that Optuna sees the same Python type. Throws std::invalid_argument for
// JSON that is not null, bool, number or string.
nlohmann::json param_value_to_json(const ParamValue& value);
ParamValue param_value_from_json(const nlohmann::json& value);

// A float column with its type column: trial_values (value, value_type) and
// trial_intermediate_values (intermediate_value, intermediate_value_type).
// Infinities and NaN are stored as NULL with the type naming them.
struct EncodedValue {
  std::optional<double> value;
  std::string type;  // FINITE, INF_POS, INF_NEG or NAN
};
// NaN is only valid for intermediate values; trial values never hold it.
EncodedValue encode_value(double value);
// Throws std::invalid_argument for an unknown type or a FINITE NULL.
double decode_value(const std::optional<double>& value, const std::string& type);

// "YYYY-MM-DD HH:MM:SS.ffffff" in UTC, without a zone: what Optuna (since
// 3.2's models) stores for datetime_start and datetime_complete, so that
// hosts in different time zones write comparable times. Local time is for
// display only.
std::string format_datetime(std::chrono::system_clock::time_point time);
// The time now, as format_datetime writes it.
std::string datetime_now();

}  // namespace hpo

#endif  // HPO_STORAGE_OPTUNA_CODEC_H_
