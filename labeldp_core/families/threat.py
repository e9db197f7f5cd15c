"""What an ε protects: the threat-model card a family declares for each of its mechanisms.

Short and exact: what is protected (one training label, replace-one; a whole example, add/remove;
or one model output), what is assumed public, what is not protected, what the adversary is assumed
to know, and where the guarantee is narrower than the whole training set. The card of a run
(:meth:`ThreatModel.card`) states the bound with the run's δ where δ > 0, adds what its noise
mode means for the adversary (os.urandom drawing every coin through an exact sampler, or only
seeding the generators of floating-point samplers), and goes into the run JSON
(``threat_model``), the mechanism's page and the HTML report.
"""

from dataclasses import dataclass

__all__ = ["EXAMPLE_DP", "LABEL_DP", "OUTPUT_DP", "ThreatModel"]

_FLOAT_MODE = (
    "Float mode: the noise comes from a generator seeded by the run's seed, so whoever knows the "
    "seed can replay it and undo the protection: a float run is a teaching run. "
)
#: What noise=secure does, by how the mechanism draws: exact samplers or floating-point ones.
_SECURE = {
    "exact": "noise=secure draws every random draw of the release from os.urandom.",
    "seeded": "noise=secure seeds the generators of the release from os.urandom instead.",
}
_SECURE_MODE = {
    "exact": "Secure mode: every random draw of the release that touches a label comes from "
    "os.urandom, through exact samplers; draws the guarantee does not rely on (model training, "
    "label-free splits) stay seeded, as details.random_draws lists step by step.",
    "seeded": "Secure mode: os.urandom seeds the generators of every draw of the release, never "
    "the run's seed, so the printed seed replays nothing; the samplers stay floating point and "
    "the generators are fast ones, not cryptographic ones, as details.random_draws says step "
    "by step.",
}


def _bound(delta: float) -> str:
    """The most a neighbouring change moves the probability of a set of outputs."""
    if delta > 0:
        return f"at most a factor e^ε plus δ = {delta:.3g} ((ε, δ)-DP)"
    return "at most a factor e^ε"


@dataclass(frozen=True)
class ThreatModel:
    """A mechanism's threat model, as its family declares it.

    Attributes:
        protects: what one unit of privacy is, and the neighbouring relation; ``{bound}`` in it
            is the bound of the run's δ (:meth:`card`).
        assumed_public: what the guarantee takes as known to everyone.
        not_protected: what an adversary may learn whatever ε is.
        adversary: what the adversary is assumed to know.
        narrower: where the guarantee covers less than the whole training set.
    """

    protects: str
    assumed_public: tuple[str, ...]
    not_protected: tuple[str, ...]
    adversary: str
    narrower: tuple[str, ...] = ()

    def with_narrower(self, *scopes: str) -> "ThreatModel":
        """The same card with further scopes where the guarantee is narrower."""
        return ThreatModel(
            self.protects,
            self.assumed_public,
            self.not_protected,
            self.adversary,
            (*self.narrower, *scopes),
        )

    def with_public(self, *parts: str) -> "ThreatModel":
        """The same card with further parts assumed public."""
        return ThreatModel(
            self.protects,
            (*self.assumed_public, *parts),
            self.not_protected,
            self.adversary,
            self.narrower,
        )

    def card(
        self, noise: str | None = None, delta: float = 0.0, draws: str = "exact"
    ) -> dict[str, object]:
        """The card of a run, JSON-ready.

        Args:
            noise: the run's noise mode (None: it has no setting).
            delta: the run's δ; where it is above 0 the bound says so.
            draws: ``exact`` (secure draws come from os.urandom through exact samplers) or
                ``seeded`` (os.urandom seeds floating-point samplers' generators).
        """
        mode = {
            "float": _FLOAT_MODE + _SECURE[draws],
            "secure": _SECURE_MODE[draws],
        }.get(noise or "", "")
        return {
            "protects": self.protects.format(bound=_bound(delta)),
            "assumed_public": list(self.assumed_public),
            "not_protected": list(self.not_protected),
            "adversary": f"{self.adversary}." + (f" {mode}" if mode else ""),
            "narrower": list(self.narrower),
        }


#: Label DP: the features and which rows are labelled are public, one label is protected.
LABEL_DP = ThreatModel(
    protects="one training label (replace-one): changing any one label changes the probability "
    "of every set of outputs by {bound}",
    assumed_public=(
        "the features (images or table columns) of every training example",
        "which rows are in the training set and that each has a label",
        "the class list (or the regression range)",
    ),
    not_protected=(
        "whether a person is in the data (membership)",
        "the features",
        "what the features alone reveal about a label",
    ),
    adversary="knows everything but the one protected label: the features, every other label, "
    "the code and the settings",
)
#: Example-level DP: one whole example (image and label) added or removed.
EXAMPLE_DP = ThreatModel(
    protects="one whole training example, image and label together (add/remove): adding or "
    "removing it changes the probability of every set of outputs by {bound}; a changed label "
    "reads as (2ε, (1 + e^ε)δ)",
    assumed_public=("the class list", "the model architecture and the training settings"),
    not_protected=("anything learned from the other examples",),
    adversary="knows every other example, the code and the settings",
)
#: Local DP on model outputs: one probability vector released at a time.
OUTPUT_DP = ThreatModel(
    protects="one model output vector (local DP): replacing it by any other probability vector "
    "changes the probability of every set of noisy outputs by {bound}",
    assumed_public=("the model and its inputs are not protected by this noise",),
    not_protected=(
        "the training data of the model (this is not label DP of a training set)",
        "the number of outputs released",
    ),
    adversary="sees the noisy output and knows every other output",
)
