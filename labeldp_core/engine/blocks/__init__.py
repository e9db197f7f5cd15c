"""The building blocks several families' releases are made of, below the families.

The noise setting and where every draw comes from (:mod:`.release_noise`), the tail every label
release shares (:mod:`.label_release`), the imbalanced private set (:mod:`.private_set`) and a
private training's expected Poisson batch (:mod:`.poisson_batch`). What describes a run, the
context a runner works with (its training, consensus retraining included) and what it caches (the
clean baseline, the public encoder's embeddings, the timings) stay in :mod:`labeldp_core.engine`.
"""
