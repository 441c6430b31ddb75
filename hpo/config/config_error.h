// An error in a user's file or flags. The message always names the file,
// the line and the key, and says what was expected.
#ifndef HPO_CONFIG_CONFIG_ERROR_H_
#define HPO_CONFIG_CONFIG_ERROR_H_

#include <stdexcept>
#include <string>

namespace hpo {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hpo

#endif  // HPO_CONFIG_CONFIG_ERROR_H_
