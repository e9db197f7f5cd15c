"""A toy mechanism family written to a folder of its own: what a contributor adds, in small.

Tests drop it onto the families' path and find it again (``labeldp_core.registry.discovered_again``)
or register it (``labeldp_core.registry.registered``) for their duration, to show that every
derived table, in the library, the tests and the app, picks up a family from its folder alone.
"""

import importlib
import sys
import textwrap
from pathlib import Path

from labeldp_core import families
from labeldp_core.families.family import Family
from tests import families as family_tests

#: The toy family's package, on the families' path while a test runs, and its tests' package.
TOY_PACKAGE = "labeldp_core.families.toy_coin"
TOY_TESTS = "tests.families.toy_coin"

TOY_INIT = '''
"""A toy family: each label released by 2-ary-style keep-or-uniform coins (K-ary RR)."""

from pathlib import Path

from labeldp_core.families.family import (
    Api, Audit, DemoGrid, Family, Mechanism, Page, ReleaseStep,
)

from . import audit, experiment

FAMILY = Family(
    id="toy_coin",
    title="Toy coins",
    mechanisms=(
        Mechanism(
            experiment.SPEC, "#123456",
            audit=Audit(
                audit.toy_case, controls=(audit.toy_control,), tight=0.9, slow_at=(2.0,),
                powerful=(0,),
            ),
            demo=DemoGrid(epsilons=(0.5, 2.0)), on_compare=True,
            releases=(ReleaseStep(experiment.__name__, "toy_release", "toy coins"),),
            releases_training_labels=True, diagnostics=("flip_rate",),
        ),
    ),
    folder=Path(__file__).parent,
    page=Page("pages/toy_coin.py", "Toy coins", "toys", bad_links={"coins": "-1"}),
    mutation_targets=("labeldp_core/families/toy_coin/release.py",),
    api=(Api(f"{__name__}.release", ("toy_release",)),),
)
'''
TOY_EXPERIMENT = """
from labeldp_core.engine.blocks.label_release import released_labels_outcome
from labeldp_core.engine.blocks.release_noise import SAMPLER_NOISE_SETTING, release_generator
from labeldp_core.engine.spec import MechanismSpec
from labeldp_core.noise.noise_plans import rr_plan

from .release import toy_release


def run_toy(config, ctx):
    data = ctx.dataset
    plan = rr_plan(config.epsilon, data.num_classes, "float")
    rng = release_generator(config.setting("noise"), ctx)
    released = toy_release(data.y_train, config.epsilon, data.num_classes, rng)
    return released_labels_outcome(ctx, released, plan.epsilon_spent, {}, ())


SPEC = MechanismSpec(
    id="toy-coin", title="Toy coins", summary="K-ary randomized response, as a toy family",
    privacy_unit="label", task="classification", settings={"noise": SAMPLER_NOISE_SETTING},
    runner=run_toy,
)
"""
TOY_RELEASE = """
import numpy as np

from labeldp_core.base.validation import check_epsilon


def toy_release(labels, epsilon, num_classes, rng):
    epsilon = check_epsilon(epsilon)
    keep = np.exp(epsilon) / (np.exp(epsilon) + num_classes - 1)
    other = (labels + rng.integers(1, num_classes, labels.size)) % num_classes
    return np.where(rng.random(labels.size) < keep, labels, other)
"""
TOY_AUDIT = """
import numpy as np

from labeldp_core.release_audit.engine import AuditCase
from labeldp_core.release_audit.pairs import AUDIT_CLASSES, labels_case

from .release import toy_release


def toy_case(epsilon):
    return labels_case(
        "toy-coin", lambda labels, rng: toy_release(labels, epsilon, AUDIT_CLASSES, rng), epsilon
    )


def toy_control(epsilon):
    return labels_case(
        "toy-coin (control: 3ε)",
        lambda labels, rng: toy_release(labels, 3 * epsilon, AUDIT_CLASSES, rng),
        epsilon, is_control=True,
    )
"""

TOY_PLOTS = """
import plotly.graph_objects as go

__all__ = ["toy_keep_figure"]


def toy_keep_figure(epsilons):
    return go.Figure(go.Scatter(x=list(epsilons), y=list(epsilons)))
"""

#: The toy's tests folder (``tests/families/toy_coin/``): its rows of the bad-input matrix and
#: its release contract, which the shared suites read from there.
TOY_BAD_INPUTS = """
from labeldp_core.families.toy_coin.release import toy_release
from tests.contract.bad_values import LABELS, RNG, Row, epsilons

ROWS = [
    Row(
        toy_release,
        {"labels": LABELS, "epsilon": 1.0, "num_classes": 3, "rng": RNG},
        bad=epsilons(),
    ),
]
"""
TOY_RELEASE_CONTRACT = """
from release_spies import only


def _coins(calls, result):
    (call,) = only(calls, "toy_release")
    return call.arguments["epsilon"]


IMPLIED = {"toy-coin": _coins}
"""


def load_toy_family(tmp_path: Path, monkeypatch) -> Family:
    """The toy family's folder dropped onto the families' path and imported from there.

    The folder is written to a temporary directory that joins ``labeldp_core.families.__path__``
    for the test (the package's own folder is left untouched), so the toy is the package
    ``labeldp_core.families.toy_coin``, as a folder added under ``labeldp_core/families/`` would
    be: :func:`labeldp_core.registry.discover` finds it there. Its tests folder joins
    ``tests.families`` the same way (``tests.families.toy_coin``).
    """
    folder = tmp_path / "toy_coin"
    folder.mkdir()
    for name, text in {
        "__init__.py": TOY_INIT,
        "experiment.py": TOY_EXPERIMENT,
        "release.py": TOY_RELEASE,
        "audit.py": TOY_AUDIT,
        "plots.py": TOY_PLOTS,
    }.items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.setattr(families, "__path__", [*families.__path__, str(tmp_path)])
    tests_folder = tmp_path / "tests" / "toy_coin"
    tests_folder.mkdir(parents=True)
    for name, text in {
        "__init__.py": "",
        "bad_inputs.py": TOY_BAD_INPUTS,
        "release_contract.py": TOY_RELEASE_CONTRACT,
    }.items():
        (tests_folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.setattr(
        family_tests, "__path__", [*family_tests.__path__, str(tests_folder.parent)]
    )
    forget_toy()
    importlib.invalidate_caches()
    return importlib.import_module(TOY_PACKAGE).FAMILY


def forget_toy() -> None:
    """Drop a toy family imported before (another test's folder) from the imported modules."""
    for package, parent in ((TOY_PACKAGE, families), (TOY_TESTS, family_tests)):
        for name in [n for n in sys.modules if n == package or n.startswith(f"{package}.")]:
            del sys.modules[name]
        vars(parent).pop("toy_coin", None)
