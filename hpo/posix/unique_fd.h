// A file descriptor with one owner, closed when the owner goes: every early
// return and exception path closes it, which hand-written close() calls on
// each path got wrong once the paths multiplied.
#ifndef HPO_POSIX_UNIQUE_FD_H_
#define HPO_POSIX_UNIQUE_FD_H_

#include <unistd.h>

namespace hpo {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

  // Gives the descriptor up without closing it.
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

  // Closes the descriptor held, if any, and holds `fd` instead. A close
  // error is ignored: the callers only read, or have checked their writes.
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace hpo

#endif  // HPO_POSIX_UNIQUE_FD_H_
