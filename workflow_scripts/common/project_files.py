"""Where the project's own files are read from: the config schema (config/schema/) and the PCGBench problems
(data/pcgbench/).

In a checkout (and an editable install, `pip install -e .`) they are the checkout's own folders. A wheel
(`pip install .`) carries a copy of config/ and data/ inside the package, as workflow_scripts/_project/
(setup.py puts it there), so the installed package works from any folder.
"""

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # .../workflow_scripts
BUNDLED = PACKAGE_DIR / "_project"


def project_root() -> Path:
    """The checkout holding the package, or the copy a wheel installed beside it."""
    checkout = PACKAGE_DIR.parent
    if (checkout / "config" / "schema").is_dir() or not BUNDLED.is_dir():
        return checkout
    return BUNDLED


PROJECT_ROOT = project_root()
