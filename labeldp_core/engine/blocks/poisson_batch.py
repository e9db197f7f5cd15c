"""The expected Poisson batch of a private training run on a set its recipe names no batch for.

DP-SGD's and LabelDP-Pro's recipes name their batch on their papers' datasets (2,048 and 1,024
on the 60k splits) and on the bundled small sets (about n / 6). A table of the user's takes the
same rule: about n / 6, a power of two from 16 up to the published batch, and never more than the
n examples, so that the sample rate q = batch / n is at most 1 on a table of any size. The rule
reads only n, the training set's size: public under label DP (which rows exist is not what it
protects), and the size every Poisson-sampled accountant here reads anyway (q = batch / n).
"""

import math

__all__ = ["small_set_batch"]

#: The smallest batch the rule gives (a set of fewer examples gets all of them).
SMALLEST = 16


def small_set_batch(n_train: int, published: int) -> int:
    """About ``n_train`` / 6: a power of two, 16 up to ``published``, at most ``n_train``.

    >>> small_set_batch(142, 2048), small_set_batch(455, 2048), small_set_batch(800_000, 2048)
    (16, 64, 2048)
    >>> small_set_batch(800_000, 1024), small_set_batch(10, 2048)
    (1024, 10)
    """
    about = max(SMALLEST, 2 ** math.floor(math.log2(max(n_train, 1) / 6)))
    return int(min(published, about, n_train))
