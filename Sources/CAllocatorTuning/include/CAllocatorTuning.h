#ifndef C_ALLOCATOR_TUNING_H
#define C_ALLOCATOR_TUNING_H

/// Keeps glibc's allocator from handing freed memory back to the kernel after every response.
/// Does nothing on other C libraries. Returns 1 when the settings were applied.
int tuner_tune_allocator(void);

#endif
