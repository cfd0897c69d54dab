"""A password in a URL is never written or printed (issue 52, vulnerability 5): the registry
refuses it without quoting it, and every text write and the command line's output drop it."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from graphrepro import atomic
from graphrepro.credentials import strip_credentials
from graphrepro.datasets.registry import DEFAULT_REGISTRY, load_registry
from graphrepro.errors import InputError

SECRET = "s3cret"
URL = f"https://alice:{SECRET}@data.example.org/road/NY.gr.gz"


@pytest.mark.parametrize("text, want", [
    (URL, "https://data.example.org/road/NY.gr.gz"),
    (f"real: {URL} (sha256 ab)", "real: https://data.example.org/road/NY.gr.gz (sha256 ab)"),
    ('{"url": "http://u:p@ss@h:8080/x?a=b@c"}', '{"url": "http://h:8080/x?a=b@c"}'),
    ("ftp://token@h/f and mail bob@example.org", "ftp://h/f and mail bob@example.org"),
    ("no url here", "no url here"),
])
def test_credentials_are_stripped_from_every_url_in_a_text(text, want):
    assert strip_credentials(text) == want


def _registry_with(tmp_path, where: str):
    raw = yaml.safe_load(DEFAULT_REGISTRY.read_text())
    entry = raw["datasets"]["col"]
    if where == "url":
        entry["url"] = URL
    elif where == "mirror":
        entry["mirrors"] = [URL]
    else:
        entry["topology"]["url"] = URL
    path = tmp_path / f"{where}.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


@pytest.mark.parametrize("where", ["url", "mirror", "topology"])
def test_a_registry_url_with_a_password_is_refused_without_quoting_it(tmp_path, where):
    with pytest.raises(InputError) as e:
        load_registry(str(_registry_with(tmp_path, where)))
    message = str(e.value)
    assert SECRET not in message and "alice" not in message
    assert "netrc" in message and "col/" in message


def test_every_text_and_table_written_drops_credentials(tmp_path):
    atomic.write_text(tmp_path / "origin.json", json.dumps({"kind": "real", "url": URL}))
    atomic.write_csv(pd.DataFrame({"graph": ["ny"], "data": [f"real: {URL}"]}),
                     tmp_path / "table.csv")
    for name in ("origin.json", "table.csv"):
        text = (tmp_path / name).read_text()
        assert SECRET not in text and "https://data.example.org/road/NY.gr.gz" in text


def test_the_command_line_prints_no_password(monkeypatch, capsys, tmp_path):
    """Whatever a command prints or fails with (a log line, an error quoting a URL)."""
    from graphrepro import cli
    from graphrepro.cli import graphs

    def leaky(args):
        print(f"fetching {URL}")
        print(f"trying {URL}", file=__import__("sys").stderr)
        raise InputError(f"cannot download {URL}: HTTP 401")

    monkeypatch.setattr(graphs, "cmd_fetch_record", leaky)
    assert cli.main(["fetch-record", "ny", "--output", str(tmp_path / "r.json")]) == 2
    out, err = capsys.readouterr()
    assert SECRET not in out + err and "cannot download https://data.example.org" in err
