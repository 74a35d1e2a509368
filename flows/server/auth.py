"""The project server's auth string: one per state folder, readable by its owner only.

Prefect checks it on every API request (`PREFECT_SERVER_API_AUTH_STRING` on the server, HTTP Basic
from clients holding `PREFECT_API_AUTH_STRING`). The UI asks for it at login; the CLI names the
file, never the value.
"""

from __future__ import annotations

import base64
import os
import secrets
import stat
from pathlib import Path

from babelflow.errors import BabelflowError
from babelflow.settings import BabelflowSettings

AUTH_FILE = "api-auth-string"


def auth_folder(settings: BabelflowSettings) -> Path:
    return settings.layout.prefect_home() / "auth"


def auth_path(settings: BabelflowSettings) -> Path:
    return auth_folder(settings) / AUTH_FILE


def _owner_only(path: Path, *, folder: bool) -> None:
    """Refuse a secret (or its folder) that is a link, someone else's, or readable by others."""
    info = path.lstat()
    what = "folder" if folder else "file"
    kind_ok = stat.S_ISDIR(info.st_mode) if folder else stat.S_ISREG(info.st_mode)
    if not kind_ok or info.st_uid != os.getuid():
        raise BabelflowError(
            f"The server's auth {what} is not a {what} owned by this user",
            file=path,
            fix=f"stop the server, remove {path}; the next `babelflow flow` or `babelflow server` makes a new one",
        )
    if info.st_mode & 0o077:
        os.chmod(path, 0o700 if folder else 0o600)  # ours, only too open: close it (a fresh umask may be 022)


def ensure_auth_string(settings: BabelflowSettings) -> str:
    """This state folder's auth string, created (0600 in a 0700 folder) on first use.

    Two processes creating it at once agree: the file appears by link(2), which fails when
    another process linked first, and then that one's string is read."""
    folder = auth_folder(settings)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    _owner_only(folder, folder=True)
    path = folder / AUTH_FILE
    if not path.exists() and not path.is_symlink():
        draft = folder / f".{AUTH_FILE}.{secrets.token_hex(8)}.tmp"  # one per caller, threads included
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, secrets.token_urlsafe(32).encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return read_auth_string(settings)


def read_auth_string(settings: BabelflowSettings) -> str:
    path = auth_path(settings)
    _owner_only(auth_folder(settings), folder=True)
    _owner_only(path, folder=False)
    value = path.read_text(encoding="ascii").strip()
    if len(value) < 16:
        raise BabelflowError(
            "The server's auth string is empty or too short",
            file=path,
            fix=f"remove {path} and stop the server (`babelflow server --stop`)",
        )
    return value


def basic_authorization(auth_string: str) -> str:
    """The Authorization header value Prefect's clients send for an auth string."""
    return "Basic " + base64.b64encode(auth_string.encode()).decode()
