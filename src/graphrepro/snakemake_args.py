"""Every Snakemake command line the tool builds, built here: nothing a config, a manifest, an
archive or a file's contents says can become one of Snakemake's options.

A run table named ``-s.`` or a manifest entry ``--snakefile=results/evil.smk`` would otherwise
make Snakemake read a file of the attacker's as its workflow. So the targets come after ``--``
(Snakemake's parser then takes nothing after it for an option), each file target is written
``./PATH`` or as an absolute path (checked by ``safepath``: never ``-``-led, never climbing out
with ``..``), and the options come first, from the caller's own code or command line.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from . import safepath

# a rule of the workflow (a target's name): letters, digits and _, never a path or an option
_RULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")


def target(text, *, what: str = "a snakemake target") -> str:
    """A rule's name as it is; a file as ``./PATH``, inside the working directory. Snakemake
    matches a target to a rule's output by its text, relative to the working directory: an
    absolute path inside it is made relative, one outside it refused (it matches no rule)."""
    if isinstance(text, str) and _RULE.match(text):
        return text
    text = os.fspath(text) if isinstance(text, os.PathLike) else text
    if isinstance(text, str) and text.startswith("/"):
        text = str(safepath.under(Path.cwd(), text, what=what, absolute=True)
                   .relative_to(Path.cwd()))
    return safepath.argument(text, what=what)


def paths(texts, *, what: str) -> list[str]:
    """Files that follow an option (``--configfile A B``): each ``./PATH`` or absolute."""
    return [safepath.argument(t, what=what) for t in texts]


# where Snakemake itself looks for a workflow in the working directory, in its order
_SNAKEFILES = ("Snakefile", "snakefile", "workflow/Snakefile", "workflow/snakefile")


def snakefile() -> list[str]:
    """``--snakefile`` the package's own workflow where the working directory has none (an
    installed wheel, run in any folder); nothing in a checkout, whose Snakefile Snakemake finds."""
    if any(Path(name).is_file() for name in _SNAKEFILES):
        return []
    return ["--snakefile", str(Path(__file__).resolve().parent / "Snakefile")]


def command(options=(), targets=(), *, what: str = "a snakemake target") -> list[str]:
    """``python -m snakemake OPTIONS -- TARGETS`` with this interpreter's Snakemake (the one
    installed with graphrepro, not the first on PATH), on the working directory's workflow, else
    the package's."""
    return [sys.executable, "-m", "snakemake", *snakefile(), *options, "--",
            *(target(t, what=what) for t in targets)]


def job_pythonpath(checkout_src, workdir=".") -> str:
    """The PYTHONPATH a job in a conda env (``--sdm conda``) imports this graphrepro by: a
    checkout's ``src/`` (which holds the package and nothing else to import), else, for an
    installed wheel, a folder under the working directory's ``.snakemake`` holding one link, to
    the package itself. Never the wheel's site-packages: that would put this interpreter's
    numpy and numba in front of the env's own."""
    if (Path(checkout_src) / "graphrepro" / "__init__.py").is_file():
        return str(checkout_src)
    package = Path(__file__).resolve().parent
    folder = (Path(workdir) / ".snakemake" / "graphrepro-pythonpath").resolve()
    link = folder / "graphrepro"
    if not (link.is_symlink() and link.resolve() == package):
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"graphrepro.{os.getpid()}"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(package)
        os.replace(tmp, link)  # one step: jobs starting now read the old link or the new
    return str(folder)
