#include "CLibraryOptions.h"

// NB: every small size class keeps 200 freed objects per thread instead of jemalloc's 20 for the larger
// classes (its default is twice a slab's objects, from 20 to 200). A command frees some forty objects of a
// few hundred bytes to a few kilobytes, and a round of commands frees many of each: with 20 slots those bins
// overflowed and refilled from the arena about every other command. Fewer instructions and data-cache misses
// per command, memory unchanged (docs/performance.md, "Receipts").
// jemalloc's own, weak definition of the symbol yields to this one, as the executable's definitions of
// libevent functions do (`CLibeventOverrides`).
const char *malloc_conf = "tcache_nslots_small_min:200";
