// The trainers kept running for a study with `trainer: {serve: true}`: one
// per slot, each serving that slot's trials one after another (see
// hpo/launch/trainer_server.h). They end when the pool does, at the end of
// `hpo run`.
#ifndef HPO_RUN_SERVER_POOL_H_
#define HPO_RUN_SERVER_POOL_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "hpo/launch/trainer_server.h"

namespace hpo {

class ServerPool {
 public:
  // The server for `slot`, ready for `trial`: the one it has if that fits
  // the trial, else a new one (the old one ended first), its stderr to
  // `log_path`. One worker at a time uses a slot, so the server stays the
  // caller's until its next call for that slot. Throws LaunchError.
  TrainerServer& for_trial(const std::string& slot, const LaunchSpec& trial,
                           const std::string& log_path);

 private:
  std::mutex mu_;  // guards the map, not the servers
  std::map<std::string, std::unique_ptr<TrainerServer>> servers_;
};

}  // namespace hpo

#endif  // HPO_RUN_SERVER_POOL_H_
