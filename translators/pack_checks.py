"""Release checks of a language pack: on the pack itself, and on a variant's translations before
anything is written (glossary use, forbidden renderings, task parity, persona language, control
tokens). A failing check stops the write with the list of problems."""

from __future__ import annotations

import re
from functools import partial

import langcodes

from babelflow.errors import BabelflowError
from babelflow.glossary import TermMatcher, term_matcher
from babelflow.ir import IRDocument, TranslationType
from babelflow.language_pack import LanguagePack
from babelflow.llm.estimate_mode import is_estimating
from babelflow.memo import BoundedMemo
from babelflow.target_language import in_pack_language
from babelflow.text import CONTROL_TOKEN, UNACCENT_TABLE, unmirror
from translators.placeholders import protect

# emails, control tokens, ids, digit runs. An email starts where its run of local-part characters
# starts and an id at a word start (or a "#"): started inside a long run, each scanned the rest of it
# (20,000 letters in a task took 21 s). Same tokens on every tau2 string; one edge differs: an email
# glued by "+"/"-" to an id that ends in "/word" ("1/a+b@c.de") is no longer a token of its own.
# an email ends at its last label: the sentence's full stop after it is not part of it (Thai ends with none)
_PARITY = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+|###[A-Z_-]+###|(?:#|(?<!\w))\w*\d\w*(?:[-/]\w+)*")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$", re.I)


_NUMBER_CHARS = frozenset("0123456789.,/-")


_MEASURE = re.compile(r"(\d+(?:[.,]\d+)?)-[A-Za-z]+")  # '15-inch', '1000-piece': a number and its unit word
_GROUPED = re.compile(r"(?<=\d)[,.\u00a0\u202f ](?=\d{3}(?!\d))")  # '1,000' / '1.000' / '1 000' is 1000


def _numeric_core(token: str) -> str:
    """A quantity with a unit ("3-4k", "5k", "10km", "15-inch") keeps its number, not its unit: a
    translation writes the unit its own way ("3-4 mil", "15 นิ้ว"); an id ("W2378156", "HAT-12") is kept whole."""
    measure = _MEASURE.fullmatch(token)
    if measure:
        return measure.group(1)
    letters = len(token) - len(token.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    number = token[: len(token) - letters]
    if 1 <= letters <= 3 and number and number[-1].isdigit() and set(number) <= _NUMBER_CHARS:
        return number
    return token


def _fold(text: str, pack: LanguagePack) -> str:
    """Case-insensitive form; for accented pseudo-locales the accents are mapped back first
    (their upper and lower cases are unrelated code points, e.g. Ɓ and ƀ)."""
    if pack.offline_rendering == "accented":
        text = text.translate(UNACCENT_TABLE)
    elif pack.offline_rendering == "mirrored":
        text = unmirror(text)
    return text.casefold()


def check_pack(pack: LanguagePack) -> list[str]:
    """Problems of the pack itself (empty list: releasable)."""
    problems = []
    if not pack.is_pseudo:
        likely = langcodes.Language.get(pack.tag).maximize()
        if likely.script != pack.script:
            problems.append(f"script {pack.script} differs from CLDR's likely script {likely.script} for {pack.tag}")
    try:
        conventions = pack.conventions()
    except Exception as exc:  # babel raises several types for unknown locales
        return problems + [f"CLDR has no locale {pack.cldr_locale!r}: {exc}"]
    if not pack.is_pseudo and conventions["cldr_text_direction"] != pack.direction:
        problems.append(f"direction {pack.direction} differs from CLDR ({conventions['cldr_text_direction']})")
    for text, what in [
        (pack.agent_language_clause, "agent_language_clause"),
        (pack.user_simulator.persona, "user_simulator.persona"),
    ] + [(g.target, f"glossary {g.source!r}") for g in pack.glossary]:
        if not text.strip():
            problems.append(f"{what} is empty")
        elif not in_pack_language(text, pack) and not pack.derived_from_cldr:  # CLDR defaults are English on purpose
            problems.append(f"{what} is not written in {pack.name}: {text[:60]!r}")
    targets = {g.target for g in pack.glossary}
    problems += [
        f"forbidden rendering {f.target!r} is also a glossary target" for f in pack.forbidden if f.target in targets
    ]
    return problems


# (pack, benchmark, artifact, role, source, target) -> problems; telecom holds ~3,400 distinct texts per language
_CHECKED: BoundedMemo[tuple, tuple[str, ...]] = BoundedMemo("pack checks", 500_000)


def check_translations(pack: LanguagePack, ir: IRDocument, targets: dict[str, str]) -> list[str]:
    """Variant-level release checks on the translations about to be written.

    The checks of one field depend only on its artifact, role, source and target, which repeat
    (telecom: 170k fields, ~3,400 distinct texts): each distinct combination is checked once per
    process, so a rerun after one fixed unit checks that unit, not the benchmark."""
    problems: list[str] = []
    glossary = pack.glossary_for(ir.benchmark)
    matcher = term_matcher(tuple(term.source for term in glossary))
    forbidden = [f for f in pack.forbidden if f.benchmark in ("*", ir.benchmark)]
    pack_key = (pack.tag, pack.version, pack.model_dump_json())
    for element in ir.elements:
        if element.translation_type is TranslationType.PRESERVE or element.id not in targets:
            continue
        key = (pack_key, ir.benchmark, element.artifact, element.role, element.source_text, targets[element.id])
        target = targets[element.id]
        # a partial, not a lambda: mypy infers its type
        compute = partial(_field_problem_tuple, pack, glossary, matcher, forbidden, element, target)
        problems += _CHECKED.get_or_compute(key, compute)
    return problems


def _field_problem_tuple(
    pack: LanguagePack, glossary, matcher: TermMatcher, forbidden, element, target: str
) -> tuple[str, ...]:
    return tuple(_field_problems(pack, glossary, matcher, forbidden, element, target))


def _field_problems(pack: LanguagePack, glossary, matcher: TermMatcher, forbidden, element, target: str) -> list[str]:
    problems: list[str] = []
    source = element.source_text
    where = f"{element.artifact} {element.role}"
    # a term inside a token kept as it is ('session' in '8-session', an id) is kept with it, as the translator
    # sees it; one index per glossary, not a regex per term and field, and no protection where none occurs
    terms = (
        matcher.outermost(protect(source, preserve_tokens=element.inline_tokens).text)
        if glossary and matcher.present(source)
        else []
    )
    folded = _fold(target, pack) if terms else ""
    for term in (glossary[index] for index in terms):
        if _fold(term.target, pack) not in folded:
            problems.append(f"{where}: glossary term {term.source!r} is not rendered as {term.target!r}")
    for rendering in forbidden:
        if rendering.target in target:
            problems.append(f"{where}: forbidden rendering {rendering.target!r}")
    # what the user must say back (ids, amounts) survives a free translation; a canonical term is rendered
    # once for every field that names it, which the consistency checks hold (VitaBench's "5/F" addresses)
    if "user_scenario" in element.role and element.translation_type is TranslationType.TRANSLATE_FREE:
        tokens = [
            _numeric_core(_ORDINAL.sub(r"\1", t)) for t in _PARITY.findall(source)
        ]  # "19th" may become "19." but 19 stays
        ungrouped = _GROUPED.sub("", target)  # a number in the target's digit grouping is the same number
        missing = [token for token in tokens if token not in target and token not in ungrouped]
        if missing:
            problems.append(f"{where}: task parity broken, missing {missing[:5]}")
    if element.role.endswith(".persona") and not in_pack_language(target, pack):
        problems.append(f"{where}: persona is not in {pack.name}")
    lost = [token for token in CONTROL_TOKEN.findall(source) if target.count(token) < source.count(token)]
    if lost:
        problems.append(f"{where}: control tokens lost {lost}")
    return problems


def enforce(pack: LanguagePack, ir: IRDocument, targets: dict[str, str]) -> None:
    # an estimate's texts are stand-ins of the right size (babelflow/llm/estimate.py), not translations to judge
    judged = [] if is_estimating() else check_translations(pack, ir, targets)
    problems = check_pack(pack) + judged
    if problems:
        shown = "\n  ".join(problems[:20])
        raise BabelflowError(
            f"Language pack {pack.tag} {pack.version}: {len(problems)} release check(s) failed; "
            f"nothing was written:\n  {shown}",
            field="language pack",
            fix="fix the pack (glossary, forbidden renderings) or confirm the translation findings, then rerun",
        )
