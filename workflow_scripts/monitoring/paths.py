"""Input paths the monitoring rules declare (no heavy imports: rules/monitoring.smk reads this at parse time)."""


from workflow_scripts.common.config import schema_defaults


def real_input_files(monitoring: dict) -> list[str]:
    """The real data files (so an edited file reruns the chain); none for the synthetic source."""
    source = monitoring.get("source", schema_defaults("monitoring")["source"])
    if source == "synthetic":
        return []
    real = monitoring.get("real", {})
    if source == "runtimes":
        return [real["run_table"]] if real.get("run_table") else []
    optional = [real.get(key) for key in ("job_table", "run_table", "topology")]
    return [*real.get("ldms_csv", []), *(path for path in optional if path)]
