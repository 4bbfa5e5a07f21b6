"""Issue 29 item 7: models of one profile are told apart — numbered among their profile in the
company, or by a name the player gives (companies.rules.model_labels)."""

from hypothesis import given
from hypothesis import strategies as st

from app.companies.rules import clean_given_name, model_labels


def test_models_of_one_profile_are_numbered_and_a_single_one_keeps_its_name():
    models = [(3, "orcs.ax", "Ax", None), (1, "orcs.ax", "Ax", None), (2, "orcs.boss", "Boss", None)]
    assert model_labels(models) == {1: "Ax 1", 3: "Ax 2", 2: "Boss"}


def test_a_given_name_is_the_label_and_the_others_keep_their_numbers():
    models = [(1, "orcs.ax", "Ax", "Grim"), (2, "orcs.ax", "Ax", None), (3, "orcs.ax", "Ax", None)]
    assert model_labels(models) == {1: "Grim", 2: "Ax 2", 3: "Ax 3"}


def test_a_sale_renumbers_on_reading():
    assert model_labels([(2, "orcs.ax", "Ax", None)]) == {2: "Ax"}


def test_an_empty_given_name_is_no_name():
    assert clean_given_name("  ") is None and clean_given_name(None) is None and clean_given_name(" Grim ") == "Grim"


@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from([None, "", "Grim"])), max_size=12))
def test_unnamed_models_of_one_profile_never_share_a_label(rows):
    models = [(i, key, key.upper(), given) for i, (key, given) in enumerate(rows)]
    labels = model_labels(models)
    assert set(labels) == {m[0] for m in models}
    unnamed = [labels[i] for i, key, _n, given in models if not given]
    assert len(unnamed) == len(set(unnamed))
