#include "hpo/run/trainer_record.h"

#include <string>

#include "hpo/launch/proc_stat.h"
#include "hpo/launch/process_group.h"

namespace hpo {

nlohmann::json TrainerRecord::to_json() const {
  nlohmann::json j = process.to_json();
  j["pgid"] = pgid;
  return j;
}

TrainerRecord TrainerRecord::from_json(const nlohmann::json& j) {
  TrainerRecord r;
  r.process = Owner::from_json(j);
  if (j.is_object() && j.contains("pgid") && j["pgid"].is_number_integer()) r.pgid = j["pgid"];
  return r;
}

TrainerRecord record_of(const Process& trainer) {
  const Owner& self = current_owner();
  TrainerRecord r;
  r.process.host = self.host;
  r.process.boot_id = self.boot_id;  // where its pid means this process
  r.process.pid_ns = self.pid_ns;
  r.process.pid = trainer.pid();
  // Not reaped before hpo polls it, so its stat is there even if it has exited.
  r.process.start_ticks = process_start_ticks(trainer.pid());
  r.pgid = trainer.pgid();
  return r;
}

size_t end_leftover_trainer(const TrainerRecord& record, std::chrono::duration<double> grace) {
  const Owner& trainer = record.process;
  if (record.pgid <= 1 || trainer.start_ticks <= 0) return 0;  // not a record hpo wrote
  if (!in_this_pid_namespace(trainer)) return 0;  // its pid is not ours to signal
  const auto leader = read_proc_stat(trainer.pid);
  if (leader && leader->start_ticks != trainer.start_ticks) return 0;
  const auto members = live_group_members(record.pgid);
  for (const auto& m : members) {
    if (m.start_ticks < trainer.start_ticks) return 0;  // not started by the trainer
  }
  if (!members.empty()) end_process_group(record.pgid, grace);
  return members.size();
}

}  // namespace hpo
