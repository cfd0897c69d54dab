"""Hostile or broken configs, registries, records and tables get one line naming the file (and
line) in bounded time (issue 52): alias bombs, huge files, duplicate keys, Python tags, deep JSON,
garbage CSVs."""

from __future__ import annotations

import time

import pytest

from graphrepro import bounded
from graphrepro.bounded import BadFile, load_json, load_yaml, read_csv
from graphrepro.configcheck import check_config
from graphrepro.errors import InputError


def _list_bomb(levels: int = 9) -> str:
    """A billion laughs: 9^levels strings from a few hundred bytes."""
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines + [f"graphs: {{g: *a{levels}}}"]) + "\n"


def _line_of(message: str, path) -> int:
    return int(message.split(f"{path}:", 1)[1].split(":", 1)[0])


def test_an_alias_bomb_is_refused_at_its_line_in_no_time(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(_list_bomb(12))  # 12 x 9 aliases: more than the limit
    started = time.monotonic()
    with pytest.raises(BadFile, match="aliases") as e:
        load_yaml(path)
    assert time.monotonic() - started < 2 and _line_of(str(e.value), path) > 1


def test_a_config_that_expands_past_any_of_ours_is_refused_before_the_schema_walks_it():
    import yaml

    config = yaml.safe_load(_list_bomb(9))  # 82 aliases, under the file limit: 9^9 values
    started = time.monotonic()
    with pytest.raises(InputError, match="alias bomb"):
        check_config(config)
    assert time.monotonic() - started < 2


@pytest.mark.parametrize("text, says, line", [
    ("seed: 1\nresults: a\nseed: 2\n", "key 'seed' given twice", 3),
    ("x: !!python/object/apply:os.system [echo hi]\n", "tag tag:yaml.org,2002:python/object", 1),
    ("a: 1\nb: !custom 3\n", "tag !custom is refused", 2),
    ("a: [1, 2\nb: 3\n", "not valid YAML", 2),
])
def test_duplicate_keys_tags_and_garbage_are_one_line_naming_the_line(tmp_path, text, says, line):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(BadFile) as e:
        load_yaml(path)
    message = str(e.value)
    assert says in message and "\n" not in message and _line_of(message, path) == line


def test_files_over_the_limits_are_refused_unread(tmp_path, monkeypatch):
    monkeypatch.setattr(bounded, "YAML_MAX_BYTES", 100)
    monkeypatch.setattr(bounded, "CSV_MAX_BYTES", 100)
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(10 << 30)  # 10 GiB, sparse: read, it would take minutes
    table = tmp_path / "big.csv"
    table.write_text("a\n" + "1\n" * 100)
    with pytest.raises(BadFile, match="refused unread"):
        load_yaml(big)
    with pytest.raises(BadFile, match="refused unread"):
        read_csv(table)
    with pytest.raises(BadFile, match="refused unread"):
        load_json(big, max_bytes=100)


def test_json_nested_past_the_limit_is_one_line_not_a_recursion_error(tmp_path):
    for depth in (bounded.JSON_MAX_DEPTH + 1, 100_000):
        path = tmp_path / f"deep{depth}.json"
        path.write_text("[" * depth + "]" * depth)
        with pytest.raises(BadFile, match="nested more than"):
            load_json(path)
    shallow = tmp_path / "ok.json"
    shallow.write_text('{"a": [1, {"b": null}]}')
    assert load_json(shallow) == {"a": [1, {"b": None}]}


def test_a_garbage_csv_is_one_line(tmp_path):
    path = tmp_path / "garbage.csv"
    path.write_bytes(b"a,b\n\xff\xfe\x00,\"unclosed\n")
    with pytest.raises(BadFile, match="garbage.csv: not a CSV table"):
        read_csv(path)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(BadFile, match="empty"):
        read_csv(empty)


def test_a_broken_file_is_still_a_value_error_for_callers_that_fall_back(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text("{not json")
    with pytest.raises(ValueError):
        load_json(path)


def test_plan_and_datasets_refuse_an_alias_bomb_at_once(tmp_path, capsys):
    from graphrepro.cli import main

    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(_list_bomb(12))
    started = time.monotonic()
    assert main(["plan", "--configfile", str(bomb)]) == 4  # bad input data (cli/exitcodes.py)
    assert main(["datasets", "--registry", str(bomb)]) == 4
    assert time.monotonic() - started < 10
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all("aliases" in line and str(bomb) in line for line in err)


def test_a_small_record_costs_its_size_not_the_limit(tmp_path):
    # f.read(limit + 1) allocated the whole 64 MiB limit for every record: a child under a
    # 64 MiB memory cap failed on reading its 1 KiB G' header
    import tracemalloc

    path = tmp_path / "small.json"
    path.write_text('{"a": 1}')
    tracemalloc.start()
    try:
        assert load_json(path) == {"a": 1}
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20
