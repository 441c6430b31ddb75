#include "hpo/storage/retry_budget.h"

#include <cstdlib>

#include "hpo/storage/storage.h"

namespace hpo {

namespace {
constexpr long kMaxSeconds = 24 * 3600;
}

std::chrono::seconds parse_retry_budget(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 6 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stol(text) > kMaxSeconds) {
    throw StorageError("HPO_DB_RETRY_SECONDS='" + text +
                       "': expected whole seconds from 0 to 86400 (default " +
                       std::to_string(kDefaultRetryBudget.count()) + ")");
  }
  return std::chrono::seconds(std::stol(text));
}

std::chrono::seconds retry_budget() {
  const char* env = std::getenv("HPO_DB_RETRY_SECONDS");
  return env ? parse_retry_budget(env) : kDefaultRetryBudget;
}

}  // namespace hpo
