// zlib for GzipFile (Catalog) and GzipCompressor (TunerServer). zlib is part of every Apple SDK; on Linux it is zlib1g-dev.
#include <zlib.h>

// inflateInit2 is a macro, which Swift cannot call.
static inline int CZlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

// deflateInit2 too: gzip output of the XMLTV guide (TunerServer).
static inline int CZlib_deflateInit2(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
