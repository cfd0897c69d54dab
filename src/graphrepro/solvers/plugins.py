"""Solvers from other packages: the ``graphrepro.solvers`` entry-point group.

A distribution declares, in its ``pyproject.toml``::

    [project.entry-points."graphrepro.solvers"]
    example = "graphrepro_plugin_example"

and the module (or a callable it names, called with no arguments) registers what it brings the
way the study's own code does: ``solvers.register`` for each solver (CPU numba, numba-CUDA, or a
native binary through ``solvers.native.NativeSSSP``), ``documents.register_document`` for a
document of its own with its claims file, ``experiments.registry.target`` for its targets.

A plugin that fails (an import error, a name already taken, an exception of any kind) is left out
whole: whatever it registered before failing is taken back, one line naming its distribution and
entry point goes to standard error (``problems()`` keeps them), and the built-in solvers work as
before. Asking for one of its solvers by name then says why it is not there. ``GRAPHREPRO_NO_PLUGINS=1``
leaves every plugin out.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from importlib import metadata

GROUP = "graphrepro.solvers"

# Registries a plugin may add to, each a dict: every one is copied before a plugin loads and put
# back if it fails. Higher layers add theirs (experiments' targets) through ``watch``.
_WATCHED: list[dict] = []
_LOADING: list[dict[int, dict]] = []  # the copies taken for the plugin loading now, if any
_PROBLEMS: list[str] = []
_ORIGIN: dict[str, str] = {}  # solver name -> the distribution that brought it
_TRIED: set[tuple[str, str, str]] = set()  # (distribution, name, value): each loaded once
_loaded = False


def watch(registry: dict) -> dict:
    """Take ``registry`` back to its state before a plugin that fails while adding to it."""
    _WATCHED.append(registry)
    if _LOADING:  # created while a plugin loads (its first import of the module): empty before it
        _LOADING[-1][id(registry)] = dict(registry)
    return registry


def loading() -> bool:
    return bool(_LOADING)


def problems() -> list[str]:
    """One line per plugin left out, in the order they were tried."""
    return list(_PROBLEMS)


def origin(solver: str) -> str | None:
    """The distribution a plugin's solver came from (None: a built-in one)."""
    return _ORIGIN.get(solver)


def enabled() -> bool:
    """``GRAPHREPRO_NO_PLUGINS=1`` runs the study alone, whatever is installed beside it (its
    ledger then holds the study's claims only, as the committed reference run's does)."""
    return os.environ.get("GRAPHREPRO_NO_PLUGINS", "") in ("", "0")


def installed() -> bool:
    """Whether any distribution declares an entry point of the group (cheap: metadata only)."""
    if not enabled():
        return False
    try:
        return bool(metadata.entry_points(group=GROUP))
    except Exception:  # broken metadata: load_plugins says so
        return True


def load_plugins(solvers: dict) -> None:
    """Load every entry point of the group once, after the built-in solvers (``solvers``: the
    solver registry, so a plugin's new names can be told apart)."""
    global _loaded
    if _loaded or not enabled():
        return
    _loaded = True
    try:
        points = sorted(metadata.entry_points(group=GROUP), key=lambda ep: (_dist(ep), ep.name))
    except Exception as e:  # a distribution with broken metadata must not stop the built-ins
        report(f"graphrepro: the {GROUP} entry points could not be read ({_why(e)}); no plugin "
               "solvers")
        return
    for ep in points:
        if (key := (_dist(ep), ep.name, ep.value)) in _TRIED:
            continue  # listed twice (an editable install beside a wheel), or asked again
        _TRIED.add(key)
        before = set(solvers)
        with _undo_on_failure() as failed:
            obj = ep.load()
            if callable(obj):
                obj()
            if not set(solvers) - before:
                raise PluginError("it registered no solver")
        if failed:
            report(f"graphrepro: plugin {ep.name} = {ep.value} (distribution {_dist(ep)}) left "
                   f"out: {failed[0]}")
        else:
            _ORIGIN.update({name: _dist(ep) for name in set(solvers) - before})


class PluginError(Exception):
    pass


@contextmanager
def _undo_on_failure():
    """Run one plugin's registration; on any failure, put every watched registry back as it was
    and yield the reason (a list, filled after the block) instead of raising."""
    failed: list[str] = []
    _LOADING.append({id(r): dict(r) for r in _WATCHED})
    try:
        yield failed
    except (Exception, SystemExit) as e:  # a plugin calling sys.exit must not end the command
        failed.append(_why(e))
        copies = _LOADING[-1]
        for registry in _WATCHED:
            if id(registry) in copies:
                registry.clear()
                registry.update(copies[id(registry)])
    finally:
        _LOADING.pop()


def report(line: str) -> None:
    _PROBLEMS.append(line)
    print(line, file=sys.stderr)


def _why(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__


def _dist(ep) -> str:
    dist = getattr(ep, "dist", None)
    return dist.name if dist is not None else "unknown"


def missing_hint() -> str:
    """Why a solver a user asked for may be missing: a plugin left out (empty if none was)."""
    return f"; {'; '.join(x.removeprefix('graphrepro: ') for x in _PROBLEMS)}" if _PROBLEMS else ""
