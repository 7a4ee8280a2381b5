// The autofs part of `cvmfs_config setup` (CVMFS's configure_autofs): after
// it, autofs mounts a repository when a name below the mount directory is
// looked up, through the program map <root>/etc/auto.cvmfs (which prints
// "-fstype=cvmfs :FQRN" for repository names, see AutofsMapScript()), and
// unmounts it again when it has been idle for the autofs timeout.
//
// Where the entry "<mount_dir> <root>/etc/auto.cvmfs" goes, as in CVMFS:
//   - a drop-in directory exists (/etc/auto.master.d, or
//     /etc/autofs/auto.master.d where autofs is built with
//     --sysconfdir=/etc/autofs): into <dir>/cvmfs.autofs, and a line that an
//     older setup appended to the master map is removed, so that autofs does
//     not see the mount directory twice;
//   - no drop-in directory but a master map (/etc/auto.master or
//     /etc/autofs/auto.master): appended to the master map;
//   - neither (autofs not installed yet): into /etc/auto.master.d/cvmfs.autofs,
//     which the master maps of the Debian and Red Hat autofs packages read.
// A drop-in that the master map does not include ("+dir:<dir>") is reported,
// as chksetup does: autofs would ignore it.
//
// Every path is below SystemPaths::root. Thread safety: none needed (one
// setup per process).
#ifndef CLIENT_TOOLS_AUTOFS_SETUP_H_
#define CLIENT_TOOLS_AUTOFS_SETUP_H_

#include <ostream>
#include <string>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace cvmfs::tools {

// Installs the program map and its master map entry; returns whether the
// master map configuration changed (a running automount must then re-read
// it). Notes for the administrator go to `out`.
Result<bool> InstallAutofsMap(const SystemPaths& paths,
                              const std::string& mount_dir, std::ostream& out);

// On systemd nodes (<root>/etc/systemd/system exists) installs the drop-in
// autofs.service.d/cvmfs-autosetup.conf with KillMode=process: with the
// default KillMode=control-group, `systemctl restart autofs` kills every
// cvmfs2 that autofs mounted, and with it the open files of all jobs.
// Returns whether the drop-in was written (systemd must then be reloaded).
Result<bool> InstallAutofsKillMode(const SystemPaths& paths);

}  // namespace cvmfs::tools

#endif  // CLIENT_TOOLS_AUTOFS_SETUP_H_
