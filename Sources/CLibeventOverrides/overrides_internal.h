#ifndef VMHOST_OVERRIDES_INTERNAL_H
#define VMHOST_OVERRIDES_INTERNAL_H

// NB: first, for RTLD_NEXT.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>

/// Whether the overrides run (see CLibeventOverrides.h); read on every call, written at load and by tests.
extern int vmh_overrides_on;

/// The definition of `name` after this executable's: libevent's or glibc's own.
void *vmh_next_definition(const char *name);

/// The library's own definition of the overridden function `name`, as `type` (a function pointer typedef),
/// looked up once.
#define VMH_NEXT(type, name)                                                       \
    ({                                                                             \
        static type vmh_next_cached = NULL;                                        \
        if (vmh_next_cached == NULL) vmh_next_cached = (type)vmh_next_definition(name); \
        vmh_next_cached;                                                           \
    })

#endif
