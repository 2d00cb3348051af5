#ifndef VMHOST_CHIREDIS_SHIM_H
#define VMHOST_CHIREDIS_SHIM_H

// NB: the same order as CLibevent's shim: system headers first, so this module's view of fd_set and
// friends is Glibc's and composes with CLibevent and Foundation.
#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>

#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/read.h>

#endif
