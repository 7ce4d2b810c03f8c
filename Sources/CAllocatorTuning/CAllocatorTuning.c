#include "CAllocatorTuning.h"

#if defined(__GLIBC__)
#include <malloc.h>

int tuner_tune_allocator(void) {
    // Freed memory below 32 MiB at the top of the heap stays in the process, and buffers under
    // 1 MiB come from the heap, not from fresh mmap'd (and zeroed) pages.
    int trim = mallopt(M_TRIM_THRESHOLD, 32 << 20);
    int mmap = mallopt(M_MMAP_THRESHOLD, 1 << 20);
    return trim == 1 && mmap == 1;
}
#else
int tuner_tune_allocator(void) { return 0; }
#endif
