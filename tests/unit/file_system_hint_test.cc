#include "hpo/storage/file_system_hint.h"

#include <doctest/doctest.h>
#include <linux/magic.h>

#include <filesystem>

#include "temp_dir.h"

namespace hpo {
namespace {

TEST_CASE("network file systems are told by their statfs magic; local ones are not") {
  CHECK(network_file_system_name(NFS_SUPER_MAGIC) == "nfs");
  CHECK(network_file_system_name(CIFS_SUPER_MAGIC) == "cifs");
  CHECK(network_file_system_name(SMB2_SUPER_MAGIC) == "smb2");
  CHECK(network_file_system_name(SMB_SUPER_MAGIC) == "smb");
  CHECK(network_file_system_name(CEPH_SUPER_MAGIC) == "ceph");
  CHECK(network_file_system_name(V9FS_MAGIC) == "9p");
  CHECK(network_file_system_name(0x0BD00BD0) == "lustre");
  CHECK(network_file_system_name(0x47504653) == "gpfs");
  // f_type may come sign-extended from a 32-bit word.
  CHECK(network_file_system_name(static_cast<int32_t>(0xFF534D42)) == "cifs");
  for (int64_t local :
       std::initializer_list<int64_t>{EXT4_SUPER_MAGIC, XFS_SUPER_MAGIC, BTRFS_SUPER_MAGIC,
                                      TMPFS_MAGIC, OVERLAYFS_SUPER_MAGIC, FUSE_SUPER_MAGIC, 0}) {
    CAPTURE(local);
    CHECK(network_file_system_name(local) == "");
  }
}

TEST_CASE("a database not created yet is judged by the directory it will be in") {
  TempDir tmp;
  CHECK(network_file_system(tmp.path("hpo.db")) == "");
  CHECK(network_file_system(tmp.path("not/yet/there/hpo.db")) == "");
  CHECK(network_file_system("relative.db") == "");
}

TEST_CASE("a database path that is a directory is named as one, with a file to use instead") {
  TempDir tmp;
  const std::string dir = tmp.path("runs");
  std::filesystem::create_directories(dir);
  CHECK(file_system_hint(dir) ==
        " (it is a directory: name a database file, as sqlite:///" + dir + "/hpo.db)");
  CHECK(file_system_hint(tmp.path("hpo.db")).find("directory") == std::string::npos);
}

}  // namespace
}  // namespace hpo
