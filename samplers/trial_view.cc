#include "samplers/trial_view.h"

#include <stdexcept>

namespace hpo {

const char* to_string(TrialState state) {
  switch (state) {
    case TrialState::kRunning:
      return "RUNNING";
    case TrialState::kComplete:
      return "COMPLETE";
    case TrialState::kPruned:
      return "PRUNED";
    case TrialState::kFail:
      return "FAIL";
    case TrialState::kWaiting:
      return "WAITING";
  }
  return "?";
}

const char* to_string(Direction direction) {
  return direction == Direction::kMaximize ? "MAXIMIZE" : "MINIMIZE";
}

TrialState trial_state_from_string(const std::string& name) {
  for (auto s : {TrialState::kRunning, TrialState::kComplete, TrialState::kPruned,
                 TrialState::kFail, TrialState::kWaiting}) {
    if (name == to_string(s)) return s;
  }
  throw std::invalid_argument("unknown trial state '" + name + "'");
}

Direction direction_from_string(const std::string& name) {
  if (name == "MAXIMIZE") return Direction::kMaximize;
  if (name == "MINIMIZE") return Direction::kMinimize;
  throw std::invalid_argument("unknown direction '" + name + "'");
}

bool is_finished(TrialState state) {
  return state == TrialState::kComplete || state == TrialState::kPruned ||
         state == TrialState::kFail;
}

}  // namespace hpo
