"""Issue 56 item 7: the workflow and the package use Snakemake's public API only: no
``_``-prefixed attribute of a snakemake object, none of the internals the issue found
(``workflow.dag`` in ``onstart``, ``overwrite_configfiles``, the ``_nodes`` resource, argv read
with ``snakemake.cli``), and the progress lines through the public logger-plugin interface."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# the names a Snakefile, a rule file or a snakemake-facing module calls snakemake's objects by
_SNAKEMAKE_OBJECT = r"(?:workflow|snakemake|rules|checkpoints|dag|job|rule|config_settings)"
_PRIVATE_ATTRIBUTE = re.compile(rf"\b{_SNAKEMAKE_OBJECT}(?:\.[A-Za-z]\w*)*\._[A-Za-z]\w*")
_INTERNALS = re.compile(r"workflow\.dag\b|overwrite_configfiles|[\"']_(?:nodes|cores)[\"']"
                        r"|snakemake\.cli\b|global_resources\[")
# Left, and said so in issue 56: the gpu-host placement's scheduling tokens have no public
# setter short of --resources on the command line. Checked again on snakemake 9.27.1: global
# resources come only from ResourceSettings (--resources, or a profile's static `resources:`),
# while the tokens are counted from the host as the Snakefile starts (GPUs found, CPU slots);
# the `resources:`/`resource_scopes:` directives set what a job takes and a scope, not how much
# there is; snakemake's own dag.py registers its mutex resources with this same method. (Asked
# upstream as snakemake/snakemake#1866, "how to set resources from the snakefile"; 9.27.1 has no
# directive for it.)
_KNOWN = {("workflow/rules/common.smk", "workflow.register_resource(")}


def _sources():
    """(path, whether its names may be snakemake's objects): the Snakefile, the rule files and
    the modules and workflow scripts that import snakemake are read for private attributes
    (elsewhere a `rule` is the sequential sampling design's), every file for the internals by
    name (timeboxed.py read its command line with snakemake.cli)."""
    yield REPO / "Snakefile", True
    for path in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        yield path, True
    for path in [*sorted((REPO / "src").rglob("*.py")),
                 *sorted((REPO / "workflow" / "scripts").glob("*.py"))]:
        text = path.read_text()
        yield path, "from snakemake" in text or "import snakemake" in text


def test_no_private_snakemake_attribute_or_internal_is_used():
    found = []
    for path, snakemakes in _sources():
        rel = path.relative_to(REPO).as_posix()
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            private = _PRIVATE_ATTRIBUTE.findall(code) if snakemakes else []
            for hit in private + _INTERNALS.findall(code):
                found.append(f"{rel}:{n}: {hit}")
            if "register_resource(" in code and (rel, "workflow.register_resource(") not in _KNOWN:
                found.append(f"{rel}:{n}: register_resource")
    assert found == [], "\n".join(found)


def test_the_grep_finds_what_it_is_for():
    for bad in ("n = workflow._nodes", "workflow.dag.needrun_jobs()", "x = rules.all._output",
                "workflow.overwrite_configfiles", "from snakemake.cli import get_argument_parser"):
        assert _PRIVATE_ATTRIBUTE.search(bad) or _INTERNALS.search(bad), bad
    assert not _PRIVATE_ATTRIBUTE.search("workflow.basedir") and not _INTERNALS.search("rules.all")


def _timeboxed():
    import sys

    sys.path.insert(0, str(REPO / "workflow" / "scripts"))
    import timeboxed

    return timeboxed


def test_timeboxed_reads_snakemakes_arguments_with_its_own_parser():
    split = _timeboxed()._split
    # device_call.py's call: options, `--`, targets
    got = split(["--workflow-profile", "p", "--scheduler", "greedy", "--configfile", "a.yaml",
                 "b.yaml", "--configfiles=c.yaml", "--config", "seed=1", "--",
                 "./results/runs/g/x.csv", "all"])
    assert got.configfiles == ["a.yaml", "b.yaml", "c.yaml"]
    assert got.targets == ["./results/runs/g/x.csv", "all"]
    assert got.options[-1] == "seed=1" and "all" not in got.options  # the rebuild's command
    # targets first, or after a flag or an option's value, as snakemake takes them
    got = split(["res/a.csv", "-s", "Snakefile", "--cores", "2", "-F", "all", "--configfile",
                 "tiny.yaml"])
    assert got.targets == ["res/a.csv", "all"] and got.configfiles == ["tiny.yaml"]
    assert got.options == ["-s", "Snakefile", "--cores", "2", "-F", "--configfile", "tiny.yaml"]
    assert split(["--config", "x=1"]).configfiles == []  # --config is not --configfile's prefix
    # an option the table lacks: its next word could be either, so it is refused
    with pytest.raises(SystemExit, match="'all' may be a target or the value of --mystery"):
        split(["--mystery", "all"])
    assert split(["--mystery=1", "all"]).targets == ["all"]


def test_timeboxeds_table_of_snakemake_options_is_snakemakes_own():
    # the one place snakemake.cli is read: a test, so that a Snakemake that changes an option
    # fails here rather than timeboxed misreading a call
    from snakemake.cli import get_argument_parser

    by_flag = {f: a for a in get_argument_parser()._actions for f in a.option_strings}
    for nargs, options in _timeboxed()._SNAKEMAKE_OPTIONS.items():
        for names in options:
            for flag in names.split():
                action = by_flag[flag]
                assert set(names.split()) <= set(action.option_strings), names
                assert action.nargs == (None if nargs == 1 else nargs), (flag, action.nargs)


def test_every_profile_turns_the_progress_plugin_on_and_the_plugin_is_installed():
    import snakemake_logger_plugin_graphrepro as plugin
    from snakemake_interface_logger_plugins.registry import LoggerPluginRegistry

    assert "graphrepro" in LoggerPluginRegistry().plugins  # how snakemake finds it: by name
    assert LoggerPluginRegistry().get_plugin("graphrepro").log_handler is plugin.LogHandler
    for profile in sorted((REPO / "workflow" / "profiles").glob("*/config.yaml")):
        assert "\nlogger: [graphrepro]\n" in profile.read_text(), profile
