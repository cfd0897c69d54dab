# graphrepro: every dataset, solver run, check, table and figure of the study.
#   snakemake --cores all                 the whole study on config/config.yaml -> reports/index.html
#   snakemake --cores all <target>        one published table or figure (python -m graphrepro targets)
#   snakemake --report reports/snakemake-report.html
import os
import sys
import time

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

min_version("9.0")
_STARTED = time.time()
# the --configfile files: until the directive below appends the default, they are all it lists
CLI_CONFIGFILES = list(workflow.configfiles)


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


sys.path.insert(0, os.path.join(workflow.basedir, "src"))  # a checkout works without installing
from graphrepro.bounded import load_yaml
from graphrepro.configcheck import check_config
from graphrepro.errors import InputError
from graphrepro.harness.provenance import name_the_run

try:
    # snakemake has parsed --configfile already (a mapping alias bomb or a file of 100 MB stalls
    # its own parse and merge, before this line); a list alias bomb, a key given twice or a
    # Python tag still gets one line here, not a six-minute walk
    for _configfile in CLI_CONFIGFILES:
        load_yaml(_configfile)
    check_config(config)  # one line per problem, before any rule is defined or run
except InputError as e:
    raise WorkflowError(str(e)) from None
validate(config, os.path.join(workflow.basedir, "config", "schema", "config.schema.yaml"))
name_the_run(config.get("run_name"))  # every job and GPU worker this run starts records it


include: "workflow/rules/common.smk"
include: "workflow/rules/datasets.smk"
include: "workflow/rules/standins.smk"
include: "workflow/rules/graphs.smk"
include: "workflow/rules/runs.smk"
include: "workflow/rules/native.smk"
include: "workflow/rules/peers.smk"
include: "workflow/rules/targets.smk"
include: "workflow/rules/gerritsen2012.smk"
include: "workflow/rules/gerritsen2012_sssp.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        config["report"],
        dataset_outputs(),


# While it runs: a line per finished step (rule, graph, solver, time left), and first, where
# earlier outputs are kept, that the run resumes, with the time left from the plan of this config on
# this machine: the graphrepro logger plugin, which the profiles turn on (report/progress.py),
# told what only this file knows (below, once the rules are read). Ctrl-C ends the run with one
# line and exit status 130 (progress.Interrupt).
from graphrepro.report.progress import Interrupt

_RUN = {"interrupt": Interrupt().install()}


onstart:
    _RUN["interrupt"].scheduling = True
    start_host_workers()  # (common.smk)


onerror:
    from graphrepro.report.progress import running, stopped_line

    stop_host_workers()
    if _RUN["interrupt"].seen:
        _RUN["interrupt"].exit(running())
    print(stopped_line(running()))


# A target asked for by name that no rule makes (a typo): the plugin's one line names the closest
# rules and targets, in place of snakemake's MissingRuleException.
from graphrepro.placement import candidate_devices
from graphrepro.report.progress import planned_runs, tell

tell(
    results=config["results"],
    rule_names=[r.name for r in workflow.rules],
    # the time left is the plan's for the jobs left, not an average of the short steps first
    plan=lambda: planned_runs(
        config,
        REFERENCE,
        gpus=HOST_GPUS if HOST_GPUS is not None else len(candidate_devices()),
        cores=max(workflow.cores, 2),
        cpu_slots=HOST_CPU_SLOTS,
    ),
)


# A dry run says in one line what the run needs: a GPU (for which targets), which real files,
# about how long (its plan: python -m graphrepro plan). The executor, and with it
# workflow.dryrun, is set only after this file is read: the flag is.
from graphrepro.report.progress import is_dry_run

if is_dry_run(sys.argv[1:]):
    from pathlib import Path

    from graphrepro.placement import candidate_devices
    from graphrepro.plan import needs_line, plan
    from graphrepro.report.ledger import gpu_target_names

    # the plan of this config on this machine: its GPUs (none: GPU jobs only record "not run")
    _gpus = HOST_GPUS if HOST_GPUS is not None else len(candidate_devices())
    _plan = plan(
        config,
        _gpus,
        max(workflow.cores, 2),
        Path(REFERENCE),
        timed_cores=len(HOST_TIMED_CPUS) if HOST else None,
        cpu_slots=HOST_CPU_SLOTS,
    )
    print(needs_line(config, _plan, len(candidate_devices()), gpu_target_names()), file=sys.stderr)


# The last lines a run prints: where the report is, its claims by verdict, how long it took.
onsuccess:
    from graphrepro.report.summary import terminal_summary

    stop_host_workers()
    print(terminal_summary(config["report"], _STARTED))
