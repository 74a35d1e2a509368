"""A user's TOML file that is not UTF-8, not TOML or nested too deeply is a named error (exit 2),
for the language packs and the analysis profiles alike (issue 28: both were tracebacks)."""

from __future__ import annotations

import pytest

from analyzers.profile import load_profile
from babelflow.errors import BabelflowError
from babelflow.toml_input import parse_toml


def test_parse_toml_names_what_is_wrong(tmp_path):
    assert parse_toml(b'a = "caf\xc3\xa9"\n', what="Profile", file=tmp_path / "p.toml") == {"a": "café"}
    for raw, message in (
        (b'a = 1\nb = "caf\xe9"\n', r"Profile is not UTF-8 \(byte 14, line 2\)"),
        (b"a = [", "Profile is not valid TOML"),
        (("x = " + "[" * 5000 + "]" * 5000).encode(), "too deeply"),
        (("x = " + "{a = " * 3000 + "}" * 3000).encode(), "too deeply"),
    ):
        with pytest.raises(BabelflowError, match=message) as raised:
            parse_toml(raw, what="Profile", file=tmp_path / "p.toml")
        assert raised.value.file == str(tmp_path / "p.toml") and raised.value.fix


@pytest.mark.parametrize(
    "content",
    [b'benchmark = "tau2-mock"\nversion = 1\nname = "Caf\xe9"\n', ("x = " + "[" * 5000 + "]" * 5000).encode()],
)
def test_a_profile_that_is_not_utf8_or_nested_too_deeply_is_an_error(tmp_path, content):
    path = tmp_path / "profile.toml"
    path.write_bytes(content)
    with pytest.raises(BabelflowError) as raised:
        load_profile("tau2-mock", path)
    assert raised.value.file == str(path) and raised.value.exit_code == 2


def test_a_long_dotted_key_is_refused_before_tomllib_builds_it() -> None:
    """Issue 44: tomllib's time and memory grow with the square of a dotted key's parts (50,000 parts:
    58 s, 9.5 GB); a key of more than 64 parts is refused at once, naming the file."""
    from babelflow.errors import BabelflowError
    from babelflow.toml_input import MAX_KEY_PARTS, longest_dotted_key, parse_toml

    with pytest.raises(BabelflowError, match="dotted key of 100,001 parts") as refused:
        parse_toml(("x." * 100_000 + "x = 1\n").encode(), what="Language pack", file="es.toml")
    assert "es.toml" in str(refused.value.file)
    ok = (
        '[glossary.extra]\nnote = "'
        + "One. Two. " * 200
        + "\"\nv = 1.5\n'a.b.c' = 2\nnotes = '''"
        + "x." * 500
        + "'''\n"
    )
    assert (
        longest_dotted_key(ok) == 2
        and parse_toml(ok.encode(), what="pack", file="p.toml")["glossary"]["extra"]["v"] == 1.5
    )
    assert longest_dotted_key("a." * (MAX_KEY_PARTS - 1) + "a = 1") == MAX_KEY_PARTS
    assert longest_dotted_key('"' + '\\"' * 50_000) == 1  # an unclosed string: one linear pass
