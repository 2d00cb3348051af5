#ifndef VMHOST_CZLIB_SHIM_H
#define VMHOST_CZLIB_SHIM_H

#include <zlib.h>

/// deflateInit2 is a macro over deflateInit2_; this wrapper makes it callable from Swift.
static inline int vmh_deflate_init_raw(z_stream *stream, int level, int memLevel) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, memLevel, Z_DEFAULT_STRATEGY);
}

#endif
