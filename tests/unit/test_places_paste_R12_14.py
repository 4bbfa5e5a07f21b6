"""R12.14: the map editor's pasted list (maps.paste.parse, pure): one place a line,
`name; income; ⚑`, income and mark optional and in either order, ⚑ or ! or x for a hideout
place; blank lines are skipped but keep the numbering, and a part that means nothing is kept
to be reported against its line."""

from app.maps.paste import parse


def test_r12_14_each_line_is_a_name_an_income_and_a_mark():
    lines = parse("Ravenhold; 3; ⚑\n\n  Ember Docks ;2\nOld Mill; !\nWolf Tor; x; 5\nGrey Ford;;\n")
    assert [(line.number, line.place, line.unknown) for line in lines] == [
        (1, {"name": "Ravenhold", "hideout_slot": True, "income": 3}, []),
        (3, {"name": "Ember Docks", "hideout_slot": False, "income": 2}, []),
        (4, {"name": "Old Mill", "hideout_slot": True}, []),
        (5, {"name": "Wolf Tor", "hideout_slot": True, "income": 5}, []),
        (6, {"name": "Grey Ford", "hideout_slot": False}, []),
    ]


def test_r12_14_what_means_nothing_is_kept_for_its_line():
    (a, b, c) = parse("Mill; lots\nFord; 2; 3\n; 4")
    assert a.unknown == ["lots"] and b.unknown == ["3"] and b.place["income"] == 2
    assert c.place == {"name": "", "hideout_slot": False, "income": 4}  # the schema refuses the empty name
    assert parse("Keep; -3")[0].unknown == ["-3"] and parse("Keep; ⚑; ⚑")[0].unknown == ["⚑"]
    assert parse("") == [] and parse("\n  \n") == []
