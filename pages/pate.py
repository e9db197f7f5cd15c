"""PATE: teachers on disjoint shards, their agreement, noisy-max answers, privacy spent, student."""

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from labeldp_core import plots
from labeldp_core.accounting import AGGREGATORS
from labeldp_core.base.numbers import epsilon_text, in_words, score_change, score_text
from labeldp_core.data import dataset_info, load_dataset
from labeldp_core.data.splits import public_size
from labeldp_core.experiments import RunResult, make_config, sweep_configs
from labeldp_core.experiments.demo import DEMO_SEEDS, demo_epsilons
from labeldp_core.families.pate.experiment import PRIVACY_STATEMENT, student_sentence
from ui.clean import page_clean_line
from ui.controls import Controls, current_controls, noise_control
from ui.epsilon import epsilon_control
from ui.export import chart
from ui.links import linked
from ui.results import computed_stops, reported_errors, result_for, stored_many
from ui.risk import RiskOf
from ui.sweeps import compute_button

#: The demo grid, so that `python -m labeldp_core warm` fills this page's curves.
SWEEP_EPSILONS = list(demo_epsilons("pate"))
TEACHER_CHOICES = [5, 10, 25, 50, 100, 250]
QUERY_CHOICES = [10, 25, 50, 100, 250, 300, 500, 1000, 2000]
SELF_TRAINING_CHOICES = [0, 1, 2, 3]
TEACHER_EPOCH_CHOICES = ["1", "2", "5", "10", "20", "40"]
TEACHER_MODELS = ["mlp", "cnn", "logistic"]
FEATURES = ["pixels", "patches"]


def render() -> None:
    """Draw the page: its sidebar, ε, the student's curve under it, the run, the teachers."""
    controls = current_controls()
    st.title("PATE")
    settings = _sidebar(controls)
    # The sidebar's settings first: the slider stops where this page's own points are cached.
    epsilon = epsilon_control(
        grid=computed_stops("pate", controls, settings),
        risk=RiskOf(dataset_info(controls.dataset).num_classes),
    )
    headline = st.container()  # the student's accuracy vs ε, right under the ε control
    with reported_errors():
        config = make_config(
            "pate", controls.dataset, epsilon, controls.seed, controls.epochs_asked, settings
        )
        result = result_for(
            config,
            f"Train {settings['teachers']} teachers and the student on {controls.dataset_name}",
            "PATE",
        )
    if result is None:
        st.info(
            "Training the teachers takes a while on this dataset; press the button. Their votes "
            "are cached, so other epsilons, aggregators and query counts then only retrain the "
            "student."
        )
        st.stop()
    _student_curve(headline, controls, settings, result, epsilon)
    _metrics(result)
    _about(result)
    _teachers(result)
    _noise_effect(result)


def _sidebar(controls: Controls) -> dict:
    """Draw PATE's settings in the sidebar; return the run's settings."""
    sidebar = st.sidebar
    sidebar.header("PATE")
    aggregator = linked(
        sidebar.selectbox,
        "Aggregator",
        "aggregator",
        AGGREGATORS,
        index=1,
        help="lnmax: Laplace noise; gnmax: Gaussian noise; confident-gnmax: answer only queries "
        "whose noisy top vote passes a threshold, then GNMax.",
    )
    ensemble = _ensemble(sidebar, controls)
    teachers = _teacher_training(sidebar, on_patches=ensemble["features"] == "patches")
    noise_mode = noise_control(
        sidebar, "The teachers' votes are shared, so switching only re-aggregates and retrains."
    )
    settings = controls.settings | {
        "aggregator": aggregator,
        **ensemble,
        **teachers,
        "noise": noise_mode,
    }
    if aggregator == "confident-gnmax":
        settings["threshold"] = sidebar.slider(
            "Threshold T (share of teachers)",
            0.3,
            1.0,
            0.7,
            0.05,
            key="threshold",
            bind="query-params",
            help="A query is answered if its noisy top vote reaches T.",
        )
        settings["threshold_noise_ratio"] = linked(
            sidebar.select_slider,
            "Threshold noise σ1 / σ2",
            "threshold_ratio",
            [1.0, 1.5, 2.0, 3.0, 5.0],
            value=3.0,
        )
    return settings


def _teacher_training(sidebar: DeltaGenerator, *, on_patches: bool) -> dict:
    """Draw the teachers' model and epochs; disabled with patch features, which use neither.

    Returns:
        ``teacher_model`` and ``teacher_epochs``, as run settings.
    """
    unused = " Unused with patch features: teachers and student are logistic regressions."
    model = linked(
        sidebar.selectbox,
        "Teacher model",
        "teacher_model",
        TEACHER_MODELS,
        disabled=on_patches,
        help="Each teacher sees a few hundred examples at most, where the MLP learns faster than "
        "the CNN. The student uses the model chosen above." + (unused if on_patches else ""),
    )
    epochs = linked(
        sidebar.selectbox,
        "Teacher epochs",
        "teacher_epochs",
        TEACHER_EPOCH_CHOICES,
        index=4,
        disabled=on_patches,
        help=unused.strip() if on_patches else None,
    )
    return {"teacher_model": model, "teacher_epochs": int(epochs)}


def _ensemble(sidebar: DeltaGenerator, controls: Controls) -> dict:
    """Draw the teachers, queries, features and self-training, this dataset's recipe first.

    Returns:
        ``teachers``, ``queries``, ``features`` and ``self_training_rounds``, as run settings.
    """
    defaults = dict(make_config("pate", controls.dataset, 1.0).settings)  # this dataset's recipe
    public = public_size(load_dataset(controls.dataset).n_train)
    teachers = linked(
        sidebar.select_slider,
        "Teachers",
        "teachers",
        TEACHER_CHOICES,
        value=defaults["teachers"],
        help="More teachers: a larger margin to hide behind, but each sees less data.",
    )
    queries = linked(
        sidebar.select_slider,
        "Queries",
        "queries",
        QUERY_CHOICES,
        value=defaults["queries"],
        help="Public examples labelled for the student; every one costs privacy. "
        f"{controls.dataset_name} has a public part of {public:,}: more queries than that ask all "
        "of it.",
    )
    if queries > public:
        sidebar.caption(f"Capped at the {public:,} public examples of {controls.dataset_name}.")
    features = linked(
        sidebar.selectbox,
        "Features",
        "features",
        FEATURES,
        index=FEATURES.index(defaults["features"]),
        help="patches: teachers and student are logistic regressions on label-free features (a "
        "dictionary of image patches learnt from all the images, no label read), and the queries "
        "are spread over the public part by a k-means of them; the teacher model and epochs are "
        "then unused. Fashion-MNIST, ε = 2, seeds 0-2: student 0.805 against 0.72 on pixels.",
    )
    self_training_rounds = linked(
        sidebar.select_slider,
        "Student self-training rounds",
        "self_training_rounds",
        SELF_TRAINING_CHOICES,
        value=defaults["self_training_rounds"],
        help="Rounds in which the student labels the public part's other images itself and "
        "retrains on its confident predictions (0: the answered queries only). Post-processing: "
        "ε unchanged.",
    )
    return {
        "teachers": teachers,
        "queries": queries,
        "features": features,
        "self_training_rounds": self_training_rounds,
    }


def _student_curve(
    headline: DeltaGenerator, controls: Controls, settings: dict, result: RunResult, epsilon: float
) -> None:
    """Draw into ``headline`` the student's accuracy vs ε, what it shows, and the sweep's button."""
    with reported_errors():
        configs = sweep_configs(
            "pate",
            controls.dataset,
            SWEEP_EPSILONS,
            DEMO_SEEDS,
            controls.epochs_asked,
            settings,
        )
        found, absent = stored_many(configs)
    clean = page_clean_line(controls, [result])
    chart(
        headline,
        plots.student_accuracy_vs_epsilon,
        found,
        clean.score,
        result.details["student_clean_labels_accuracy"],
        chance=1 / result.num_classes,
        marked_epsilon=epsilon,
        key="student_curve",
    )
    headline.caption(
        f"Each point is the mean over seeds {in_words(DEMO_SEEDS)} of a student trained on the "
        "labels released at that ε and scored on the test split, the band the lowest to the "
        f"highest seed. The dash-dotted line is the same student (seed {controls.seed}) trained "
        "on the true labels of the same queries, the dashed one the pages' clean model (the "
        f"dataset's default recipe on the whole clean training split, {clean.words}). At small ε "
        "with few teachers the labels are close to random and so is the student: that is the "
        "price. "
        + (
            f"{len(absent)} points are not computed yet; the button computes and caches each one "
            "(the teachers' votes are reused)."
            if absent
            else "Every point of this curve is cached."
        )
    )
    with reported_errors(), headline:
        compute_button(absent, "Run sweep", key="run_sweep")


def _metrics(result: RunResult) -> None:
    """Draw the run's ε (published and data-dependent), its noise, answers and student."""
    details = result.details
    noise_name = {"lnmax": "b", "gnmax": "σ"}.get(details["aggregator"], "σ2")
    cols = st.columns(5)
    cols[0].metric(
        "ε spent",
        epsilon_text(result.epsilon_spent, result.epsilon),
        help=f"Data-independent: safe to publish. δ = {result.delta:g}. " + details["composition"],
    )
    cols[1].metric(
        "ε, data-dep.",
        epsilon_text(details["epsilon_data_dependent"]),
        help="Data-dependent ε: computed from the private votes, not safe to publish. "
        + details["data_dependent_note"],
    )
    cols[2].metric(
        f"Noise {noise_name} (votes)",
        f"{details['noise']:.3g}",
        help=f"{details['noise_kind']}, the smallest meeting ε over {details['queries']} queries",
    )
    if details["aggregator"] == "confident-gnmax":
        cols[2].metric(
            "Threshold noise σ1 (votes)",
            f"{details['threshold_sigma']:.3g}",
            help="Gaussian sigma of the threshold check on the top vote count",
        )
        cols[2].metric(
            "Threshold T (votes)",
            f"{details['threshold_votes']:g}",
            help=f"A query is answered if its noisy top vote reaches T, out of "
            f"{details['teachers']} teachers",
        )
    cols[3].metric("Queries answered", f"{details['answered']} / {details['queries']}")
    supervised = details["student_supervised_accuracy"]
    cols[4].metric(
        "Student acc.",
        score_text(result.test_accuracy),
        score_change(result.test_accuracy, supervised, "pool"),
        help="The student's test accuracy; the change is what self-training on the public "
        "part's unlabelled pool added. " + details["self_training"]["method"],
    )


def _about(result: RunResult) -> None:
    """Say what the student is, the secure noise, how PATE works, the split, what not to publish."""
    details = result.details
    st.caption(student_sentence(details))
    if details["noise_mode"] == "secure":
        st.caption(
            f"Secure noise: {details['noise_distribution']}, rounded up from the calibrated "
            f"{details['noise_calibrated']:.6g}. " + details["secure_accounting"]
        )
    st.markdown(
        "**Private Aggregation of Teacher Ensembles** (Papernot et al. 2017, 2018). The private "
        "training data is cut into disjoint shards and one *teacher* is trained on each. The "
        "teachers vote on public, unlabelled *queries*; noise is added to the vote counts and the "
        "noisy winner becomes the query's label. A *student* trained on those labels is what gets "
        "released. One teacher can move only one vote per query, so a query costs little privacy "
        "when the teachers agree by a wide margin: the teachers' agreement *is* the privacy "
        "budget."
    )
    split = details["split"]
    st.caption(
        f"Split (seed {result.seed}): {split['private']:,} private examples in "
        f"{details['teachers']} shards of {split['shard_size_min']}–{split['shard_size_max']}, a "
        f"public part of {split['public']:,} of which {details['queries']} are queried "
        f"({details.get('query_choice', 'the first ones')}), and {split['test']:,} test examples "
        f"for the student. " + details.get("privacy_unit_statement", PRIVACY_STATEMENT)
    )
    st.warning(
        "The data-dependent ε is computed from the private votes, so publishing it would leak; "
        "releasing it needs smooth sensitivity (Papernot et al. 2018). The data-independent ε is "
        "the one safe to publish as is. The diagnostics below (teacher accuracies, agreement, the "
        "noise's effect) are computed without noise and are not private either: they explain the "
        "mechanism.",
        icon="⚠️",
    )


def _teachers(result: RunResult) -> None:
    """Draw each teacher's accuracy beside their plurality, and how far the teachers agree."""
    details = result.details
    left, right = st.columns(2)
    chart(
        left,
        plots.teacher_accuracy_strip,
        details["teacher_accuracy"],
        details["plurality_accuracy"],
        chance=1 / result.num_classes,
        key="teachers_strip",
    )
    left.caption(
        "Each dot is one teacher scored on the public queries' true labels. With more teachers "
        "each one sees less data and gets worse, yet their plurality vote (dashed) is usually "
        "better than almost every single teacher."
    )
    chart(
        right,
        plots.agreement_histograms,
        details["top_votes"],
        details["top_two_gap"],
        details["teachers"],
        key="agreement",
    )
    right.caption(
        "Left: how many teachers back the winning class on each query; right: its lead over the "
        "runner-up. Queries with a lead far above the noise keep their answer and, in the "
        "data-dependent analysis, cost almost nothing."
    )


def _noise_effect(result: RunResult) -> None:
    """Draw what the noise changed by the teachers' agreement, and ε against the queries."""
    details = result.details
    left, right = st.columns(2)
    chart(
        left,
        plots.label_accuracy_by_agreement,
        details["top_votes"],
        details["teachers"],
        details["plurality"],
        details["released"],
        details["true_labels"],
        key="by_agreement",
    )
    left.caption(
        f"The noise changed {details['changed_by_noise']:.1%} of the answered queries' labels; "
        f"released labels are right on {result.label_accuracy or 0:.1%} of them, against "
        f"{details['plurality_accuracy']:.1%} for the noiseless plurality. Where the teachers "
        "agree, the noise rarely changes anything; where they split, it decides."
    )
    chart(
        right,
        plots.epsilon_vs_queries,
        details["epsilon_curve"],
        target_epsilon=result.epsilon,
        key="epsilon_queries",
    )
    right.caption(
        f"At the noise calibrated for {details['queries']} queries, the data-independent ε grows "
        "with every query whatever the votes; the data-dependent bound charges agreed queries "
        "less. Fewer queries or more teachers (a wider margin for the same noise) are the levers."
        + (
            f" The dotted curve: {details['answered_only_scope']}"
            if "answered_only_scope" in details
            else ""
        )
    )


render()
