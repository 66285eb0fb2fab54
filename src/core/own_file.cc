// WhyNotOurs (own_file.h): the check the argon2 budget's lock file and the shared cache's
// segment both pass before they are used.
#include "own_file.h"

#if defined(__linux__)
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ssr_native {

// Why the opened file is not one only this user can control, or "" when it is. Read from the
// open descriptor (fstat), never from the path, so the file cannot be swapped between the check
// and its use.
std::string WhyNotOurs(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return std::string("fstat: ") + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (st.st_uid != geteuid()) {
    return "owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(geteuid()) + ")";
  }
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("mode ") + mode + " lets other users open it (expected 0600)";
  }
  if (st.st_nlink != 1) return std::to_string(st.st_nlink) + " hard links (expected 1)";
  return "";
}

}  // namespace ssr_native

#endif
