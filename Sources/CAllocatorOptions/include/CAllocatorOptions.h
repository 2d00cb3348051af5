#ifndef VMHOST_CALLOCATOROPTIONS_H
#define VMHOST_CALLOCATOROPTIONS_H

/// jemalloc's options for the release server (`malloc_conf.c`). jemalloc reads this string once, before the
/// first allocation, then `/etc/malloc.conf` and the `MALLOC_CONF` environment variable, which override it.
/// Builds that use another allocator (debug, the sanitizers) ignore it.
extern const char *malloc_conf;

#endif
