"""Differential trials on code texts, in a process of their own: perturb, rerun, compare, restore.

For each code text the traced replay left without an observed role (prompt templates, control
tokens, the solo agent's tool names, an id template in a tool), the text alone is perturbed in the
running code (code_perturbation.py) and the benchmark reruns what reads it: tau2's scripted
conversations (scripted_conversation.py) and the golden + do-nothing replays of the tasks that
call the function holding the text. A changed outcome is the text's observed role. The text is
then perturbed together with every equal code text and every mention in the user guidelines the
user simulator reads: if the outcome comes back, the texts are a link.

Patched code must never meet other work, so this runs as `python -m source_benchmarks.tau_common.code_trials`
(request JSON on stdin, result JSON on stdout); `run_code_trials` starts it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from pydantic import Field, TypeAdapter

from babelflow.child_lifetime import die_with_parent, parent_link
from babelflow.errors import BabelflowError
from babelflow.ir import ArtifactRole, Record
from source_benchmarks.protocol import CodeLiteral, CodeTrialResult, parity_signature
from source_benchmarks.registry import get_benchmark
from source_benchmarks.tau_common.code_perturbation import literal_parts, perturbation, perturbed
from source_benchmarks.tau_common.scripted_conversation import ConversationPlan


class CodeTrialRequest(Record):
    benchmark_id: str
    source_dir: str | None = None
    literals: list[CodeLiteral] = Field(
        description="every code text of the IR that could be equal to an open one (link trials)"
    )
    open_keys: list[str] = Field(description="the texts to try, by element id")
    conversation_keys: list[str] = Field(
        default_factory=list, description="open texts the agent or user simulator reads: scripted conversations rerun"
    )
    replay_tasks: dict[str, list[str]] = Field(
        default_factory=dict, description="per open key: task ids whose golden replays run its code"
    )


_RESULTS = TypeAdapter(list[CodeTrialResult])  # the process's answer on stdout


class _Outcome(Record):
    signatures: dict[str, tuple]
    tool_outputs: str = ""


class _Trials:
    def __init__(self, request: CodeTrialRequest):
        from source_benchmarks.tau_common.scripted_conversation import conversation_plans

        self.request = request
        self.by_key = {literal.key: literal for literal in request.literals}
        # through the registry: the adapter imports this module to start the trials
        self.bench: Any = get_benchmark(
            request.benchmark_id, source_dir=Path(request.source_dir) if request.source_dir else None
        )
        self.guidelines = {
            spec.path.rsplit("/", 1)[-1]: self.bench.artifact_path(spec).read_text(encoding="utf-8")
            for spec in self.bench.artifacts()
            if spec.role is ArtifactRole.USER_GUIDELINES
        }
        tasks = [self.bench.task(task_id) for task_id in self.bench.task_ids(None)]
        self.plans = (
            conversation_plans(tasks, max(self.guidelines.values(), key=lambda text: text.count("###")))
            if request.conversation_keys
            else []
        )
        self.baseline = self.outcome(
            self.guidelines, sorted({t for ids in request.replay_tasks.values() for t in ids}), bool(self.plans)
        )
        # a trial compares against the unperturbed run: a conversation that fails unperturbed proves nothing
        broken = {
            what for what, signature in self.baseline.signatures.items() if str(signature[0]).startswith("raised")
        }
        self.plans = [plan for plan in self.plans if _conversation(plan) not in broken]
        if "replays" in broken:
            raise RuntimeError(
                f"the unperturbed benchmark fails its own golden replays: {self.baseline.signatures['replays'][0]}"
            )

    def outcome(
        self, guidelines: dict[str, str], task_ids: list[str], conversations: bool, baseline: _Outcome | None = None
    ) -> _Outcome:
        """Signatures of what reruns; with a `baseline`, stops at the first conversation that differs
        from it (a broken template needs no second conversation to show it)."""
        from source_benchmarks.tau_common.scripted_conversation import run_conversation

        # a fresh environment's state is remembered per factory; perturbed code may build another one
        self.bench.environment_factory.forget_untouched_state()
        result: dict[str, tuple] = {}
        if conversations:
            folder = Path(tempfile.mkdtemp(prefix="babelflow-code-trial-"))
            try:
                for name, text in guidelines.items():
                    (folder / name).write_text(text, encoding="utf-8")
                for plan in self.plans:
                    done = run_conversation(
                        plan,
                        self.bench.task(plan.task_id),
                        self.bench.spec.domain,
                        self.bench.environment_factory,
                        folder,
                    )
                    result[_conversation(plan)] = done.signature
                    if baseline is not None and baseline.signatures.get(_conversation(plan)) != done.signature:
                        return _Outcome(signatures=result)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
        try:
            pairs = self.bench.replay_pairs(task_ids, label="analysis: code trial replays") if task_ids else []
        except Exception as exc:  # tau2's own code raised under the perturbed text
            return _Outcome(signatures={**result, "replays": (f"raised {type(exc).__name__}",)})
        outputs = []
        for task_id, (golden, nothing) in zip(task_ids, pairs):
            result[f"golden/do-nothing replay of {task_id}"] = parity_signature(golden, nothing)
            outputs += [call.output for call in golden.tool_calls]
        return _Outcome(signatures=result, tool_outputs="\n".join(outputs))

    def _tasks(self, keys: list[str]) -> list[str]:
        return list(dict.fromkeys(task_id for key in keys for task_id in self.request.replay_tasks.get(key, [])))

    def changed(
        self, literals: list[CodeLiteral], guidelines: dict[str, str], keys: list[str]
    ) -> tuple[str | None, _Outcome]:
        """(what changed or None, the outcome) with `literals` perturbed; reruns what `keys` need.
        Something the unperturbed run did not have (a replay that now raises) is a change too."""
        conversations = any(key in self.request.conversation_keys for key in keys)
        with perturbation(literals):
            now = self.outcome(guidelines, self._tasks(keys), conversations, self.baseline)
        for what, signature in now.signatures.items():
            before = self.baseline.signatures.get(what)
            if before is None:
                return f"{what}: {signature[0]}", now
            if signature != before:
                return f"{what}: {before[0]} -> {signature[0]} ({signature[1:]})", now
        return None, now

    def _link(self, literal: CodeLiteral) -> list[str]:
        """The equal code texts and guideline mentions needed to bring the outcome back when they are
        perturbed with `literal`: all of them first, then each one left out in turn (one that is not
        needed is dropped)."""
        members: list[tuple[str, CodeLiteral | None, str | None]] = [
            (f"{other.artifact}:{other.qualname}.{other.name or 'literal'}", other, None)
            for other in self.request.literals
            if other.text == literal.text and other.key != literal.key
        ]
        members += [
            (f"user guidelines {name}", None, name) for name, text in self.guidelines.items() if literal.text in text
        ]

        def returns(chosen: list[tuple[str, CodeLiteral | None, str | None]]) -> bool:
            files = {name for _, _, name in chosen if name}
            guidelines = {
                name: text.replace(literal.text, perturbed(literal.text)) if name in files else text
                for name, text in self.guidelines.items()
            }
            back, _ = self.changed([literal, *[other for _, other, _ in chosen if other]], guidelines, [literal.key])
            return back is None

        if not members or not returns(members):
            return []
        needed = list(members)
        for member in members:
            rest = [m for m in needed if m is not member]
            if returns(rest):
                needed = rest
        return [label for label, _, _ in needed]

    def _bisect(self, keys: list[str], found: dict[str, CodeTrialResult]) -> None:
        """Tool-code texts together (most change no outcome); a batch whose outcome changes is halved."""
        literals = [self.by_key[key] for key in keys]
        changed, now = self.changed(literals, self.guidelines, keys)
        if changed is None:
            if not now.signatures:  # nothing that reads it was run: no trial, no evidence
                found.update({key: CodeTrialResult(key=key, changed=None, found=False) for key in keys})
                return
            marks = {
                key: {
                    perturbed(part)
                    for part in literal_parts(self.by_key[key].text)
                    if sum(c.isalpha() for c in part) >= 2
                }
                for key in keys
            }
            for key in keys:
                # a mark inside another text's mark ("not found" in "Task not found") says nothing about either
                others = [mark for other in keys if other != key for mark in marks[other]]
                own = {mark for mark in marks[key] if not any(mark in other for other in others)}
                if own or not marks[key] or len(keys) == 1:
                    found[key] = CodeTrialResult(
                        key=key, changed=None, shown=any(mark in now.tool_outputs for mark in own)
                    )
                else:
                    self._bisect([key], found)
            return
        if len(keys) > 1:
            middle = len(keys) // 2
            self._bisect(keys[:middle], found)
            self._bisect(keys[middle:], found)
            return
        found[keys[0]] = CodeTrialResult(key=keys[0], changed=changed, linked=self._link(literals[0]))

    def run(self) -> list[CodeTrialResult]:
        found: dict[str, CodeTrialResult] = {}
        present: list[str] = []
        for key in self.request.open_keys:  # not where the scanner said: no trial, no evidence
            with perturbation([self.by_key[key]]) as missing:
                pass
            if missing:
                found[key] = CodeTrialResult(key=key, changed=None, found=False)
            else:
                present.append(key)
        for key in [k for k in present if k in self.request.conversation_keys]:  # prompts: nearly all change an outcome
            self._bisect([key], found)
        tool_code = [k for k in present if k not in self.request.conversation_keys]
        if tool_code:
            self._bisect(tool_code, found)
        return [found[key] for key in self.request.open_keys]


def _conversation(plan: ConversationPlan) -> str:
    return f"{plan.agent} conversation on {plan.task_id} (user token #{plan.user_token})"


def run_code_trials(request: CodeTrialRequest) -> list[CodeTrialResult]:
    """Run the trials in a fresh interpreter (patched code never meets this process's work)."""
    # the caller's import path too: a domain package may be importable only from there
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "DO_NOT_TRACK": "1",
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
    }
    with parent_link() as link:  # the child ends when this process ends, SIGKILL included (issue 28)
        done = subprocess.run(
            [sys.executable, "-m", "source_benchmarks.tau_common.code_trials"],
            input=request.model_dump_json(),
            capture_output=True,
            text=True,
            env={**env, **link.env},
            pass_fds=link.pass_fds,
            check=False,
        )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise BabelflowError(
            f"code trials for {request.benchmark_id} failed: {' | '.join(tail)}",
            fix="rerun `babelflow analyze` with --verbose; report it if the benchmark's own code is unchanged",
        )
    return _RESULTS.validate_json(done.stdout.strip().splitlines()[-1])


def _without_litellm() -> None:
    """This process makes no model call (`generate` is scripted), so tau2's model client is not
    imported: importing litellm alone takes 3-10 s per analysis. tau2 reads a few settings from it at
    import time; any call into it raises, and the unperturbed baseline would show it."""
    import types

    def no_model_call(*_: object, **__: object) -> None:
        raise RuntimeError("a code trial makes no model call (litellm is not loaded in this process)")

    class Stand:  # Cache, ModelResponse, Usage: names tau2 imports, never used here
        def __init__(self, *_: object, **__: object) -> None:
            no_model_call()

    litellm = types.ModuleType("litellm")
    litellm.__dict__.update(
        completion=no_model_call,
        completion_cost=no_model_call,
        enable_cache=lambda *a, **k: None,
        disable_cache=lambda *a, **k: None,
    )
    caching, caching_caching, main = (
        types.ModuleType("litellm.caching"),
        types.ModuleType("litellm.caching.caching"),
        types.ModuleType("litellm.main"),
    )
    caching_caching.__dict__["Cache"] = Stand
    main.__dict__.update(ModelResponse=Stand, Usage=Stand)
    sys.modules.update(
        {
            "litellm": litellm,
            "litellm.caching": caching,
            "litellm.caching.caching": caching_caching,
            "litellm.main": main,
        }
    )


def main() -> None:
    die_with_parent()  # first: a parent killed while this starts up must not leave it running
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    _without_litellm()
    request = CodeTrialRequest.model_validate_json(sys.stdin.read())
    sys.stdout.write(_RESULTS.dump_json(_Trials(request).run()).decode() + "\n")


if __name__ == "__main__":
    main()
