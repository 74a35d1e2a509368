"""Odd language input ends in a clear error (exit 2, no traceback), never a crash: over-long or
many-subtag `--lang` tags, language packs that are not UTF-8 or nest too deeply."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from babelflow.errors import BabelflowError
from babelflow.language_data import language_data, script_of_tag
from babelflow.language_pack import load_pack, read_pack
from babelflow.language_tag import MAX_TAG_LENGTH, check_language_tag
from babelflow.target_language import language_problem

MANY_SUBTAGS = "en-x-" + "-".join(["ab"] * 990)  # langcodes accepts it as well-formed
LONG_VALID = "en-x-" + "-".join(["abcdefgh"] * 33)  # 301 characters, well-formed BCP 47


@pytest.mark.parametrize("tag", [MANY_SUBTAGS, LONG_VALID, "en-" + "a" * 300])
def test_an_over_long_tag_is_refused_before_any_parser_sees_it(tag):
    with pytest.raises(BabelflowError) as raised:
        check_language_tag(tag)
    error = raised.value
    assert error.field == "--lang" and error.exit_code == 2 and f"at most {MAX_TAG_LENGTH}" in error.fix
    assert f"({len(tag)} characters)" in error.message and len(error.message) < 200  # the tag is quoted cut, not whole


def test_real_tags_pass_and_malformed_ones_keep_their_message():
    for tag in ("zh-Hans", "en-XA", "ar-XB", "zh-Hant-TW-u-ca-chinese-nu-hanidec-x-private", "sr-Latn-RS"):
        assert check_language_tag(tag) == tag
    with pytest.raises(BabelflowError, match="is not a valid BCP 47 language tag"):
        check_language_tag("english!")
    with pytest.raises(BabelflowError, match="not a valid"):
        check_language_tag("")


def test_the_pack_loader_and_language_helpers_never_build_a_path_or_parse_a_long_tag(tmp_path):
    with pytest.raises(BabelflowError, match="longer than"):
        load_pack(LONG_VALID, tmp_path)  # was OSError: File name too long
    assert script_of_tag(MANY_SUBTAGS) == "Latn"
    assert language_data(LONG_VALID).decimal == "."
    assert language_problem("Hello there", "Hello there", LONG_VALID, []) is None


@pytest.mark.parametrize(
    "command",
    [
        ["adapt", "tau2-mock", "--lang", MANY_SUBTAGS],
        ["adapt", "tau2-mock", "--lang", LONG_VALID],
        ["review", "tau2-mock", "--lang", LONG_VALID],
        ["flow", "tau2-mock", "--lang", "en-XA", "--lang", LONG_VALID],
    ],
)
def test_every_command_checks_lang_before_it_creates_anything(command, tmp_path):
    from flows.cli.app import app

    result = CliRunner().invoke(app, command, env={"BABELFLOW_PROJECT_ROOT": str(tmp_path), "COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert "--lang" in result.output and "fix:" in result.output and "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []  # not even the state folder


def _pack(tmp_path, content: bytes):
    path = tmp_path / "language_packs" / "en-XA.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def test_a_pack_that_is_not_utf8_names_the_file_and_line(tmp_path):
    path = _pack(tmp_path, b'tag = "en-XA"\nname = "Caf\xe9"\n')
    with pytest.raises(BabelflowError, match=r"not UTF-8 \(byte 25, line 2\)") as raised:
        read_pack(path)
    assert raised.value.file == str(path) and "UTF-8" in raised.value.fix


@pytest.mark.parametrize("nested", ["x = " + "[" * 5000 + "]" * 5000, "x = " + "{a = " * 3000 + "}" * 3000])
def test_a_deeply_nested_pack_is_an_error_not_a_recursion_crash(tmp_path, nested):
    path = _pack(tmp_path, nested.encode())
    with pytest.raises(BabelflowError, match="too deeply") as raised:
        load_pack("en-XA", tmp_path)
    assert raised.value.file == str(path)


def test_a_pack_that_cannot_be_read_is_named(tmp_path):
    path = tmp_path / "language_packs" / "en-XA.toml"
    path.mkdir(parents=True)  # a folder where the file should be
    with pytest.raises(BabelflowError, match="not a regular file") as raised:
        load_pack("en-XA", tmp_path)
    assert raised.value.file == str(path)


def test_a_pack_tag_over_the_limit_is_a_schema_error(tmp_path):
    path = _pack(tmp_path, f'tag = "{LONG_VALID}"\n'.encode())
    with pytest.raises(BabelflowError, match="schema") as raised:
        read_pack(path)
    assert raised.value.field == "tag"
