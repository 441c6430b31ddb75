#include "hpo/run/owner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include "hpo/launch/proc_stat.h"

namespace hpo {

namespace {

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// The namespace's device and inode, as `stat -L /proc/self/ns/pid` shows
// them: the pair names it for as long as the machine is up.
std::string pid_namespace() {
  struct stat st;
  if (::stat("/proc/self/ns/pid", &st) != 0) return "";
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

std::string random_worker_id() {
  std::random_device rd;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  return buf;
}

Owner this_process() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  Owner o;
  o.host = host;
  o.pid = ::getpid();
  o.start_ticks = process_start_ticks(o.pid);
  o.boot_id = boot_id();
  o.pid_ns = pid_namespace();
  o.worker = random_worker_id();
  return o;
}

std::string text(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

}  // namespace

nlohmann::json Owner::to_json() const {
  nlohmann::json j = {{"host", host}, {"pid", pid}, {"start_ticks", start_ticks}};
  if (!boot_id.empty()) j["boot_id"] = boot_id;
  if (!pid_ns.empty()) j["pid_ns"] = pid_ns;
  if (!worker.empty()) j["worker"] = worker;
  return j;
}

Owner Owner::from_json(const nlohmann::json& j) {
  Owner o;
  if (!j.is_object()) return o;
  o.host = text(j, "host");
  if (j.contains("pid") && j["pid"].is_number_integer()) o.pid = j["pid"];
  if (j.contains("start_ticks") && j["start_ticks"].is_number_integer())
    o.start_ticks = j["start_ticks"];
  o.boot_id = text(j, "boot_id");
  o.pid_ns = text(j, "pid_ns");
  o.worker = text(j, "worker");
  return o;
}

const Owner& current_owner() {
  static const Owner self = this_process();
  return self;
}

int64_t process_start_ticks(int64_t pid) {
  const auto stat = read_proc_stat(pid);
  return stat ? stat->start_ticks : -1;
}

bool in_this_pid_namespace(const Owner& owner) {
  const Owner& self = current_owner();
  return owner.host == self.host && !owner.boot_id.empty() && !owner.pid_ns.empty() &&
         owner.boot_id == self.boot_id && owner.pid_ns == self.pid_ns;
}

bool owner_is_dead(const Owner& owner) {
  if (owner.pid <= 0 || !in_this_pid_namespace(owner)) return false;
  const int64_t ticks = process_start_ticks(owner.pid);
  return ticks < 0 || ticks != owner.start_ticks;
}

}  // namespace hpo
