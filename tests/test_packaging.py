"""The wheel carries the catalogs: install it in a fresh virtual environment and load them
from a working directory outside the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "--no-build-isolation",
         "--quiet", "-w", str(out)],
        check=True,
    )
    (found,) = out.glob("inference_tokenomics-*.whl")
    return found


@pytest.mark.slow
def test_wheel_contains_data_and_typed_marker(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "tokenomics/py.typed" in names
    assert "tokenomics/data/parameters.csv" in names
    assert "tokenomics/data/hardware/specs.csv" in names
    assert any(n.startswith("tokenomics/data/pricing/") for n in names)
    bundled = {p.relative_to(REPO).as_posix() for p in (REPO / "data").rglob("*.csv")}
    assert {f"tokenomics/{p}" for p in bundled} <= names


@pytest.mark.slow
def test_wheel_works_in_fresh_venv_outside_checkout(wheel: Path, tmp_path: Path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    # this environment's pip installs into the fresh one (no pip bootstrapped there: seconds saved)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True)
    # Dependencies (numpy, pandas, ...) come from this environment's site-packages; the package
    # itself must come from the fresh venv (PYTHONPATH entries do not process the editable .pth).
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"]}
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    code = (
        "import tokenomics as tk, tokenomics.catalog as c, pathlib; "
        "print(pathlib.Path(tk.__file__).resolve()); print(c.data_dir().resolve()); "
        "print(tk.hardware('H100 SXM').hbm_capacity_gb)"
    )
    result = subprocess.run([str(py), "-c", code], cwd=workdir, env=env, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
    module_file, data_dir, capacity = result.stdout.split()
    assert Path(module_file).is_relative_to(venv.resolve())
    assert Path(data_dir).is_relative_to(venv.resolve())
    assert float(capacity) > 0
