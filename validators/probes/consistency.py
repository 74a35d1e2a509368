"""Layer 2, cross-artifact consistency: preserved values unchanged, canonical terms rendered one
way everywhere, and every reference (ids, names, codes quoted in prose) still resolvable."""

from __future__ import annotations

from collections import Counter, defaultdict

from babelflow.ir import TranslationType
from validators.context import ValidationContext
from validators.findings import Finding, Layer, Severity, SuppressedCheck, make_finding


def check_consistency(ctx: ValidationContext, validator_id: str, suppressed: list[SuppressedCheck]) -> list[Finding]:
    skip = {s.artifact for s in suppressed if s.layer is Layer.CONSISTENCY}
    findings: list[Finding] = []
    canonical_targets: dict[tuple[str, str], list[tuple]] = defaultdict(list)
    map_targets = ctx.canonical_map.lookup() if ctx.canonical_map else {}
    canonical_by_value: dict[str, str] = {}
    for element in ctx.ir.elements:
        if element.artifact in skip or element.locator.kind == "python_literal":
            continue
        target = ctx.target_text(element)
        if element.translation_type is TranslationType.PRESERVE:
            if target != element.source_text:
                severity = Severity.CRITICAL if element.locator.kind != "markdown_block" else Severity.MAJOR
                findings.append(
                    make_finding(validator_id, Layer.CONSISTENCY, "preserved_value_changed", severity, element.artifact, element.role + _path(element), f"Preserve field ({element.preserve_reason.value}) changed",
                                 element_id=element.id, source=element.source_text, target=target, detail={"typing_rule": element.typing_rule})
                )
        elif element.translation_type is TranslationType.TRANSLATE_CANONICAL:
            canonical_targets[(element.canonical_group or "default", element.source_text)].append((element, target))
            canonical_by_value[element.source_text] = element.canonical_group or "default"
    for (group, source), renderings in canonical_targets.items():
        counts = Counter(t for _, t in renderings)
        expected = map_targets[(group, source)].target if (group, source) in map_targets else counts.most_common(1)[0][0]
        for element, target in renderings:
            if target != expected:
                findings.append(
                    make_finding(validator_id, Layer.CONSISTENCY, "canonical_inconsistent", Severity.CRITICAL, element.artifact, element.role + _path(element),
                                 f"canonical {group} term rendered differently from its reviewed rendering", element_id=element.id, source=source, target=target, detail={"expected": expected})
                )
    findings += _references(ctx, validator_id, skip, canonical_targets, map_targets)
    findings += _overlay(ctx, validator_id)
    return findings


def _path(element) -> str:
    locator = element.locator
    return " @ " + ("$" + "".join(f"[{p!r}]" for p in locator.path) if hasattr(locator, "path") else f"block {getattr(locator, 'block_index', '?')}")


def _references(ctx, validator_id, skip, canonical_targets, map_targets) -> list[Finding]:
    """Inline tokens of translated prose must still be there (canonical ones in their rendering)."""
    rendering = {source: (map_targets[(g, source)].target if (g, source) in map_targets else Counter(t for _, t in items).most_common(1)[0][0]) for (g, source), items in canonical_targets.items()}
    findings = []
    for element in ctx.translatable():
        if element.artifact in skip or not element.inline_tokens or element.locator.kind == "python_literal":
            continue
        target = ctx.target_text(element)
        if target is None:
            continue
        for token in element.inline_tokens:
            wanted = rendering.get(token, token)
            if target.count(wanted) < element.source_text.count(token):
                kind = "canonical_term_not_used" if token in rendering else "reference_lost"
                findings.append(
                    make_finding(validator_id, Layer.CONSISTENCY, kind, Severity.CRITICAL, element.artifact, element.role + _path(element),
                                 f"{token!r} no longer appears as {wanted!r} in the translation", element_id=element.id, source=element.source_text, target=target, detail={"token": token})
                )
                break
    return findings


def _overlay(ctx: ValidationContext, validator_id: str) -> list[Finding]:
    """Code texts the IR preserves (compared literals, control tokens) must not be translated."""
    if ctx.overlay is None:
        return []
    preserved = {(e.artifact, e.source_text) for e in ctx.ir.elements if e.locator.kind == "python_literal" and e.translation_type is TranslationType.PRESERVE}
    findings = []
    for text in ctx.overlay.texts:
        if text.role != "docstring" and (text.module, text.source) in preserved:
            findings.append(
                make_finding(validator_id, Layer.CONSISTENCY, "preserved_code_text_translated", Severity.CRITICAL, text.module, f"{text.qualname} ({text.role})",
                             "a code literal the IR preserves is translated in the overlay", source=text.source, target=text.target)
            )
    return findings
