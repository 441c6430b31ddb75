#include "hpo/run/server_pool.h"

namespace hpo {

TrainerServer& ServerPool::for_trial(const std::string& slot, const LaunchSpec& trial,
                                     const std::string& log_path) {
  std::unique_ptr<TrainerServer> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<TrainerServer>& server = servers_[slot];
    if (server && server->fits(trial)) return *server;
    old = std::move(server);
  }
  old.reset();  // ended outside the lock: it may take a second
  auto fresh = std::make_unique<TrainerServer>(trial, log_path);
  std::lock_guard<std::mutex> lock(mu_);
  return *(servers_[slot] = std::move(fresh));
}

}  // namespace hpo
