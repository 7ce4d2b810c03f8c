// zlib for GzipFile (Catalog). zlib is part of every Apple SDK; on Linux it is zlib1g-dev.
#include <zlib.h>

// inflateInit2 is a macro, which Swift cannot call.
static inline int CZlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
