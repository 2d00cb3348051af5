#ifndef VMHOST_CLIBRARYOPTIONS_H
#define VMHOST_CLIBRARYOPTIONS_H

// Options the release server gives C libraries loaded in its process, as definitions of symbols those libraries
// look up in the executable first (each library's own definition is weak, or comes later in the lookup order).

/// jemalloc's options for the release server (`malloc_conf.c`). jemalloc reads this string once, before the
/// first allocation, then `/etc/malloc.conf` and the `MALLOC_CONF` environment variable, which override it.
/// Builds that use another allocator (debug, the sanitizers) ignore it.
extern const char *malloc_conf;

/// GnuTLS's hook for skipping its initialization at load (`gnutls_global_init_skip.c`): returns 1.
int _gnutls_global_init_skip(void);

#endif
