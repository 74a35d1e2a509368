"""Bad-input drill checks: what the server trusts on a shared machine (issue 44). Another user's
process that took the port first, and another user's state folder with a forged server record."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.drill_cases import Check, CheckResult
from bench.drill_cases.server import _server_stop, _settings, project_server

IMPOSTOR = """
import http.server, json, sys
port, log, state, pid = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
class Impostor(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as out:
            out.write(str(self.headers) + "\\n----\\n")
        body = json.dumps({"service": "babelflow-prefect-server", "state_dir": state, "pid": pid,
                           "proof": "0" * 64}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", port), Impostor).serve_forever()
"""


def _as_nobody() -> list[str]:
    """The prefix that runs a Python as `nobody` (root on this machine: the system's Python, which that
    user can execute; the project's lives under /root), else the project's Python as the same user."""
    if os.geteuid() == 0 and shutil.which("runuser") and Path("/usr/bin/python3").exists():
        return ["runuser", "-u", "nobody", "--", "/usr/bin/python3"]
    return [sys.executable]


def port_squatter_gets_no_secret(project: Path) -> CheckResult:
    """Issue 44: another user binds the port babelflow is about to probe and answers as the server. It
    must receive no auth string (the identity is a challenge the secret answers) and not be adopted."""
    from flows.server.auth import ensure_auth_string
    from flows.server.local_server import any_free_port, healthy
    from flows.server.process import identity_of
    from flows.server.server_record import booting_record, names_this_project

    settings = _settings(project)
    secret = ensure_auth_string(settings)
    folder = Path(tempfile.mkdtemp(prefix="babelflow-squatter-"))
    folder.chmod(0o777)  # the other user writes what it received here
    log = folder / "received.txt"
    port = any_free_port()
    me = identity_of(os.getpid())
    state = str(settings.resolved_state_dir())
    squatter = subprocess.Popen(
        [*_as_nobody(), "-c", IMPOSTOR, str(port), str(log), state, str(os.getpid())],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 20
        while time.time() < deadline and not healthy(f"http://127.0.0.1:{port}"):
            time.sleep(0.2)
        assert me is not None
        adopted = names_this_project(booting_record(me, port, settings, folder / "server.log"), settings)
        received = log.read_text() if log.exists() else ""
    finally:
        squatter.kill()
        squatter.wait()
        shutil.rmtree(folder, ignore_errors=True)
    encoded = base64.b64encode(secret.encode()).decode()
    leaked = secret in received or encoded in received or "authorization" in received.lower()
    who = "nobody" if _as_nobody()[0] == "runuser" else "the same user (not root: no other user to run as)"
    if not received:
        return CheckResult(False, "the squatter was never asked: the check did not reach it")
    return CheckResult(
        not leaked and not adopted,
        f"squatter ran as {who}: {'received the auth string' if leaked else 'received no secret'},"
        f" {'adopted as the server' if adopted else 'not adopted'}",
    )


def forged_record_in_a_foreign_state_folder(project: Path) -> CheckResult:
    """Issue 44: another user owns a state folder and writes a server.json naming *this* user's running
    server (pid, start time and command line are public in /proc). `babelflow server --stop` run there
    must refuse the folder and signal nothing; the victim server keeps answering."""
    from flows.server.local_server import healthy
    from flows.server.server_record import read_record, record_path

    if os.geteuid() != 0 or not shutil.which("runuser"):
        return CheckResult(True, "skipped: needs root to give the state folder to `nobody`")
    victim = project / "victim"
    attacker = Path(tempfile.mkdtemp(prefix="babelflow-foreign-"))
    with project_server(victim) as record:
        forged = record.model_copy(
            update={
                "state_dir": _settings(attacker).resolved_state_dir(),
                "prefect_home": record_path(_settings(attacker)).parent,
            }
        )
        home = record_path(_settings(attacker)).parent
        home.mkdir(parents=True)
        record_path(_settings(attacker)).write_text(forged.model_dump_json())
        subprocess.run(["chown", "-R", "nobody", str(attacker)], check=True)
        stop = _server_stop(attacker)
        alive = healthy(record.api_url)
        ours = read_record(_settings(victim)) is not None
    shutil.rmtree(attacker, ignore_errors=True)
    said = " ".join((stop.stdout + stop.stderr).split())
    return CheckResult(
        alive and ours and stop.returncode == 2 and "another user" in said,
        f"victim server alive: {alive}, exit {stop.returncode}: {said[:160]}",
    )


CHECKS: list[Check] = [
    Check(
        "server: a process that took the port first gets no auth string",
        port_squatter_gets_no_secret,
        covered_by="tests/flows/test_local_server.py::test_a_process_that_took_the_port_first_never_receives_the_auth_string",
    ),
    Check(
        "server: a forged server.json in another user's state folder signals nothing",
        forged_record_in_a_foreign_state_folder,
        covered_by="tests/flows/test_local_server.py::test_a_state_folder_of_another_user_is_refused_before_its_record_is_read",
    ),
]
