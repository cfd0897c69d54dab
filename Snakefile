# graphrepro: every dataset, solver run, check, table and figure of the study.
#   snakemake --cores all                 the whole study on config/config.yaml -> reports/index.html
#   snakemake --cores all <target>        one published table or figure (python -m graphrepro targets)
#   snakemake --report reports/snakemake-report.html
import os
import sys

from snakemake.utils import min_version, validate

min_version("9.0")

configfile: os.path.join(workflow.basedir, "config", "config.yaml")


validate(config, os.path.join(workflow.basedir, "config", "schema", "config.schema.yaml"))

include: "workflow/rules/common.smk"
include: "workflow/rules/datasets.smk"
include: "workflow/rules/standins.smk"
include: "workflow/rules/graphs.smk"
include: "workflow/rules/runs.smk"
include: "workflow/rules/native.smk"
include: "workflow/rules/targets.smk"
include: "workflow/rules/gerritsen2012.smk"
include: "workflow/rules/gerritsen2012_sssp.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        config["report"],
        dataset_outputs(),
