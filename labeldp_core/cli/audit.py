"""``audit``: the empirical privacy audit of a release, or (``--model``) of a trained model."""

import argparse
import json

from labeldp_core.base.validation import check_seed
from labeldp_core.cache import ResultCache
from labeldp_core.cli.cluster import cluster_options, cluster_session, reported
from labeldp_core.cli.shared import parse_settings, stderr_bar
from labeldp_core.cluster import audit_on_cluster, model_audits_on_cluster
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments.stopping import counted
from labeldp_core.model_audit import cached_audit
from labeldp_core.release_audit.engine import check_trials
from labeldp_core.services.release_audits import audit_cases, stored_audit_case

#: A mechanism (not a negative control) was caught spending more than it claims.
EXIT_AUDIT_VIOLATION = 1
#: Draws per neighbour of ``audit`` (the release) unless ``--trials`` says otherwise.
DEFAULT_AUDIT_TRIALS = 500_000


def _cmd_model_audit(args: argparse.Namespace) -> int:
    """``audit --model``: canaries in the trained model (exit 1 on a violation).

    On a cluster (``--workers``, ``--scheduler``) its three trainings run side by side. A claim
    no canary design can test (PATE's) is answered with the reason, exit 0, nothing trained.
    """
    from labeldp_core.model_audit import UntestableClaimError

    try:
        return _model_audit(args)
    except UntestableClaimError as untestable:
        report = untestable.report
        print(
            json.dumps(report, indent=2)
            if args.json
            else f"{report['mechanism']} on {report['dataset']}, trained model, epsilon "
            f"{report['claimed_epsilon']:g}: not audited\n  verdict: {report['verdict']}"
        )
        return 0


def _model_audit(args: argparse.Namespace) -> int:
    """:func:`_cmd_model_audit`'s audit, trained (or read from the cache) and printed."""
    from labeldp_core.model_audit import audit_lines, audit_model

    if args.dataset is None:
        raise InvalidInputError("audit --model needs --dataset NAME (see `list`)")
    if args.trials is not None:
        raise InvalidInputError(
            "--trials sets the draws of the release's audit; audit --model takes --canaries N"
        )
    options = {
        "canaries": args.canaries,
        "seed": check_seed(args.seed),
        "epochs": args.epochs,
        "settings": parse_settings(args.set),
        "kind": args.canary_kind,
        "guess_share": args.guess_share,
    }
    status, cache = 0, ResultCache()

    def stored() -> tuple[int, int]:
        found = cached_audit(args.mechanism, args.dataset, args.epsilon, cache=cache, **options)
        return int(found is not None), 1

    with counted(stored), cluster_session(args) as session:
        if session is None:
            audit = audit_model(
                args.mechanism,
                args.dataset,
                args.epsilon,
                **options,
                cache=cache,
                progress=stderr_bar(),
            )
        else:
            point = {"mechanism": args.mechanism, "dataset": args.dataset}
            point |= {"epsilon": args.epsilon, **options}
            report = model_audits_on_cluster(session, [point], cache, stderr_bar(lines=True))
            status = reported(report)
            if not report.results:
                return status
            (audit,) = report.results
    print(json.dumps(audit.to_dict(), indent=2) if args.json else "\n".join(audit_lines(audit)))
    return EXIT_AUDIT_VIOLATION if audit.violates else status


def _cmd_audit(args: argparse.Namespace) -> int:
    if args.model:
        return _cmd_model_audit(args)
    model_only = [args.dataset, args.canaries, args.epochs, args.set or None]
    model_only += [args.canary_kind, args.guess_share]
    if any(option is not None for option in model_only):
        raise InvalidInputError(
            "--dataset, --canaries, --canary-kind, --guess-share, --epochs and --set audit a "
            "trained model: add --model"
        )
    seed = check_seed(args.seed)
    trials = check_trials(DEFAULT_AUDIT_TRIALS if args.trials is None else args.trials)
    cases = len(audit_cases(args.mechanism, args.epsilon))
    points = [(args.mechanism, args.epsilon, i, trials, seed) for i in range(cases)]
    status, cache = 0, ResultCache()

    def stored() -> tuple[int, int]:
        found = (stored_audit_case(*point, cache=cache, compute=False) for point in points)
        return sum(case is not None for case in found), len(points)

    with counted(stored), cluster_session(args) as session:
        if session is None:  # each case stored as it is done, so a stopped audit resumes
            results = [stored_audit_case(*point, cache=cache) for point in points]
        else:
            report = audit_on_cluster(session, points, cache, stderr_bar(lines=True))
            status, results = reported(report), report.results
    if args.json:
        report = {
            "mechanism": args.mechanism,
            "epsilon": args.epsilon,
            "trials": trials,
            "results": [result.to_dict() for result in results],
        }
        print(json.dumps(report, indent=2))
    else:
        for result in results:
            verdict = "VIOLATES its claim" if result.violates else "consistent with its claim"
            power = result.detectable_overspend
            power_text = (
                ""
                if result.violates or power is None
                else (f" (would catch an overspend above {power:.1%})")
            )
            print(
                f"{result.name}: claimed epsilon {result.claimed_epsilon:.4g} "
                f"(delta {result.claimed_delta:.3g}), lower bound "
                f"{result.epsilon_lower_bound:.4f} at {100 * result.confidence:g}% confidence "
                f"from {result.trials} trials per neighbour: {verdict}{power_text}"
            )
    real_violation = any(r.violates and not r.is_control for r in results)
    return EXIT_AUDIT_VIOLATION if real_violation else status


def add_commands(commands: argparse._SubParsersAction) -> None:
    """``audit`` (the release) and ``audit --model`` (the trained model)."""
    audit = commands.add_parser(
        "audit", help="empirical privacy audit: a lower bound on epsilon (exit 1 on a violation)"
    )
    audit.add_argument("mechanism", help="mechanism id, see `list`")
    audit.add_argument("--epsilon", type=float, required=True, help="the claimed budget, > 0")
    audit.add_argument(
        "--trials", type=int, help=f"draws per neighbour (default {DEFAULT_AUDIT_TRIALS:,})"
    )
    audit.add_argument("--seed", type=int, default=0)
    audit.add_argument("--json", action="store_true", help="print JSON")
    cluster_options(audit)
    _model_audit_options(audit)


def _model_audit_options(audit: argparse.ArgumentParser) -> None:
    """``audit --model``: the trained model's canaries instead of the release."""
    audit.add_argument(
        "--model",
        action="store_true",
        help="audit the trained model with canaries (Malek et al. 2021; Steinke et al. 2023)",
    )
    audit.add_argument("--dataset", help="with --model: dataset id, see `list`")
    audit.add_argument(
        "--canaries", type=int, metavar="N", help="with --model: canaries (default: per dataset)"
    )
    audit.add_argument(
        "--canary-kind",
        metavar="KIND",
        help="with --model: flipped (training images, a wrong label) or crafted (noise inputs no "
        "training image resembles; the default)",
    )
    audit.add_argument(
        "--guess-share",
        type=float,
        metavar="S",
        help="with --model: the share of canaries the attack guesses on, the most confident "
        "first (default 0.5; it abstains on the rest)",
    )
    audit.add_argument("--epochs", type=int, help="with --model: training epochs")
    audit.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="with --model: a setting"
    )
    audit.set_defaults(handler=_cmd_audit)
