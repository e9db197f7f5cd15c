"""``warm --until-pages``: the pages' points, then exit 0 saying what waits for a later warm."""

from argparse import Namespace
from contextlib import nullcontext

import pytest

from labeldp_core.__main__ import main
from labeldp_core.cli import warm as warm_cli
from labeldp_core.experiments import make_config
from labeldp_core.experiments.demo import demo_configs
from labeldp_core.services import warm
from labeldp_core.services.warm import MODEL_AUDITS, WarmTask


def _tiny_warm(monkeypatch: pytest.MonkeyPatch) -> list[WarmTask]:
    """Two pages' points (one epoch of a logistic model) and two model audits after them."""
    runs = [make_config("rr", "digits", e, 0, 1, {"model": "logistic"}) for e in (1.0, 2.0)]
    tasks = [WarmTask("rr", True, config=run) for run in runs]
    tasks += [WarmTask(MODEL_AUDITS, False, model_audit=("rr", "digits", e)) for e in (1.0, 2.0)]
    monkeypatch.setattr(warm, "warm_tasks", lambda dataset, extra=None: tasks)
    return tasks


def test_until_pages_exits_0_when_the_pages_are_ready_and_names_what_is_left(monkeypatch, capsys):
    _tiny_warm(monkeypatch)
    assert main(["warm", "--dataset", "digits", "--until-pages"]) == 0
    told = capsys.readouterr().err.splitlines()
    points = [line for line in told if line.startswith("[")]
    assert len(points) == 2 and all("rr ε=" in line for line in points)
    assert points[-1].endswith("; first views ready: 1/1; 2 model audits left for a later warm")
    assert told[-1] == "left for later: 2 model audits; `warm --dataset digits` computes them"
    assert main(["warm", "--dataset", "digits", "--until-pages"]) == 0
    assert not [line for line in capsys.readouterr().err.splitlines() if line.startswith("[")]


@pytest.mark.usefixtures("isolated_cache")
def test_until_pages_on_a_cluster_leaves_the_bands_and_the_model_audits_too(monkeypatch, capsys):
    sent = []
    monkeypatch.setattr(warm_cli, "cluster_session", lambda args, configs: nullcontext())
    monkeypatch.setattr(warm_cli, "run_on_cluster", lambda s, configs, c, p: sent.extend(configs))
    monkeypatch.setattr(warm_cli, "audit_on_cluster", lambda s, points, c, p: None)
    monkeypatch.setattr(warm_cli, "reported", lambda report: 0)
    monkeypatch.setattr(warm_cli, "demo_model_audits", lambda pages, dataset: [("rr", 1.0)])
    args = Namespace(dataset="digits", until_pages=True)
    assert warm_cli._warm_on_cluster(args, []) == 0
    bands = {task.config for task in warm.warm_tasks("digits") if task.band}
    assert sent and not bands & set(sent)
    assert set(sent) | bands == set(demo_configs("digits"))
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"left for later: {len(bands)} band points of the curves and 1 model audits; "
        "`warm --dataset digits` computes them"
    )
