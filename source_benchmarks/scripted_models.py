"""Scripted agent and user models: a variant driven end to end without keys (`--agent-llm scripted`).

The agent makes the task's gold tool calls one per turn, then answers with the script's reply in
the run's language; the user opens with the task's first line and, once answered, makes its own
gold calls and ends with the stop token. Nothing here measures a model: it checks that a variant
runs and scores through its harness, and — with a misbehaviour — that the failure taxonomy counts
what it should (an agent that answers in English, mixes languages, writes numbers in another
script, or passes a translated value as a tool argument).
"""

from __future__ import annotations

import re
from enum import StrEnum

from source_benchmarks.agent_runs import GoldScript, ToolCallMade
from source_benchmarks.protocol import ChatReply


class Misbehaviour(StrEnum):
    NONE = "faithful"
    ENGLISH = "english"  # answers in the source language
    MIXED = "mixed"  # one sentence in each language
    DIGITS = "digits"  # writes its numbers in another script
    TRANSLATED_ARGUMENT = "translated-argument"  # passes a value's other-language rendering to a tool


SCRIPTED = "scripted"
ARABIC_INDIC, DEVANAGARI = 0x0660, 0x0966
DIGIT_RUN = re.compile(r"\d+")


def parse_scripted(spec: str) -> Misbehaviour | None:
    """`scripted` or `scripted:<misbehaviour>` -> the misbehaviour; any other spec -> None."""
    if spec != SCRIPTED and not spec.startswith(f"{SCRIPTED}:"):
        return None
    name = spec.partition(":")[2] or Misbehaviour.NONE.value
    try:
        return Misbehaviour(name)
    except ValueError:
        from babelflow.errors import BabelflowError  # noqa: PLC0415 - only on the error path

        raise BabelflowError(
            f"Unknown scripted behaviour {name!r}",
            field="--agent-llm",
            fix=f"use scripted or scripted:<{'|'.join(m.value for m in Misbehaviour)}>",
        ) from None


def other_script_digits(text: str, native_zero: int | None = None) -> str:
    """ASCII digits rewritten in a script the run does not use (Arabic-Indic, or Devanagari where
    the run's own digits are Arabic-Indic)."""
    zero = DEVANAGARI if native_zero == ARABIC_INDIC else ARABIC_INDIC
    return "".join(chr(zero + int(c)) if "0" <= c <= "9" else c for c in text)


def steps(script: GoldScript) -> list[str]:
    """Who makes each gold call, in order: the script's order, else the agent's calls then the user's."""
    return list(script.order) or ["agent"] * len(script.calls) + ["user"] * len(script.user_calls)


def _run_length(order: list[str], start: int, who: str) -> int:
    """How many steps from `start` on are `who`'s, one after another."""
    count = 0
    while start + count < len(order) and order[start + count] == who:
        count += 1
    return count


class ScriptedAgent:
    """A `ChatModel` that plays the gold script (OpenAI message format in, `ChatReply` out)."""

    def __init__(
        self,
        script: GoldScript,
        misbehaviour: Misbehaviour = Misbehaviour.NONE,
        *,
        counterparts: dict[str, str] | None = None,
        native_zero: int | None = None,
    ):
        self.script, self.misbehaviour = script, misbehaviour
        self.counterparts = counterparts or {}  # value -> its rendering in the other language (canonical map)
        self.native_zero = native_zero
        self.label = f"{SCRIPTED}:{misbehaviour.value}"
        self.requests = 0
        self.made = 0  # its own calls only: a task's message history may hold earlier ones
        self.step = 0  # position in the gold order (steps(script))
        misusable = [i for i, call in enumerate(script.calls) if self._misused(call) != call]
        self.misused_call = misusable[0] if misusable else None

    def chat(self, messages: list[dict], tools: list[dict] | None) -> ChatReply:
        self.requests += 1
        order = steps(self.script)
        if self.step < len(order) and order[self.step] == "agent":
            block = _run_length(order, self.step, "agent")
            # one call per turn; when its calls and the answer no longer fit in the turns the harness
            # has left, the rest of this block in one turn
            remaining = len(self.script.calls) - self.made
            limit = self.script.turn_limit
            turns_left = None if limit is None else limit - (self.requests - 1)
            fits = turns_left is None or remaining + 1 <= turns_left
            batch = block if not fits and turns_left is not None and turns_left <= 2 else 1
            indices = range(self.made, self.made + batch)
            self.made += batch
            self.step += batch
            calls = [
                self._misused(self.script.calls[i]) if i == self.misused_call else self.script.calls[i] for i in indices
            ]
            return ChatReply(
                None, [(f"call_{i}", c.name, dict(c.arguments)) for i, c in zip(indices, calls, strict=True)]
            )
        # the user's calls come next (or nothing does): answer, which hands the turn to the user
        self.step += _run_length(order, self.step, "user")
        return ChatReply(self._answer(messages), [])

    def _misused(self, call: ToolCallMade) -> ToolCallMade:
        if self.misbehaviour is not Misbehaviour.TRANSLATED_ARGUMENT:
            return call
        arguments = dict(call.arguments)
        for name, value in arguments.items():
            if isinstance(value, str) and value in self.counterparts:
                arguments[name] = self.counterparts[value]
                break
        return ToolCallMade(name=call.name, arguments=arguments)

    def _answer(self, messages: list[dict]) -> str:
        script = self.script
        if self.misbehaviour is Misbehaviour.ENGLISH:
            return script.source_answer
        if self.misbehaviour is Misbehaviour.MIXED:
            return f"{script.answer} {script.source_answer}"
        if self.misbehaviour is Misbehaviour.DIGITS:
            numbers = [n for m in messages if m.get("role") == "tool" for n in DIGIT_RUN.findall(str(m.get("content")))]
            number = numbers[0] if numbers else str(len(script.calls) + 1)
            return other_script_digits(f"{script.answer} {number}", self.native_zero)
        return script.answer


class ScriptedUser:
    """The user simulator's side of the script: opener, own gold calls after the agent's answer, stop."""

    def __init__(self, script: GoldScript):
        self.script, self.user_calls = script, script.user_calls
        self.label = f"{SCRIPTED}:user"
        self.requests = 0
        self.opened = False
        self.made = 0  # its calls made so far
        self.step = 0  # position in the gold order
        self.block: list[int] = []  # its calls still to make before handing back
        self.handing_back = False

    def chat(self, messages: list[dict], tools: list[dict] | None) -> ChatReply:
        """Its first turn opens (also after a task's message history); each time the agent answers,
        it makes its next calls in the gold order, then hands back with its opener, or stops."""
        self.requests += 1
        if not self.opened:
            self.opened = True
            return ChatReply(self.script.user_opener or self.script.answer, [])
        order = steps(self.script)
        if not self.block and not self.handing_back:
            # the agent has answered: its calls are behind, the user's next ones ahead (none without tools)
            self.step += _run_length(order, self.step, "agent")
            own = _run_length(order, self.step, "user")
            count = own if tools else 0
            self.block = list(range(self.made, self.made + count))
            self.step += own
            self.made += own
        if self.block:
            index = self.block.pop(0)
            self.handing_back = True  # after its calls, its next turn speaks
            call = self.user_calls[index]
            return ChatReply(None, [(f"user_call_{index}", call.name, dict(call.arguments))])
        self.handing_back = False
        if self.step < len(order):  # the agent has calls left: hand the turn back
            return ChatReply(self.script.user_opener or self.script.answer, [])
        return ChatReply(self.script.stop_token or "", [])
