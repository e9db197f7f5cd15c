"""Keep the memory a training step frees inside the process, so the next step does not re-fault it.

Every training step allocates and frees the same few megabytes of activations and gradients.
glibc's malloc, left to itself, serves blocks above its (adaptive) mmap threshold with fresh
``mmap`` calls and hands the top of its heaps back to the kernel once more than its trim
threshold is free, so each step page-faults its buffers in again. On the 2-core machine this
cost 800 to 5,000 page faults per CNN step at batch 256, and the step took 1.6-1.8x as long as
with the setting below (interleaved timings, an ad-hoc script).
Fixing both thresholds keeps those buffers mapped: the process holds up to
:data:`TRIM_THRESHOLD` of freed memory instead of returning it at once.

The setting is process-wide and applies to glibc only; elsewhere nothing changes.
"""

import ctypes
import ctypes.util
import functools

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "keep_freed_memory"]

#: Blocks below this come from malloc's heaps, not from their own mmap (glibc's 64-bit ceiling).
MMAP_THRESHOLD = 32 * 2**20
#: Free memory at the top of a heap is handed back to the kernel only beyond this.
TRIM_THRESHOLD = 256 * 2**20

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


@functools.cache
def keep_freed_memory() -> bool:
    """Set glibc's mmap and trim thresholds once per process; True if glibc accepted both.

    Both are needed: setting either one turns glibc's adaptive thresholds off, so with only one
    set the other stays at its small default and the faults come back (measured at batch 128:
    about 1,400 faults per step with the trim threshold alone).
    """
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):  # not glibc: musl, macOS
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
