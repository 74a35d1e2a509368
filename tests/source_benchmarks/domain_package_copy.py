"""Build a copy of tau2's mock domain renamed into its own package outside tau2's tree.

The copy is the real mock code and data: imports of `tau2.domains.mock` point at the new package
and its utils bind data paths inside the package. Used by the domain-package tests.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def build_mock_copy(root: Path, name: str = "mock_copy") -> Path:
    """Write package `name` under `root` (put `root` on sys.path / PYTHONPATH); returns its folder."""
    from source_benchmarks.tau_common.adapter import tau2_package_root

    source = tau2_package_root() / "domains" / "mock"
    package = root / name
    package.mkdir(parents=True, exist_ok=True)
    for path in source.glob("*.py"):
        text = path.read_text(encoding="utf-8").replace("tau2.domains.mock", name)
        if path.name == "utils.py":
            text = text.replace("from tau2.utils.utils import DATA_DIR", "from pathlib import Path")
            text = text.replace('DATA_DIR / "tau2" / "domains" / "mock"', 'Path(__file__).resolve().parent / "data"')
        (package / path.name).write_text(text, encoding="utf-8")
    shutil.copytree(tau2_package_root() / "data" / "tau2" / "domains" / "mock", package / "data", dirs_exist_ok=True)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return package
