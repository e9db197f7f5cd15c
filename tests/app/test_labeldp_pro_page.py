"""The LabelDP-Pro page: its smoothing control defers to the defaults unless fixed."""

import pytest
from app_helpers import assert_no_errors, open_page

PAGE = "pages/labeldp_pro.py"


def _recording(monkeypatch) -> list:
    """Every config the page asks for, with its training not run (no point is computed)."""
    import labeldp_core.experiments
    from labeldp_core.experiments import road

    made = []
    real = labeldp_core.experiments.make_config

    def recording(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(labeldp_core.experiments, "make_config", recording)
    monkeypatch.setattr(road, "QUICK_S", 0.0)
    monkeypatch.setattr(road, "AUTO_COMPUTE_MAX_IMAGES", 0)  # not computed: a button
    return made


@pytest.mark.parametrize("dataset", ["fashion-mnist", "digits"])
def test_the_default_choice_takes_lambda_from_the_noise_on_every_dataset(monkeypatch, dataset):
    made = _recording(monkeypatch)
    app = open_page(PAGE, dataset=dataset, epochs="1")
    assert_no_errors(app)
    smoothing = app.selectbox(key="smoothing")
    assert smoothing.value == "recipe"
    assert smoothing.format_func("recipe") == "from the noise (the default)"
    assert made[-1].setting("smoothing_rule") == "noise"
    assert made[-1].setting("rate_rule") == "smoothing"
    assert made[-1].setting("projection_start") == "predicted"
    smoothing.set_value(0.85).run()
    assert_no_errors(app)
    assert made[-1].setting("smoothing_rule") == "fixed"
    assert made[-1].setting("smoothing") == 0.85


def test_the_run_says_how_a_changed_label_is_accounted_and_what_is_only_checked(
    instant_training,
):
    app = open_page(PAGE, epochs="1", model="logistic")
    assert_no_errors(app)
    captions = " ".join(c.value for c in app.caption)
    # The default is the proved group-privacy reading; the tight one is offered, not assumed.
    assert "removing its example and adding it back" in captions
    assert "accounted for replacing one gradient" not in captions


def test_the_run_names_the_model_labeldp_pro_trained_for_the_cnn_choice(instant_training):
    # Issue 51: on digits the model choice cnn trains logistic regression (digits' recipe); the
    # caption called the dotted line "the same model" whatever LabelDP-Pro trained.
    app = open_page(PAGE, dataset="digits", epochs="1")
    assert_no_errors(app)
    captions = " ".join(c.value for c in app.caption)
    assert "trains logistic (the model choice cnn, the digits recipe)" in captions
    assert "the same model trained on the true labels" not in captions


def test_a_run_on_patch_features_says_what_its_model_read(instant_training, monkeypatch):
    # Fashion-MNIST's recipe trains on label-free patch features; on digits (fast), as a setting.
    from labeldp_core.families.labeldp_pro import experiment

    recipe = experiment._DATASET_RECIPES["digits"] | {"features": "patches"}
    monkeypatch.setitem(experiment._DATASET_RECIPES, "digits", recipe)
    app = open_page(PAGE, dataset="digits", epochs="1")
    assert_no_errors(app)
    captions = " ".join(c.value for c in app.caption)
    assert "the digits recipe) on label-free patch features (learnt from the images alone" in (
        captions
    )
