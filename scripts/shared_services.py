"""Start, on loopback and free ports, the services a pool shares (issue 29): PostgreSQL (Prefect's
database and babelflow's documents), a Prefect server on it, and an S3-compatible server (moto).

    .venv/bin/python scripts/shared_services.py [--dir DIR]

prints the `export` lines that a submitter and every worker need, then runs until Ctrl-C (everything it
started is stopped; the data stays in DIR). For testing and trying a pool on one machine: production
points the same variables at real PostgreSQL and S3."""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from babelflow.ownership import foreign_folder_problem

PG_BIN = Path(os.environ.get("BABELFLOW_PG_BIN", "/usr/local/bin"))
S3_KEYS = {
    "AWS_ACCESS_KEY_ID": "babelflow-local",
    "AWS_SECRET_ACCESS_KEY": "babelflow-local",
    "AWS_DEFAULT_REGION": "us-east-1",
}
BUCKET = "babelflow"
OWNER_ONLY = os.O_NOFOLLOW | os.O_CLOEXEC  # never through a link a planted name could be


class UntrustedFolder(SystemExit):
    """--dir is not a folder only this user controls: nothing was read or written there."""


def trusted_folder(root: Path) -> Path:
    """`root`, made owner-only when new; an existing one must be a real folder (no link) owned by this
    user and writable by nobody else, or its files (the secret that becomes PostgreSQL's password and
    the API's auth string, the exports, the logs) could be another user's (issue 44)."""
    root = Path(root).absolute()
    root.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        root.mkdir(mode=0o700)
    except FileExistsError:
        pass
    problem = foreign_folder_problem(root)
    if problem:
        raise UntrustedFolder(
            f"error: --dir {problem}; nothing was read or written there\n"
            "  fix: give a folder of your own that only you can write (e.g. ~/.babelflow-shared)"
        )
    return root


def write_owner_only(path: Path, text: str, *, exclusive: bool = True) -> None:
    """A new 0600 file (or, `exclusive=False`, one of ours rewritten), never written through a link."""
    flags = os.O_WRONLY | os.O_CREAT | OWNER_ONLY | (os.O_EXCL if exclusive else os.O_TRUNC)
    with os.fdopen(os.open(path, flags, 0o600), "w") as handle:
        handle.write(text)


def read_owner_only(path: Path) -> str:
    with os.fdopen(os.open(path, os.O_RDONLY | OWNER_ONLY)) as handle:
        return handle.read()


def log_file(path: Path):
    """A service's log, appended, owner-only, never through a link."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | OWNER_ONLY, 0o600), "ab")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(check, what: str, timeout: float = 120) -> float:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if check():
            return time.perf_counter() - started
        time.sleep(0.2)
    raise SystemExit(f"{what} did not come up within {timeout} s")


def _as_postgres(command: list[str]) -> list[str]:
    """initdb and postgres refuse root: run them as the `postgres` user when we are root."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@dataclass
class Services:
    root: Path
    pg_port: int = 0
    s3_port: int = 0
    api_port: int = 0
    processes: list[subprocess.Popen] = field(default_factory=list)
    boot_seconds: dict[str, float] = field(default_factory=dict)

    @cached_property
    def secret(self) -> str:
        """PostgreSQL's password and the Prefect API's auth string: made once, kept owner-only under root
        (another user of the machine can reach loopback ports, not this file)."""
        path = self.root / "secret"
        if not os.path.lexists(path):
            write_owner_only(path, secrets.token_urlsafe(24))
        return read_owner_only(path).strip()

    @property
    def database_url(self) -> str:
        return f"postgresql://postgres:{self.secret}@127.0.0.1:{self.pg_port}/babelflow"

    @property
    def prefect_database_url(self) -> str:
        return f"postgresql+asyncpg://postgres:{self.secret}@127.0.0.1:{self.pg_port}/prefect"

    @property
    def api_auth_string(self) -> str:
        return f"babelflow:{self.secret}"

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}/api"

    @property
    def s3_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.s3_port}"

    def environment(self) -> dict[str, str]:
        """What the submitter and each worker export to share this state."""
        return {
            "PREFECT_API_URL": self.api_url,
            "BABELFLOW_SHARED_OBJECTS": f"s3://{BUCKET}/state",
            "BABELFLOW_SHARED_DATABASE": self.database_url,
            "BABELFLOW_S3_ENDPOINT_URL": self.s3_endpoint,
            "PREFECT_API_AUTH_STRING": self.api_auth_string,
            **S3_KEYS,
        }

    # ---- PostgreSQL ------------------------------------------------------------------------------
    def start_postgres(self) -> None:
        data = self.root / "pg"
        started = time.perf_counter()
        if not (data / "PG_VERSION").exists():
            data.mkdir(parents=True, exist_ok=True)
            if os.geteuid() == 0:
                shutil.chown(data, "postgres", "postgres")
            # password authentication: trust on 127.0.0.1 would let any local user rewrite the shared state
            pwfile = self.root / "pg-pwfile"
            pwfile.unlink(missing_ok=True)  # a leftover of a killed start: ours (the folder is owner-only)
            write_owner_only(pwfile, self.secret)
            if os.geteuid() == 0:
                shutil.chown(pwfile, "postgres", "postgres")
            try:
                subprocess.run(
                    _as_postgres(
                        [str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres", "--auth=scram-sha-256"]
                        + ["--pwfile", str(pwfile), "-E", "UTF8"]
                    ),
                    check=True,
                    stdout=subprocess.DEVNULL,
                )
            finally:
                pwfile.unlink()
        self.pg_port = free_port()
        sockets = self.root / "pg-sockets"
        sockets.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(sockets, "postgres", "postgres")
        self.processes.append(
            subprocess.Popen(
                _as_postgres(
                    [str(PG_BIN / "postgres"), "-D", str(data), "-p", str(self.pg_port), "-k", str(sockets)]
                    + ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "fsync=off"]
                ),
                stdout=subprocess.DEVNULL,
                stderr=log_file(self.root / "postgres.log"),
            )
        )
        _wait(lambda: asyncio.run(self._databases()), "PostgreSQL")
        self.boot_seconds["postgresql"] = time.perf_counter() - started

    async def _databases(self) -> bool:
        import asyncpg  # noqa: PLC0415

        try:
            connection = await asyncpg.connect(
                f"postgresql://postgres@127.0.0.1:{self.pg_port}/postgres", password=self.secret
            )
        except (OSError, asyncpg.PostgresError):
            return False
        try:
            existing = {r["datname"] for r in await connection.fetch("SELECT datname FROM pg_database")}
            for name in ("prefect", "babelflow"):
                if name not in existing:
                    await connection.execute(f'CREATE DATABASE "{name}"')
        finally:
            await connection.close()
        return True

    # ---- S3 (moto) -------------------------------------------------------------------------------
    def start_s3(self) -> None:
        started = time.perf_counter()
        self.s3_port = free_port()
        self.processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.s3_port)],
                stdout=subprocess.DEVNULL,
                stderr=log_file(self.root / "moto.log"),
                env={**os.environ, **S3_KEYS},
            )
        )
        _wait(lambda: _answers(self.s3_endpoint), "moto")
        import boto3  # noqa: PLC0415

        s3 = boto3.client(
            "s3",
            endpoint_url=self.s3_endpoint,
            region_name="us-east-1",
            aws_access_key_id=S3_KEYS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=S3_KEYS["AWS_SECRET_ACCESS_KEY"],
        )
        s3.create_bucket(Bucket=BUCKET)
        self.boot_seconds["s3"] = time.perf_counter() - started

    # ---- Prefect ---------------------------------------------------------------------------------
    def start_prefect(self) -> None:
        started = time.perf_counter()
        self.api_port = free_port()
        home = self.root / "prefect-home"
        home.mkdir(exist_ok=True)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "BABELFLOW_"))},
            "PREFECT_HOME": str(home),
            "PREFECT_API_DATABASE_CONNECTION_URL": self.prefect_database_url,
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1",
            "PREFECT_UI_API_URL": self.api_url,
            "PREFECT_SERVER_API_AUTH_STRING": self.api_auth_string,  # every API request authenticates
        }
        self.processes.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "prefect",
                    "server",
                    "start",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.api_port),
                ],
                stdout=subprocess.DEVNULL,
                stderr=log_file(self.root / "prefect-server.log"),
                env=env,
                start_new_session=True,
            )
        )
        _wait(lambda: _answers(f"{self.api_url}/health"), "Prefect server", timeout=300)
        self.boot_seconds["prefect"] = time.perf_counter() - started

    def start(self) -> Services:
        self.start_postgres()
        self.start_s3()
        self.start_prefect()
        return self

    def stop(self) -> None:
        if self.pg_port and (self.root / "pg" / "postmaster.pid").exists():  # a clean, fast shutdown first
            subprocess.run(
                _as_postgres([str(PG_BIN / "pg_ctl"), "stop", "-D", str(self.root / "pg"), "-m", "fast", "-w"]),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=60,
                check=False,
            )
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in reversed(self.processes):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        self.processes.clear()


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return reply.status < 500
    except OSError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, help="where PostgreSQL's data and the logs go (default: a temp dir)")
    args = parser.parse_args()
    root = trusted_folder(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="babelflow-shared-"))
    if os.geteuid() == 0:
        os.chmod(root, 0o711)  # the postgres user reaches its data folder inside; nobody lists or writes here
    services = Services(root)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        services.start()
        # the exports hold the password and auth string: an owner-only file, never the terminal or a log
        env_file = root / "shared.env"
        write_owner_only(
            env_file,
            "".join(f"export {name}={value}\n" for name, value in services.environment().items()),
            exclusive=False,
        )
        print(f"source {env_file}   # submitter and every worker: the shared state's addresses and secrets")
        print(f"# data and logs: {root}; boot seconds: {services.boot_seconds}", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        services.stop()


if __name__ == "__main__":
    main()
