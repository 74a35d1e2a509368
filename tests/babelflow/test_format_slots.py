"""Format slots of code texts (issue 38), on the texts τ²'s telecom device tools and NL-assertion judge hold
(τ²-bench, MIT: tau2/domains/telecom/user_tools.py, tau2/evaluator/evaluator_nl_assertions.py) and the
broken renderings Apertium made of them before slots were protected."""

from __future__ import annotations

from babelflow.format_slots import code_slots, format_slots, slot_problems, target_slot_problems

WIFI = "Wi-Fi is ON and connected to '{status['ssid']}'. Signal strength: {status['signal_strength'].value}."
WIFI_APERTIUM = "Wi-Fi es ENCIMA y conectado a '{estado['ssid']}'. Fuerza de señal: {estado['signal_strength'].Valor}."
MODES = (
    "Failed to set network mode: '{mode}' is not a valid option. Please use one of: "
    "{', '.join([m.value for m in NetworkModePreference])}\nStatus Bar: {self._check_status_bar()}"
)
TOGGLE = "Airplane Mode is now {'ON' if new_state else 'OFF'}."
JUDGE = """
        Example response structure:
        {
            "results": [
                {
                    "expectedOutcome": "<one of the expected outcomes from the input>",
                    "reasoning": "<reasoning trace>",
                    "metExpectation": <false or true>,
                }
            ]
        }
        """


def _texts(text: str, fstring: bool) -> list[str]:
    return [slot.text for slot in format_slots(text, fstring=fstring)]


def test_fstring_slots_are_whole_expressions_with_quotes_and_brackets():
    assert _texts(WIFI, True) == ["{status['ssid']}", "{status['signal_strength'].value}"]
    assert _texts(MODES, True) == [
        "{mode}",
        "{', '.join([m.value for m in NetworkModePreference])}",
        "{self._check_status_bar()}",
    ]
    assert _texts(TOGGLE, True) == ["{'ON' if new_state else 'OFF'}"]
    assert _texts("a {{literal}} brace and {x!r:>10}", True) == ["{x!r:>10}"]


def test_plain_strings_hold_format_fields_printf_and_jinja_but_json_is_text():
    assert _texts(JUDGE, False) == []
    text = "Use {hotel_name} at {0} for %(user)s, %d nights, {{ customer.name }} {% if vip %} 50% off"
    assert _texts(text, False) == ["{hotel_name}", "{0}", "%(user)s", "%d", "{{ customer.name }}", "{% if vip %}"]


def test_translated_dropped_duplicated_and_swapped_slots_are_told_apart():
    source = _texts(WIFI, True)
    assert slot_problems(source, WIFI, fstring=True) == []
    translated = slot_problems(source, WIFI_APERTIUM, fstring=True)
    assert "slot \"{estado['ssid']}\" is not in the source" in translated
    assert "slot \"{status['ssid']}\" is missing (translated or dropped)" in translated
    dropped = slot_problems(source, WIFI.replace("{status['ssid']}", ""), fstring=True)
    assert dropped == ["slot \"{status['ssid']}\" is missing (translated or dropped)"]
    doubled = slot_problems(source, WIFI + " {status['ssid']}", fstring=True)
    assert doubled == ["slot \"{status['ssid']}\" appears 2 times, the source has it 1"]
    swapped = WIFI.replace("{status['ssid']}", "\0").replace("{status['signal_strength'].value}", "{status['ssid']}")
    swapped = swapped.replace("\0", "{status['signal_strength'].value}")
    assert slot_problems(source, swapped, fstring=True) == [
        "slots swapped: \"{status['signal_strength'].value}\" now comes where the source has \"{status['ssid']}\""
    ]


def test_keys_the_code_reads_are_slots_with_their_evidence():
    reads = {
        "reasoning": "evaluator/evaluator_nl_assertions.py:163",
        "results": "evaluator/evaluator_nl_assertions.py:165",
    }
    slots = code_slots(JUDGE, fstring=False, key_reads=reads)
    assert [(s.text, s.kind) for s in slots] == [('"results"', "parsed_key"), ('"reasoning"', "parsed_key")]
    assert "evaluator_nl_assertions.py:163" in slots[1].evidence
    # a key only mentioned in prose (not a JSON key) is not one
    assert code_slots('explain your "reasoning" briefly', fstring=False, key_reads=reads) == []
    assert target_slot_problems(slots, JUDGE.replace('"reasoning"', '"razonamiento"')) == [
        "slot '\"reasoning\"' is missing (translated or dropped)"
    ]
