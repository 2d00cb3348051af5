#ifndef VMHOST_CZLIB_SHIM_H
#define VMHOST_CZLIB_SHIM_H

#include <zlib.h>

/// deflateInit2 is a macro over deflateInit2_; this wrapper makes it callable from Swift.
static inline int vmh_deflate_init_raw(z_stream *stream, int level, int memLevel) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, memLevel, Z_DEFAULT_STRATEGY);
}

/// inflateInit2 is a macro over inflateInit2_: raw deflate data (no zlib or gzip wrapper), for the journal's
/// compressed entries.
static inline int vmh_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -15);
}

#endif
