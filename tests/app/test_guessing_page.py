"""The "what epsilon means" page plays a round of the guessing game and tallies it."""

from app_helpers import assert_no_errors, open_page

from labeldp_core.data import load_dataset
from labeldp_core.guessing import draw_round


def test_the_page_plays_a_round_and_tallies_it():
    app = open_page("pages/epsilon_meaning.py", epsilon="2.0", epochs="1")
    assert_no_errors(app)
    labels = load_dataset("digits").y_train
    game_round = draw_round(labels, 10, 2.0, 0)
    released = [m for m in app.metric if m.label.startswith("Released label (round 1)")]
    assert released[0].value == str(game_round.released_label)
    assert not app.get("image")  # the image stays hidden until the guess
    app.button(key=f"guess_{game_round.true_label}").click().run()
    assert_no_errors(app)
    assert any("1 right of 1" in c.value for c in app.caption)
    assert app.get("image")
    app.button(key="guess_next").click().run()
    second = draw_round(labels, 10, 2.0, 1)
    wrong = (second.true_label + 1) % 10
    app.button(key=f"guess_{wrong}").click().run()
    assert any("1 right of 2" in c.value for c in app.caption)
    app.button(key="guess_reset").click().run()
    assert any("0 right of 0" in c.value for c in app.caption)
