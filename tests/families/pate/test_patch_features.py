"""PATE with ``features=patches``: label-free features, logistic teachers and student.

The scrambling test shows the student reads no public label; the shard tests that each teacher
reads its own shard's labels only; the bad inputs are refused with the setting's name.
"""

import inspect
import json

import numpy as np
import pytest
import torch

from labeldp_core.__main__ import main
from labeldp_core.data import load_dataset
from labeldp_core.data.splits import teacher_split
from labeldp_core.data.tables import example_table
from labeldp_core.errors import InvalidInputError
from labeldp_core.experiments import make_config, run
from labeldp_core.families.pate import patch_student
from labeldp_core.families.pate.patch_student import (
    PatchClassifier,
    feature_space,
    fit_logistic,
    logistic_votes,
    spread_queries,
)
from tests.families.pate.scrambled import (
    assert_the_student_read_no_public_label,
    run_with_public_labels_scrambled,
)

PATCHES = {"teachers": 5, "queries": 60, "features": "patches"}


@pytest.fixture(scope="module")
def digits_space():
    data = load_dataset("digits")
    return data, feature_space(data.x_train, data.x_train[:300], seed=0)


def test_the_released_student_computes_on_images_what_it_learnt_on_features(digits_space):
    # The canary audit and any user apply the student to images: its torch encoding must be
    # the NumPy one (a wrong patch order or pooling cell would move the logits far more).
    data, space = digits_space
    head = fit_logistic(space.encode(data.x_train[:400]), data.y_train[:400], 10)
    model = PatchClassifier(space, head, data.x_train.shape[1:])
    images = data.x_train[400:600]
    with torch.no_grad():
        on_images = model(torch.tensor(images)).numpy()
        on_features = head(torch.from_numpy(space.encode(images))).numpy()
    np.testing.assert_allclose(on_images, on_features, atol=1e-3)
    assert np.mean(on_images.argmax(axis=1) == data.y_train[400:600]) > 0.8  # it learnt


def test_each_teacher_reads_only_its_own_shard_and_the_shards_are_disjoint(digits_space):
    data, space = digits_space
    split = teacher_split(data.n_train, 5, seed=0)
    parts = np.concatenate([split.public, *split.shards])
    assert np.array_equal(np.sort(parts), np.arange(data.n_train))  # disjoint and complete
    features = space.encode(data.x_train)
    queries = features[split.public]
    votes = logistic_votes(features, data.y_train, split.shards, queries, 10)
    # Every label outside shard 2 changed: only teacher 2's votes stay; changing shard 2's
    # labels alone changes teacher 2's votes only.
    outside = data.y_train.copy()
    others = np.setdiff1d(np.arange(data.n_train), split.shards[2])
    outside[others] = (outside[others] + 1) % 10
    again = logistic_votes(features, outside, split.shards, queries, 10)
    assert np.array_equal(again[2], votes[2])
    assert all(not np.array_equal(again[i], votes[i]) for i in (0, 1, 3, 4))
    inside = data.y_train.copy()
    inside[split.shards[2]] = (inside[split.shards[2]] + 1) % 10
    moved = logistic_votes(features, inside, split.shards, queries, 10)
    assert np.array_equal(np.delete(moved, 2, axis=0), np.delete(votes, 2, axis=0))
    assert not np.array_equal(moved[2], votes[2])


def test_the_patch_student_never_reads_a_public_label(cache, isolated_cache, monkeypatch):
    # Same run twice, the second with every public label scrambled: features, queries, votes,
    # release, student and pseudo-labels are identical; the clean reference (the student on the
    # queries' true labels) and the teachers' accuracies, which read them, change.
    config = make_config("pate", "digits", 4.0, epochs=1, settings=PATCHES)
    first = run(config, cache)
    second = run_with_public_labels_scrambled(
        config, PATCHES["teachers"], isolated_cache, monkeypatch
    )
    assert_the_student_read_no_public_label(first, second)
    clean = "student_clean_labels_accuracy"  # the student on the queries' true labels
    assert second.details[clean] != first.details[clean]


def test_a_patch_run_reports_its_features_and_both_epsilons(cache, monkeypatch):
    fits = []
    real = patch_student.fit_logistic

    def spy(features, labels, num_classes):
        fits.append(np.asarray(labels))
        return real(features, labels, num_classes)

    monkeypatch.setattr(patch_student, "fit_logistic", spy)
    result = run(make_config("pate", "digits", 8.0, epochs=1, settings=PATCHES), cache)
    details = result.details
    json.dumps(result.to_dict(), allow_nan=False)
    assert result.epsilon_spent <= 8.0 and result.epsilon_spent == pytest.approx(8.0, rel=1e-6)
    assert details["epsilon_data_dependent"] <= result.epsilon_spent
    assert details["features"] == "patches" and details["teacher_epochs"] is None
    assert "reads images only" in details["privacy_unit_statement"]
    assert result.test_accuracy > 0.3 and details["plurality_accuracy"] > 0.5  # chance: 0.1
    # Five teachers, then the student on exactly the released answers (post-processing).
    released = np.asarray(details["released"])
    np.testing.assert_array_equal(fits[5], released[released >= 0])
    # The queries are spread by the features: not the public part's first images.
    split = teacher_split(load_dataset("digits").n_train, 5, 0)
    true = load_dataset("digits").y_train
    assert details["true_labels"] != true[split.public[:60]].tolist()


def test_spread_queries_are_distinct_fixed_by_the_seed_and_read_no_label():
    assert set(inspect.signature(spread_queries).parameters) == {"features", "count", "seed"}
    points = np.random.default_rng(0).normal(size=(400, 20)).astype(np.float32)
    chosen = spread_queries(points, 50, seed=1)
    assert chosen.size == np.unique(chosen).size == 50 and chosen.max() < 400
    assert np.array_equal(chosen, spread_queries(points, 50, seed=1))
    assert np.array_equal(spread_queries(points, 400, seed=1), np.arange(400))


def test_spread_queries_cover_every_cluster_a_random_draw_can_miss():
    # 20 tight clusters, one of 200 points and 19 of 5: 20 spread queries hit each once; 20
    # drawn at random would land in the large one about twice in three and miss most others.
    rng = np.random.default_rng(2)
    sizes = np.array([200] + [5] * 19)
    centres = rng.normal(scale=50.0, size=(20, 5))
    labels = np.repeat(np.arange(20), sizes)
    points = centres[labels] + rng.normal(size=(labels.size, 5))
    assert np.unique(labels[spread_queries(points, 20, seed=0)]).size == 20


def test_fit_logistic_covers_every_class_count():
    features = np.random.default_rng(0).normal(size=(40, 3)).astype(np.float32)
    inputs = torch.from_numpy(features)
    for present in ([4], [1, 3], [0, 2, 4]):
        labels = np.array(present)[np.arange(40) % len(present)]
        features_sep = (features + 3.0 * labels[:, None]).astype(np.float32)  # separable
        layer = fit_logistic(features_sep, labels, 5)
        with torch.no_grad():
            predicted = layer(torch.from_numpy(features_sep)).argmax(dim=1).numpy()
        assert set(predicted) <= set(present)  # absent classes never predicted
        assert np.mean(predicted == labels) > 0.9
    assert layer(inputs).shape == (40, 5)


def test_an_unknown_features_value_is_refused_with_the_choices():
    with pytest.raises(InvalidInputError, match=r"sift.*pixels, patches"):
        make_config("pate", "digits", 1.0, settings={"features": "sift"})


def test_patches_are_refused_on_a_table(tmp_path, capsys):
    path = tmp_path / "wine.csv"
    path.write_bytes(example_table("wine"))
    argv = ["run", "pate", "--epsilon", "1", "--epochs", "1", "--json", "--set", "teachers=5"]
    argv += ["--dataset", f"file:{path}", "--label", "class", "--set", "features=patches"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "features=patches cuts patches out of images" in captured.err


def test_patches_are_the_default_on_fashion_mnist_only():
    assert make_config("pate", "fashion-mnist", 2.0).setting("features") == "patches"
    assert make_config("pate", "digits", 2.0).setting("features") == "pixels"
    assert make_config("pate", "mnist", 2.0).setting("features") == "pixels"


def test_the_canary_audit_reads_the_patch_student_on_images(cache, monkeypatch):
    # The released student is an image model (PatchClassifier), so the canary audit, which
    # applies it to the canaries' images, runs with features=patches as with pixels.
    from labeldp_core.experiments import mechanism_spec
    from labeldp_core.model_audit.canaries import draw_canaries
    from labeldp_core.model_audit.context import CanaryContext
    from labeldp_core.model_audit.protected import protected_rows

    config = make_config("pate", "digits", 2.0, 0, 1, PATCHES)
    data = load_dataset("digits")
    canaries = draw_canaries(data.y_train, 10, 120, 0, protected_rows(config, data))
    noted = []
    real = CanaryContext.note_released_model

    def spy(ctx, model):
        noted.append(model)
        real(ctx, model)

    monkeypatch.setattr(CanaryContext, "note_released_model", spy)
    ctx = CanaryContext(config, "classification", cache, lambda *_: None, canaries=canaries)
    mechanism_spec("pate").runner(config, ctx)
    probabilities = ctx.canary_probabilities()
    assert probabilities.shape == (120, 10) and np.allclose(probabilities.sum(axis=1), 1.0)
    assert [type(model) for model in noted] == [PatchClassifier]


#: The sentence that extends the guarantee to a whole private example (image and label).
WHOLE_EXAMPLE = "covers replacing a whole private example"


@pytest.mark.parametrize("features", ["pixels", "patches"])
def test_the_statement_covers_a_whole_example_only_where_no_private_image_is_read(cache, features):
    # Issue 49, item 2: with patches the dictionary is learnt from every training image, so
    # one private image moves every teacher's features and which queries are asked; the JSON
    # may then claim the label only. On pixels each teacher reads its own shard alone.
    settings = {"teachers": 5, "queries": 40, "features": features, "model": "logistic"}
    result = run(make_config("pate", "digits", 4.0, epochs=1, settings=settings), cache)
    statement = json.loads(json.dumps(result.to_dict()))["details"]["privacy_unit_statement"]
    assert "one private training label" in statement
    if features == "patches":
        assert WHOLE_EXAMPLE not in statement
        assert "does not cover replacing a private image" in statement
        assert "dictionary of image patches learnt from every training image" in statement
    else:
        assert WHOLE_EXAMPLE in statement
        assert "patch" not in statement
