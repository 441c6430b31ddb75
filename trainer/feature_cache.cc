#include "trainer/feature_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string_view>

#include "trainer/panel.h"
#include "trainer/synthetic.h"

namespace hpo::trainer {

namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'H', 'P', 'O', 'F', 'E', 'A', 'T', '4'};

// An entry's file name: this, its key's hash in hex, ".bin".
constexpr std::string_view kEntryPrefix = "features-";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return {};  // not a file that seeks (a directory): size_t(-1) would be SIZE_MAX
  std::string bytes(size_t(size), '\0');
  in.seekg(0);
  in.read(bytes.data(), std::streamsize(bytes.size()));
  return in ? bytes : std::string();
}

std::string hex(uint64_t h) { return fmt::format("{:016x}", h); }

// POSIX rather than std::filesystem for what torch 2.x wheels' libtorch also
// exports (its remove_all has crashed our calls; see tests/trainer/test_util.h).
std::string absolute_path(const std::string& path) {
  if (!path.empty() && path.front() == '/') return path;
  char cwd[4096];
  return ::getcwd(cwd, sizeof cwd) ? std::string(cwd) + "/" + path : path;
}

constexpr uint64_t kHashPrime = 1099511628211ULL;

// hash64 fed in pieces: value() is hash64 of the pieces joined, so a file is
// checksummed as it is written, without a copy of it in memory.
class Hash64 {
 public:
  explicit Hash64(uint64_t seed) : h_(seed) {}
  void add(const void* data, size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    total_ += size;
    for (; pending_size_ > 0 && size > 0; --size) take(*p++);  // finish the last piece's word
    for (; size >= 8; p += 8, size -= 8) mix(p);
    for (; size > 0; --size) take(*p++);
  }
  uint64_t value() const {
    uint64_t h = h_;
    for (size_t i = 0; i < pending_size_; ++i) h = (h ^ pending_[i]) * kHashPrime;
    return h ^ total_;
  }

 private:
  void mix(const unsigned char* p) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    h_ = (h_ ^ word) * kHashPrime;
    h_ ^= h_ >> 29;  // fold the high bits down, which the multiply alone never does
  }
  void take(unsigned char byte) {
    pending_[pending_size_ % 8] = byte;  // always < 8; the % says so to GCC's bounds check
    if (++pending_size_ == 8) mix(pending_), pending_size_ = 0;
  }
  uint64_t h_;
  uint64_t total_ = 0;
  unsigned char pending_[8] = {};
  size_t pending_size_ = 0;
};

// Writes one cache file's fields to `out` and, after them, their checksum.
class Writer {
 public:
  explicit Writer(std::ostream* out) : out_(out) {}
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void text(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void texts(const std::vector<std::string>& v) {
    u64(v.size());
    for (const std::string& s : v) text(s);
  }
  void floats(const std::vector<float>& v) {
    u64(v.size());
    raw(v.data(), v.size() * sizeof(float));
  }
  void u32s(const std::vector<uint32_t>& v) {
    u64(v.size());
    raw(v.data(), v.size() * sizeof(uint32_t));
  }
  void raw(const void* p, size_t n) {
    hash_.add(p, n);
    out_->write(static_cast<const char*>(p), std::streamsize(n));
  }
  void checksum() {
    const uint64_t sum = hash_.value();
    out_->write(reinterpret_cast<const char*>(&sum), sizeof sum);
  }

 private:
  std::ostream* out_;
  Hash64 hash_{kHashSeed};
};

// A file mapped read-only, for reading a cache without copying it whole
// first. Writers replace a cache by renaming, never in place, so the mapped
// file does not change under the reader.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return;
    struct stat st;
    if (::fstat(fd.get(), &st) == 0 && st.st_size > 0) {
      void* p =
          ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd.get(), 0);
      if (p != MAP_FAILED) data_ = static_cast<const char*>(p), size_ = size_t(st.st_size);
    }
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const char* data() const { return data_; }
  size_t size() const { return size_; }  // 0 when missing, empty or unreadable

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

// Reads a cache file's fields back, checking every length against what is
// left (a corrupt length must not allocate gigabytes or read past the end).
class Reader {
 public:
  Reader(const char* p, size_t n) : p_(p), left_(n) {}
  uint64_t u64() {
    uint64_t v;
    raw(&v, sizeof v);
    return v;
  }
  std::string text() {
    const uint64_t n = u64();
    need(n);
    std::string s(p_, n);
    skip(n);
    return s;
  }
  std::vector<std::string> texts() {
    const uint64_t n = u64();
    need_items(n, sizeof(uint64_t));  // each at least its length
    std::vector<std::string> v(n);
    for (std::string& s : v) s = text();
    return v;
  }
  std::vector<float> floats() { return array<float>(); }
  std::vector<uint32_t> u32s() { return array<uint32_t>(); }
  template <typename T>
  std::vector<T> array() {
    const uint64_t n = u64();
    need_items(n, sizeof(T));
    std::vector<T> v(n);
    raw(v.data(), n * sizeof(T));
    return v;
  }
  void raw(void* out, size_t n) {
    need(n);
    if (n > 0)
      std::memcpy(out, p_, n);  // an empty array's data() may be null, which memcpy may not get
    skip(n);
  }
  size_t left() const { return left_; }

 private:
  void need(uint64_t n) const {
    if (n > left_) throw std::runtime_error("a length runs past the end of the file");
  }
  void need_items(uint64_t n, size_t size) const {
    if (n > left_ / size) throw std::runtime_error("a length runs past the end of the file");
  }
  void skip(size_t n) {
    p_ += n;
    left_ -= n;
  }
  const char* p_;
  size_t left_;
};

// Hashes this hpo-trainer binary once: a rebuilt trainer (whose features may
// differ) never reads another's cache.
const std::string& binary_hash() {
  static const std::string hash = [] {
    const std::string exe = read_file("/proc/self/exe");
    return exe.empty() ? std::string("unknown-binary") : hex(hash64(exe.data(), exe.size()));
  }();
  return hash;
}

void write_features(Writer& w, const FeatureSet& f) {
  w.u64(f.num_tickers);
  w.u64(f.num_days);
  w.u64(f.num_features);
  w.u64(f.first_full_day);
  w.u64(uint64_t(f.label_spec.horizon));
  w.u64(uint64_t(f.label_spec.entry));
  w.texts(f.names);
  w.floats(f.values);
  w.floats(f.label);
  w.floats(f.target);
  w.floats(f.daily_return);
  w.u32s(f.first_row);
  w.u64(f.min_names);
  w.u64(f.delisting_labels);
}

// The summary's counts, in the order of data_summary.h.
std::vector<size_t*> summary_fields(DataSummary* s) {
  return {&s->rows,
          &s->missing_price_rows,
          &s->missing_volumes,
          &s->min_names,
          &s->thin_dates,
          &s->thin_rows,
          &s->weekend_dates,
          &s->weekend_rows,
          &s->delisting_labels,
          &s->inconsistent_rows,
          &s->first_inconsistent_line,
          &s->price_jumps,
          &s->first_jump_line};
}

void write_summary(Writer& w, DataSummary s) {
  for (size_t* field : summary_fields(&s)) w.u64(*field);
  w.u64(s.trades_weekends);
}

DataSummary read_summary(Reader& r) {
  DataSummary s;
  for (size_t* field : summary_fields(&s)) *field = r.u64();
  s.trades_weekends = r.u64() != 0;
  return s;
}

FeatureSet read_features(Reader& r) {
  FeatureSet f;
  f.num_tickers = r.u64();
  f.num_days = r.u64();
  f.num_features = r.u64();
  f.first_full_day = r.u64();
  f.label_spec.horizon = int(r.u64());
  f.label_spec.entry = LabelEntry(r.u64());
  f.names = r.texts();
  f.values = r.floats();
  f.label = r.floats();
  f.target = r.floats();
  f.daily_return = r.floats();
  f.first_row = r.u32s();
  f.min_names = r.u64();
  f.delisting_labels = r.u64();
  const size_t cells = f.num_tickers * f.num_days;
  if (f.names.size() != f.num_features || f.values.size() != cells * f.num_features ||
      f.label.size() != cells || f.target.size() != cells || f.daily_return.size() != cells ||
      f.first_row.size() != f.num_tickers)
    throw std::runtime_error("its arrays do not match its dimensions");
  return f;
}

}  // namespace

uint64_t hash64(const void* data, size_t size, uint64_t seed) {
  Hash64 h(seed);
  h.add(data, size);
  return h.value();
}

std::string feature_cache_key(const TrainerConfig& config) {
  return feature_cache_key(config, config.data.empty() ? "" : read_data_file(config.data));
}

std::string feature_cache_key(const TrainerConfig& config, std::string_view data_bytes) {
  std::string source;
  if (config.data.empty()) {
    source = fmt::format("synthetic tickers={} days={} seed={} signal={}", config.synthetic_tickers,
                         config.synthetic_days, config.synthetic_seed,
                         signal_named(config.signal_strength).value_or(-1.0));
  } else {
    source = fmt::format("data={} bytes={} hash={}", absolute_path(config.data), data_bytes.size(),
                         hex(hash64(data_bytes.data(), data_bytes.size())));
  }
  return fmt::format("{}; date_format={} min_names={}; horizon={} label_entry={}; trainer={}",
                     source, config.date_format, config.min_names, config.horizon,
                     config.label_entry, binary_hash());
}

std::string feature_cache_path(const std::string& dir, const std::string& key) {
  const std::string name = std::string(kEntryPrefix) + hex(hash64(key.data(), key.size())) + ".bin";
  return (fs::path(dir) / name).string();
}

std::optional<PanelData> read_feature_cache(const std::string& path, const std::string& key,
                                            std::string* why) {
  const MappedFile file(path);
  if (file.size() == 0) {
    *why = "not cached yet";
    return std::nullopt;
  }
  try {
    const char* bytes = file.data();
    if (file.size() < sizeof kMagic + 8 || std::memcmp(bytes, kMagic, sizeof kMagic) != 0)
      throw std::runtime_error("not a feature cache file");
    const size_t body = file.size() - 8;
    uint64_t stored;
    std::memcpy(&stored, bytes + body, 8);
    if (stored != hash64(bytes, body)) throw std::runtime_error("its checksum is wrong");
    Reader r(bytes + sizeof kMagic, body - sizeof kMagic);
    if (r.text() != key) {
      *why = "written for other data";
      return std::nullopt;
    }
    PanelData d;
    d.features = read_features(r);
    d.dates = r.texts();
    d.tickers = r.texts();
    d.summary = read_summary(r);
    d.oracle = r.floats();
    d.source = r.text();
    if (d.dates.size() != d.features.num_days || d.tickers.size() != d.features.num_tickers ||
        r.left() != 0 ||
        (!d.oracle.empty() && d.oracle.size() != d.features.num_tickers * d.features.num_days))
      throw std::runtime_error("its fields do not fit together");
    return d;
  } catch (const std::exception& e) {
    *why = std::string("unreadable: ") + e.what();
    return std::nullopt;
  }
}

void write_feature_cache(const std::string& path, const std::string& key, const PanelData& data) {
  fs::create_directories(fs::path(path).parent_path());
  // A name of this process's own, renamed into place: a reader sees the old
  // file or the new one, never a part.
  const std::string tmp =
      fmt::format("{}.tmp.{}.{}", path, ::getpid(), std::random_device{}() & 0xffffff);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    Writer w(&out);
    w.raw(kMagic, sizeof kMagic);
    w.text(key);
    write_features(w, data.features);
    w.texts(data.dates);
    w.texts(data.tickers);
    write_summary(w, data.summary);
    w.floats(data.oracle);
    w.text(data.source);
    w.checksum();
    out.flush();
    if (!out) {
      ::unlink(tmp.c_str());
      throw std::runtime_error("feature cache: cannot write " + tmp);
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error("feature cache: cannot rename " + tmp + " to " + path);
  }
}

void touch_feature_cache(const std::string& path) {
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // best effort: at worst it is rebuilt once
}

namespace {

// The files of a cache directory, by the form of their names.
enum class CacheFile { kEntry, kTemporary, kLock, kOther };

constexpr std::string_view kTemporaryInfix = ".bin.tmp.";  // PATH.tmp.PID.RAND
constexpr std::string_view kLockSuffix = ".bin.lock";

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

CacheFile kind_of(std::string_view name) {
  if (name.substr(0, kEntryPrefix.size()) != kEntryPrefix) return CacheFile::kOther;
  if (name.find(kTemporaryInfix) != std::string_view::npos) return CacheFile::kTemporary;
  if (ends_with(name, kLockSuffix)) return CacheFile::kLock;
  if (ends_with(name, ".bin")) return CacheFile::kEntry;
  return CacheFile::kOther;
}

// Whether the process that wrote temporary file `name` is gone: its PID (in
// the name) names no process. Not when the name holds no PID.
bool writer_gone(std::string_view name) {
  const std::string pid_on(name.substr(name.find(kTemporaryInfix) + kTemporaryInfix.size()));
  char* end = nullptr;
  const long pid = std::strtol(pid_on.c_str(), &end, 10);
  if (end == pid_on.c_str() || *end != '.' || pid <= 0) return false;
  return ::kill(pid_t(pid), 0) != 0 && errno == ESRCH;  // EPERM: another user's, alive
}

// Removes lock file `path` if no one holds it. Holding it while unlinking
// means no one has it; one who opened it meanwhile and locks it next sees it
// unlinked and locks the new one (FeatureCacheLock).
bool remove_unheld_lock(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  return fd.valid() && ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0 && ::unlink(path.c_str()) == 0;
}

// Whether file `name` of the cache directory should go (see tidy_feature_cache).
bool is_stale(CacheFile kind, const std::string& name, const std::string& keep_name,
              int64_t age_s) {
  switch (kind) {
    case CacheFile::kTemporary:
      return age_s >= kDeadWriterSeconds && writer_gone(name);
    case CacheFile::kEntry:
      return name != keep_name && age_s >= kUnusedEntrySeconds;
    case CacheFile::kLock:
      return name != keep_name + ".lock" && age_s >= kUnusedEntrySeconds;
    case CacheFile::kOther:
      return false;
  }
  return false;
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) names.emplace_back(e->d_name);
    ::closedir(d);
  }
  return names;
}

// Whether `fd` is the file now at `path`, not one unlinked from there.
bool same_file(int fd, const std::string& path) {
  struct stat open_st, path_st;
  return ::fstat(fd, &open_st) == 0 && ::stat(path.c_str(), &path_st) == 0 &&
         open_st.st_dev == path_st.st_dev && open_st.st_ino == path_st.st_ino;
}

// Waits for an exclusive flock on `fd`; false on an error (no lock support).
bool wait_for_lock(int fd) {
  while (::flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) return false;  // a signal (SIGTERM) only sets a flag: wait on
  return true;
}

}  // namespace

std::vector<std::string> tidy_feature_cache(const std::string& dir, const std::string& keep) {
  const std::string keep_name = fs::path(keep).filename().string();
  const int64_t now = int64_t(std::time(nullptr));
  std::vector<std::string> removed;
  for (const std::string& name : names_in(dir)) {
    const CacheFile kind = kind_of(name);
    const std::string path = (fs::path(dir) / name).string();
    struct stat st;
    if (kind == CacheFile::kOther || ::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
        !is_stale(kind, name, keep_name, now - int64_t(st.st_mtime)))
      continue;
    const bool gone =
        kind == CacheFile::kLock ? remove_unheld_lock(path) : ::unlink(path.c_str()) == 0;
    if (gone) removed.push_back(name);  // not gone: another trial tidied it first, or holds it
  }
  return removed;
}

FeatureCacheLock::FeatureCacheLock(const std::string& entry_path, std::ostream* log) {
  const std::string path = entry_path + ".lock";
  std::error_code ignored;  // a directory that cannot be made: the open below fails
  fs::create_directories(fs::path(path).parent_path(), ignored);
  for (bool told = false;;) {
    // Read-only suffices for flock, and lets a user who may only read the
    // directory's other files lock too.
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0666));
    if (!fd.valid()) return;
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
      const bool busy = errno == EWOULDBLOCK;
      if (busy && log && !told)
        *log << "features: waiting for another trial building " << entry_path << "\n";
      told = true;
      if (!busy || !wait_for_lock(fd.get())) return;
    }
    if (same_file(fd.get(), path)) {
      fd_ = std::move(fd);
      return;
    }
    // Tidied away while this waited: lock the file now in its place.
  }
}

}  // namespace hpo::trainer
