"""Experiments: one runner per mechanism, a frozen config in and a JSON result out."""

from labeldp_core.engine.progress import Progress
from labeldp_core.engine.spec import MechanismSpec, RunConfig, RunResult
from labeldp_core.experiments.runner import lookup, make_config, run, sweep, sweep_configs
from labeldp_core.registry import MECHANISMS, mechanism_spec

__all__ = [
    "MECHANISMS",
    "MechanismSpec",
    "Progress",
    "RunConfig",
    "RunResult",
    "lookup",
    "make_config",
    "mechanism_spec",
    "run",
    "sweep",
    "sweep_configs",
]
