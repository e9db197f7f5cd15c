"""The release audit: Clopper-Pearson lower bounds on epsilon from what a mechanism releases.

Each registered mechanism's release is run on neighbouring inputs and an output event's two
frequencies give a lower bound on the epsilon it spends (:mod:`~labeldp_core.model_audit`, by
contrast, audits a trained model with canaries). Two floors share this folder:

- the engine each family's audit cases are built on, below the families:
  :mod:`~labeldp_core.release_audit.engine` (``AuditCase``, ``AuditResult``, ``run_audit``),
  :mod:`~labeldp_core.release_audit.bounds` (the Clopper-Pearson bounds) and
  :mod:`~labeldp_core.release_audit.pairs` (what the label-level cases share);
- what composes the registered families, above them: :mod:`~labeldp_core.release_audit.cases`
  (every mechanism's cases and controls) and :mod:`~labeldp_core.release_audit.suite` (auditing a
  mechanism, each case stored in the result cache).

This face imports nothing: import from the submodules, so that a family importing the engine
does not load the suite, which reads the registry, which imports every family.
"""
