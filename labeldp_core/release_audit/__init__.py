"""The release audit's engine: Clopper-Pearson lower bounds on epsilon from a release.

A mechanism's release is run on neighbouring inputs and an output event's two frequencies give a
lower bound on the epsilon it spends (:mod:`~labeldp_core.model_audit`, by contrast, audits a
trained model with canaries). This folder sits below the families, which build their audit cases
on it: :mod:`~labeldp_core.release_audit.engine` (``AuditCase``, ``AuditResult``,
``run_audit``), :mod:`~labeldp_core.release_audit.bounds` (the Clopper-Pearson bounds) and
:mod:`~labeldp_core.release_audit.pairs` (what the label-level cases share). Every registered
mechanism's cases, audited and stored, are :mod:`labeldp_core.services.release_audits`, above
the registry.

This face imports nothing: import from the submodules.
"""
