"""Is a folder this user's alone? A file babelflow trusts (the server record it signals, a secret it
turns into a password) is read only from a folder that is a real folder (no link), owned by the
effective user and writable by nobody else; another user who could write there could forge it."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def foreign_folder_problem(folder: Path) -> str | None:
    """None when `folder` is a real folder owned by this user that nobody else can write; else why not."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return None  # not there yet: whoever makes it makes it ours
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        return f"{folder} is a link or not a folder"
    if info.st_uid != os.geteuid():
        return f"{folder} belongs to another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        return f"{folder} is writable by others (mode {stat.S_IMODE(info.st_mode):o})"
    return None
