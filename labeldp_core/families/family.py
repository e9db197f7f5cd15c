"""What a mechanism family declares: its mechanisms, their colours, demo grid, audit and page.

A family is one folder under :mod:`labeldp_core.families` (its release, experiment runner(s),
plots and audit cases, each in a file of its own) and one :class:`Family` value in its
``__init__.py``. The registry (:mod:`labeldp_core.registry`) finds the folders and derives every
table the engines, the app and the docs read from their declarations, so adding a family is one
folder (with its page and its tests); nothing is kept in step by hand. The pattern follows
Opacus's accountant registry and dp-wizard's one folder per statistic.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labeldp_core.engine.spec import MechanismSpec, RunConfig, Scalar
from labeldp_core.families.threat import EXAMPLE_DP, LABEL_DP, OUTPUT_DP, ThreatModel

if TYPE_CHECKING:
    import numpy as np

    from labeldp_core.data import Dataset

__all__ = [
    "LAST",
    "Api",
    "Audit",
    "AuditCeiling",
    "CaseBuilder",
    "DemoGrid",
    "Family",
    "Mechanism",
    "Page",
    "ProtectedRows",
    "ReleaseStep",
    "ThreatModel",
]

#: The :attr:`Family.order` of a family that declares none: after every family that does.
LAST = 1_000
#: Builds an :class:`~labeldp_core.release_audit.engine.AuditCase` for a claimed epsilon.
CaseBuilder = Callable[[float], Any]
#: The training rows whose labels a run's ε protects (and its model learns from), by a run's
#: config and dataset: the rows outside a public part, or the subsample actually trained on.
ProtectedRows = Callable[[RunConfig, "Dataset"], "np.ndarray"]


@dataclass(frozen=True)
class AuditCeiling:
    """The most any canary design can prove of a mechanism's released model, computed.

    Attributes:
        most_provable: the largest ε̂ a canary audit of a run of this config can expect, from
            its training rows' count alone (None where the family's bound does not apply): the
            log-odds of the best accuracy of any guess between a canary's two labels, which the
            audit turns into what its own number of guesses can prove
            (:mod:`labeldp_core.model_audit.ceiling`).
        reason: why, as a clause of the audit's verdict (what carries one label into the model).
    """

    most_provable: Callable[[RunConfig, int], float | None]
    reason: str


@dataclass(frozen=True)
class Audit:
    """A mechanism's audit: its release on neighbouring inputs, further cases, negative controls.

    Attributes:
        case: the release step audited at the claimed epsilon.
        variants: further real cases of the same mechanism (PATE's GNMax beside LNMax).
        controls: deliberately broken versions that the audit must flag as violating the claim.
        tight: for a case whose best event has a likelihood ratio of exactly e^ε, the share of
            the claim its lower bound reaches at ε = 1 (200,000 draws per neighbour, α = 1e-3;
            ``tests/release_audit`` holds it to that); None for a case that is not tight.
        slow_at: the claimed ε (of the suite's 0.5 and 2) at which its audit takes tens of
            seconds (a model's gradients per trial): the default tests audit it at the other
            ε only, ``make test-slow`` at this one too.
        powerful: which of its real cases (0 its case, then its variants, in that order) catch
            a 10% overspend at the command line's 500,000 draws (claim / bound < 1.1), as the
            slow tests check: the privacy-critical and the tight ones.
    """

    case: CaseBuilder
    variants: tuple[CaseBuilder, ...] = ()
    controls: tuple[CaseBuilder, ...] = ()
    tight: float | None = None
    slow_at: tuple[float, ...] = ()
    powerful: tuple[int, ...] = ()


@dataclass(frozen=True)
class DemoGrid:
    """The points `warm` computes for a mechanism and the pages draw without a click.

    Attributes:
        epsilons: the curve's epsilon grid; None for the standard grid (and, on the class
            datasets, the slider's extra stops).
        variants: settings the pages show side by side, beyond the defaults.
        guest: settings and epsilons another page draws on one seed (DP-SGD on the DP
            prototypes' imbalanced set), or None.
    """

    epsilons: tuple[float, ...] | None = None
    variants: tuple[Mapping[str, Scalar], ...] = ()
    guest: tuple[Mapping[str, Scalar], tuple[float, ...]] | None = None


@dataclass(frozen=True)
class ReleaseStep:
    """One call by which a mechanism's run releases something computed from the labels.

    Each such function takes the noise plan (or the privacy parameters) that draws its noise,
    and the run reports the epsilon of that plan, so the release and its accounting cannot
    drift apart. The release-contract tests spy on these calls and recompute the epsilon from
    what they received.

    Attributes:
        module: the dotted name of the module whose global ``function`` the run calls (where a
            spy replaces it); a name, not the module, so that listing the families never
            imports torch.
        function: the release function's name.
        draws: the step's name in the run's ``details["random_draws"]``, or None when the call
            draws no noise through a plan (DP-SGD's trainer; its noise is the optimiser's).
    """

    module: str
    function: str
    draws: str | None = None


@dataclass(frozen=True)
class Api:
    """Names of one module of a family's public release API (NumPy in, NumPy out).

    :mod:`labeldp_core.mechanisms` serves every registered family's names from their modules,
    so the bad-input matrix (``tests/contract``) covers each family's functions without a list
    kept by hand. A module's name, not the module: listing the families imports none of them.

    Attributes:
        module: the dotted name of the module that defines the names.
        names: the functions and constants it exports to :mod:`labeldp_core.mechanisms`.
    """

    module: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class Mechanism:
    """One mechanism of a family, as every table sees it.

    Attributes:
        spec: what the engine runs (id, privacy unit, settings, runner).
        colour: its colour on every chart (``#rrggbb``), fixed by the family, never by position.
        audit: its empirical privacy audit, or None when it has none.
        demo: its demo grid.
        on_compare: whether Compare shows it before the user picks.
        threat_model: what its ε protects; None for its privacy unit's standard card.
        releases: the calls that release what is computed from the labels, in run order.
        protected_rows: the training rows whose labels its ε protects, for a run's config and
            dataset, when a public part (or a subsample) leaves others out; None for every
            training row. The canary audit plants its canaries in these rows only.
        model_audit_ceiling: the most any canary design can prove of its model (PATE's one
            vote per query under noise); the canary audit declines a claim it cannot test.
        releases_training_labels: whether its run releases a noisy label for each training row
            and trains its classifier on them (the label attacks of 'What ε means' read its
            runs: the released label's and the model's guess of a training label).
        not_audited: why it has no audit case of its own, when ``audit`` is None (a mechanism
            made of others' releases, each audited where it is declared).
        diagnostics: figures of its run's JSON (paths such as ``flip_rate`` or
            ``details.confusion``) that read the private labels without privacy and must
            therefore be marked as diagnostics in every run (the epsilon-spent tests check
            that its runs mark them).
    """

    spec: MechanismSpec
    colour: str
    audit: Audit | None = None
    demo: DemoGrid = DemoGrid()
    on_compare: bool = False
    threat_model: ThreatModel | None = None
    releases: tuple[ReleaseStep, ...] = ()
    protected_rows: ProtectedRows | None = None
    releases_training_labels: bool = False
    model_audit_ceiling: AuditCeiling | None = None
    not_audited: str | None = None
    diagnostics: tuple[str, ...] = ()

    @property
    def threat(self) -> ThreatModel:
        """Its threat model: the declared one, or its privacy unit's standard card."""
        if self.threat_model is not None:
            return self.threat_model
        return {"label": LABEL_DP, "example": EXAMPLE_DP, "output": OUTPUT_DP}[
            self.spec.privacy_unit
        ]

    @property
    def draws(self) -> str:
        """How its secure mode draws: ``seeded`` or ``exact``.

        ``seeded`` where its ``noise`` setting is the floating-point samplers' (os.urandom seeds
        their generators), else ``exact`` (os.urandom draws every coin).
        """
        from labeldp_core.engine.blocks.release_noise import SAMPLER_NOISE_SETTING

        return "seeded" if self.spec.settings.get("noise") is SAMPLER_NOISE_SETTING else "exact"

    def card(self, noise: str | None, delta: float) -> dict[str, object]:
        """Its threat-model card for a run in noise mode ``noise`` with ``delta``."""
        return self.threat.card(noise, delta, self.draws)

    @property
    def id(self) -> str:
        """The mechanism's id (its spec's)."""
        return self.spec.id


@dataclass(frozen=True)
class Page:
    """A family's page in the app.

    Attributes:
        file: the page's script, relative to the repository root (``pages/pate.py``); its file
            name without ``.py`` is the page's address.
        title: the title in the navigation.
        icon: a Material icon name.
        bad_links: link values the page's own controls must refuse (checked by the app tests).
        kept_links: valid link values the page must keep.
    """

    file: str
    title: str
    icon: str
    bad_links: Mapping[str, str] = field(default_factory=dict)
    kept_links: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Family:
    """A mechanism family: its folder's declaration, from which the registry derives the tables.

    Attributes:
        id: the folder's name.
        title: the family's name in the docs.
        mechanisms: its mechanisms, in the order the tables list them.
        folder: the family's folder (its ``README.md`` is the family's prose in the docs).
        page: its page in the app, or None.
        mutation_targets: its source files (relative to the repository root) that mutation
            testing mutates: the release and the experiments' hand-off of epsilon and noise.
        api: its public release functions and constants, served by
            :mod:`labeldp_core.mechanisms`.
        order: its place in every list of families (the app's navigation, the docs, the
            tables): families are listed by order, then id; one that declares none comes last.
    """

    id: str
    title: str
    mechanisms: tuple[Mechanism, ...]
    folder: Path
    page: Page | None = None
    mutation_targets: tuple[str, ...] = ()
    api: tuple[Api, ...] = ()
    order: int = LAST

    @property
    def package(self) -> str:
        """The family's import path: its folder's name under :mod:`labeldp_core.families`.

        Every family is a package on the families' path (:func:`labeldp_core.registry.discover`
        finds it there; a test's toy family is dropped onto it).
        """
        return f"labeldp_core.families.{self.id}"
