// Files under a world-writable folder (/dev/shm) that only this user may control.
#ifndef SSR_NATIVE_SRC_CORE_OWN_FILE_H_
#define SSR_NATIVE_SRC_CORE_OWN_FILE_H_

#include <string>

namespace ssr_native {

#if defined(__linux__)
/// Why the opened file is not one only this user can control (not a regular file, another
/// owner, group/other permission bits, more than one link), or "" when it is. Read from the
/// descriptor (fstat), so the file cannot be swapped between the check and its use.
std::string WhyNotOurs(int fd);
#endif

}  // namespace ssr_native

#endif  // SSR_NATIVE_SRC_CORE_OWN_FILE_H_
