"""A clock time's half of the day (validators/probes/clock_times.py). The texts are slices of real runs:
Apertium's Spanish of VitaBench instore (MIT) and of AgentDojo travel, which wrote 'AM' as 'SOY' ('I am') in
18 places that a reviewer, not a check, found; and the VitaBench authors' own English of a Chinese task, where
'中午11:45' (around noon) became '11:45' rightly."""

from __future__ import annotations

import pytest

from babelflow.day_periods import day_periods
from validators.probes.clock_times import day_period_changes
from validators.probes.pair_checks import FieldPair, check_pair

CHANGED = [  # (source, target, language, source language, how)
    (
        "schedule a instore date at 10:00 AM. By the way",
        "horario un instore cita en 10:00 SOY. Por cierto",
        "es",
        "en",
        "garbled",
    ),
    (
        "make an appointment for tomorrow at 11 AM. You'll",
        "hacer una cita para mañana en 11 SOY.    Serás",
        "es",
        "en",
        "garbled",
    ),
    ("book it for 9 AM tomorrow", "libro él para 9 SOY mañana", "es", "en", "garbled"),  # 'mañana': tomorrow
    ("Pick up at 3:00 PM", "Recoge a las 3:00", "es", "en", "other_half"),  # reads as three in the morning
    ("Pick up at 10:00 AM", "Recoge a las 10:00 p. m.", "es", "en", "other_half"),
    ("Pick up at 3:00 PM EST", "Recoge a las 3:00 EST", "es", "en", "other_half"),  # 'EST' is the source's
    ("下午3:00送达", "Delivered at 3:00", "en", "zh", "other_half"),
]
KEPT = [  # the same half of the day, written the target's way
    ("Pick up at 3:00 PM", "Recoge a las 15:00", "es", "en"),
    ("Pick up at 3 PM", "Recoge a las 3 de la tarde", "es", "en"),
    ("Pick up at 3:00 PM tomorrow", "Recoge mañana a las 3:00 p.\u202fm.", "es", "en"),
    ("change it to 6:30PM, then", "cámbialo a 6:30PM, entonces", "es", "en"),
    ("Pick up at 3:00 PM", "Nhận lúc 3:00 chiều", "vi", "en"),
    ("Pick up at 3:00 PM", "Nhận lúc 3:00 CH", "vi", "en"),
    ("Pick up at 3:00 PM", "รับเวลา บ่าย 3:00", "th", "en"),
    ("Pick up at 3:00 PM", "Ambil pukul 3.00 sore", "id", "en"),
    ("Pick up at 11:00 AM", "Ambil pukul 11.00 siang", "id", "en"),  # siang: 10:00-15:00 in CLDR
    ("Open at 10:00 AM daily", "Abierto a las 10:00 diario", "es", "en"),  # the 24-hour clock
    ("你今天中午11:45才结束例会", "Your regular meeting will end at 11:45 today", "en", "zh"),
    ("下午3点半送达", "Delivered at 3:30 PM", "en", "zh"),
]


@pytest.mark.parametrize(("source", "target", "language", "source_language", "how"), CHANGED)
def test_a_garbled_or_turned_over_day_period_is_found(source, target, language, source_language, how):
    changes = day_period_changes(source, target, language, source_language)
    assert [change.how for change in changes] == [how]


@pytest.mark.parametrize(("source", "target", "language", "source_language"), KEPT)
def test_a_day_period_the_target_writes_its_own_way_is_no_change(source, target, language, source_language):
    assert day_period_changes(source, target, language, source_language) == []


def test_cldr_forms_say_a_half_only_where_their_range_lies_in_it():
    assert "de la tarde" in day_periods("es").afternoon and "manana" in day_periods("es").morning
    assert "siang" in day_periods("id").other and "中午" in day_periods("zh").other  # beside or across noon


def test_the_pair_check_grades_a_turned_over_time_a_tool_reads_critical_and_reads_pseudo_accents():
    pair = FieldPair(artifact="tasks.json", location="instructions", source="Pick up at 3:00 PM", target="a las 3:00")
    (hit,) = [h for h in check_pair("v1", pair, "es") if h.kind == "day_period_changed"]
    assert hit.severity.value == "critical" and hit.evidence[0].detail["written"] == "3:00"
    pseudo = pair.model_copy(update={"target": "[Þíçķ ûþ åţ 3:00 ÞṀ one two]"})  # en-XA's 'PM'
    assert not [h for h in check_pair("v1", pseudo, "en-XA") if h.kind == "day_period_changed"]
    garbled = pair.model_copy(update={"source": "open at 10:00 AM", "target": "abierto en 10:00 SOY"})
    (hit,) = [h for h in check_pair("v1", garbled, "es") if h.kind == "day_period_changed"]
    assert hit.severity.value == "major"
