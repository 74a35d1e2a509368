"""Bad-input drill cases: a run its own checks refuse writes nothing, the canonical map included."""

from __future__ import annotations

from pathlib import Path

from bench.drill_cases import Case

ROOT = Path(__file__).resolve().parents[2]


def _pack_forbidding_a_rendering(project: Path) -> list[str]:
    """The en-XA pack forbids what its pseudo-localizer writes for "the": the release checks refuse
    the run. The project's map is removed first, so a refused run that saved it would show."""
    for name in ("en-XA.json", "en-XA.drafts.json"):  # the reviewed map (none for a pseudo-locale) and the drafts
        (project / "canonical_maps" / "tau2-mock" / name).unlink(missing_ok=True)
    pack = (ROOT / "language_packs" / "en-XA.toml").read_text(encoding="utf-8")
    forbidden = '\n[[forbidden]]\ntarget = "ţĥé"\nnote = "drill: a rendering the pseudo-localizer writes"\n'
    (project / "language_packs").mkdir(exist_ok=True)
    (project / "language_packs" / "en-XA.toml").write_text(pack + forbidden, encoding="utf-8")
    return ["adapt", "tau2-mock", "--lang", "en-XA"]


CASES: list[Case] = [
    Case(
        "adapt refused by the pack's release checks writes no canonical map",
        _pack_forbidding_a_rendering,
        "forbidden rendering",
        watch=("adapted", "canonical_maps"),
    ),
]


def _mock_source(project: Path) -> Path:
    """A copy of tau2's mock domain as a --source-dir under the project (its `src` folder)."""
    import shutil

    import tau2

    domain = project / "src" / "tau2" / "domains" / "mock"
    shutil.copytree(Path(tau2.__file__).parent / "data" / "tau2" / "domains" / "mock", domain)
    return project / "src"


def _file_out_in_source(command: list[str]):
    def prepare(project: Path) -> list[str]:
        src = _mock_source(project)
        target = str(src / "tau2" / "domains" / "mock" / "tasks.json")
        return [a.replace("{src}", str(src)).replace("{target}", target) for a in command]

    return prepare


_IN_SOURCE = "lies inside the source folder"
CASES += [
    Case(
        "analyze --out over a --source-dir file",
        _file_out_in_source(["analyze", "tau2-mock", "--out", "{target}", "--source-dir", "{src}"]),
        _IN_SOURCE,
        watch=("adapted", "src"),
    ),
    Case(
        "export --out into --source-dir",
        _file_out_in_source(["export", "tau2-mock", "--lang", "en-XA", "--out", "{target}", "--source-dir", "{src}"]),
        _IN_SOURCE,
        watch=("adapted", "src"),
    ),
    Case(
        "validate --json into --source-dir",
        _file_out_in_source(
            ["validate", "tau2-mock", "--lang", "en-XA", "--json", "{target}", "--source-dir", "{src}"]
        ),
        _IN_SOURCE,
        watch=("adapted", "src"),
    ),
]
