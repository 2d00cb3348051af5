#ifndef VMHOST_CCURL_SHIM_H
#define VMHOST_CCURL_SHIM_H

// NB: see CLibevent/shim.h: system headers first so the module composes with Glibc.
#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>

#include <curl/curl.h>

#endif
