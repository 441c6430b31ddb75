#include "hpo/run/owner.h"

#include <unistd.h>

#include "hpo/launch/proc_stat.h"

namespace hpo {

nlohmann::json Owner::to_json() const {
  return {{"host", host}, {"pid", pid}, {"start_ticks", start_ticks}};
}

Owner Owner::from_json(const nlohmann::json& j) {
  Owner o;
  if (!j.is_object()) return o;
  if (j.contains("host") && j["host"].is_string()) o.host = j["host"];
  if (j.contains("pid") && j["pid"].is_number_integer()) o.pid = j["pid"];
  if (j.contains("start_ticks") && j["start_ticks"].is_number_integer())
    o.start_ticks = j["start_ticks"];
  return o;
}

Owner current_owner() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  Owner o;
  o.host = host;
  o.pid = ::getpid();
  o.start_ticks = process_start_ticks(o.pid);
  return o;
}

int64_t process_start_ticks(int64_t pid) {
  const auto stat = read_proc_stat(pid);
  return stat ? stat->start_ticks : -1;
}

bool owner_is_dead(const Owner& owner) {
  if (owner.pid <= 0 || owner.host.empty() || owner.host != current_owner().host) return false;
  const int64_t ticks = process_start_ticks(owner.pid);
  return ticks < 0 || ticks != owner.start_ticks;
}

}  // namespace hpo
