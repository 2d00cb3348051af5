#ifndef VMHOST_CZLIB_TESTING_H
#define VMHOST_CZLIB_TESTING_H

#include <zlib.h>

/// inflateInit2 for gzip input (windowBits 15 + 16): inflateInit2 is a macro over inflateInit2_, this makes it
/// callable from Swift. Test support only: the server compresses and never inflates.
int vmh_inflate_init_gzip(z_stream *stream);

#endif
