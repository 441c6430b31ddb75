#include "hpo/storage/pg_session_bounds.h"

namespace hpo {

namespace {

// Probes after 10 s of silence, every 5 s, 3 unanswered ones drop it; data
// sent and not acknowledged for 30 s drops it too.
constexpr const char* kTcpBounds[][2] = {{"keepalives", "1"},
                                         {"keepalives_idle", "10"},
                                         {"keepalives_interval", "5"},
                                         {"keepalives_count", "3"},
                                         {"tcp_user_timeout", "30000"}};

bool sets(const std::string& query, const std::string& key) {
  for (size_t at = query.find(key + "="); at != std::string::npos;
       at = query.find(key + "=", at + 1)) {
    if (at == 0 || query[at - 1] == '&') return true;
  }
  return false;
}

}  // namespace

std::string with_tcp_bounds(const std::string& conninfo) {
  const size_t q = conninfo.find('?');
  const std::string query = q == std::string::npos ? "" : conninfo.substr(q + 1);
  std::string out = conninfo;
  for (const auto& [key, value] : kTcpBounds) {
    if (sets(query, key)) continue;
    out += (out.find('?') == std::string::npos ? "?" : "&") + std::string(key) + "=" + value;
  }
  return out;
}

void bound_session(pqxx::connection& conn) {
  pqxx::nontransaction tx(conn);
  tx.exec(std::string("SELECT set_config(name, v, false) FROM (VALUES "
                      "('idle_in_transaction_session_timeout', '") +
          kIdleInTransaction + "'), ('lock_timeout', '" + kLockTimeout +
          "')) AS s(name, v) WHERE current_setting(name) = '0'");
}

}  // namespace hpo
