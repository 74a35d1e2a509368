"""A variant that writes English words of its own accord mixes registers, in any script: Hindi as many Indian
users write it ('आपका order confirm हो गया है') is read as the Taglish register is, not as one leak per word."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

from validators.probes.register import register_of


def _element(source: str):
    return SimpleNamespace(source_text=source, inline_tokens=[])


def _register(pairs):
    ctx = SimpleNamespace(specs=[], database_paths=frozenset(), ir=SimpleNamespace(elements=[]))  # no catalogue
    return register_of(ctx, pairs, lambda text, tokens: text, set(), lambda words: set())


SOURCES = [
    "Your order has been placed.",
    "Tell the agent you want to change your address.",
    "You want to know the price of the item.",
    "Ask for a refund to your card.",
    "You are not sure which one you want.",
    "Say that you already received the package.",
    "The agent should help the customer with the exchange.",
]
# the English source writes these words elsewhere: a word counts when the source knows it, not in this field
ELSEWHERE = (
    _element("Please check the details, confirm the options, update nothing already sure; help the customer."),
    "कृपया विवरण जाँचें, विकल्पों की पुष्टि करें, कुछ भी न बदलें; ग्राहक की मदद करें।",
)


def test_hindi_that_writes_english_words_of_its_own_accord_mixes_registers():
    hinglish = [
        "आपका order place हो गया है, please check करें।",
        "Agent को बताइए कि आप अपना address update करना चाहते हैं।",
        "आप item की price जानना चाहते हैं, details भी चाहिए।",
        "अपने card पर refund माँगिए, confirm करके।",
        "आपको sure नहीं है कि आपको कौन सा चाहिए, options देखिए।",
        "कहिए कि आपको package already मिल चुका है।",
        "Agent को customer की exchange में help करनी चाहिए।",
    ]
    pairs = [(_element(s), t) for s, t in zip(SOURCES, hinglish, strict=True)]
    register = _register([*pairs, ELSEWHERE])
    assert register.mixes_english, register.introduced
    assert {"please", "check", "details", "confirm", "options"} <= set(register.introduced)


def test_hindi_that_only_keeps_its_sources_words_does_not():
    kept = [
        "आपका ऑर्डर हो गया है।",
        "एजेंट को बताइए कि आप अपना पता बदलना चाहते हैं।",
        "आप item की कीमत जानना चाहते हैं।",  # 'item' is the source's own word: a leak, not a register
        "अपने कार्ड पर रिफंड माँगिए।",
        "आपको पक्का नहीं पता कि आपको कौन सा चाहिए।",
        "कहिए कि आपको पैकेज पहले ही मिल चुका है।",
        "एजेंट को ग्राहक की मदद करनी चाहिए।",
    ]
    register = _register([*((_element(s), t) for s, t in zip(SOURCES, kept, strict=True)), ELSEWHERE])
    assert not register.mixes_english and register.introduced == Counter()
