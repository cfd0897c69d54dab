"""Security round 3 (issue 52): command-line bounds, plain http, files read back, archives and
downloads bounded, and writes that survive any kill. Each test plants what an attacker (or a
broken disk) would."""

from __future__ import annotations

import pytest
import yaml

from graphrepro.cli import main
from graphrepro.datasets.registry import DEFAULT_REGISTRY, load_registry
from graphrepro.errors import InputError

SHA = "ab" * 32


# --- config and command-line bounds -----------------------------------------------------------

@pytest.mark.parametrize("cores", ["-1", "0", "16", "100000"])
def test_plan_refuses_timed_cores_that_no_host_has(capsys, cores):
    assert main(["plan", "--cores", "16", "--timed-cores", cores]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --timed-cores {cores}: must be from 1 to") and err.count("\n") == 1


def _registry(tmp_path, **entry_changes):
    raw = yaml.safe_load(DEFAULT_REGISTRY.read_text())
    raw["datasets"]["col"].update(entry_changes)
    path = tmp_path / "reg.yaml"
    path.write_text(yaml.safe_dump(raw))
    return str(path)


@pytest.mark.parametrize("changes", [
    {"url": "http://example.org/d/COL.gr.gz"},
    {"mirrors": ["http://example.org/d/COL.gr.gz"]},
])
def test_plain_http_without_a_checksum_is_refused(tmp_path, changes):
    with pytest.raises(InputError, match="datasets/col: http://example.org/d/COL.gr.gz is plain "
                                         "http and the entry has no sha256: refused"):
        load_registry(_registry(tmp_path, **changes))


@pytest.mark.parametrize("changes", [
    {"url": "http://example.org/d/COL.gr.gz", "sha256": SHA},  # checked before it is used
    {"url": "https://example.org/d/COL.gr.gz"},
    {"url": "http://127.0.0.1:8123/d/COL.gr.gz"},  # no network between us and it
])
def test_plain_http_is_taken_with_a_checksum_https_or_on_this_machine(tmp_path, changes):
    assert load_registry(_registry(tmp_path, **changes))["col"].url == changes["url"]


def test_the_shipped_registry_has_no_unchecked_plain_http():
    load_registry.cache_clear()
    registry = load_registry()
    for ds in registry.values():
        for url in (ds.url or "", *ds.mirrors):
            assert not url.startswith("http://") or ds.sha256, ds.key
