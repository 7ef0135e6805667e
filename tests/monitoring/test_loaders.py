"""Loaders on crafted good and bad files: rates from cumulative counters, and errors that name file, line, column."""

import numpy as np
import pandas as pd
import pytest

from workflow_scripts.monitoring.dataset_schema import check_tables
from workflow_scripts.monitoring.features import FeatureConfig, build_features
from workflow_scripts.monitoring.loaders import (
    LoaderError,
    RealDataConfig,
    load_job_table,
    load_ldms_csv,
    load_real,
    load_run_table,
    load_runtimes,
    parse_nodes,
)

HEADER = "#Time,Time_usec,ProducerName,component_id,job_id,app_id,rx_bytes,mem_used_mb\n"
T0 = 1_704_067_200  # 2024-01-01T00:00:00Z


def ldms_rows(times, nodes=(1, 2), job_of=lambda t, n: 0):
    """Cumulative rx_bytes growing 100 B/s on node 1 and 300 B/s on node 2; a memory gauge."""
    lines = []
    for t in times:
        for n in nodes:
            rate = 100 if n == 1 else 300
            lines.append(f"{T0 + t}.000,0,nid{n:05d},{n},{job_of(t, n)},0,{rate * t},{1000 * n + t}\n")
    return "".join(lines)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_cumulative_counters_become_rates_and_gauges_stay(tmp_path):
    path = write(tmp_path, "good.csv", HEADER + ldms_rows([0, 60, 120, 180]))
    samples, jobs = load_ldms_csv(path, gauge_counters=["mem_used_mb"], sample_interval_s=60)
    # The first sample of each node has no rate; the rest are exact.
    assert len(samples) == 6
    rates = samples.groupby("component_id")["rx_bytes"].unique()
    assert list(rates[1]) == [100.0] and list(rates[2]) == [300.0]
    node2 = samples[samples["component_id"] == 2].sort_values("time_s")
    assert node2["mem_used_mb"].tolist() == [2060.0, 2120.0, 2180.0]
    assert node2["time_s"].tolist() == [T0 + 60, T0 + 120, T0 + 180]


def test_counter_reset_becomes_missing(tmp_path):
    text = HEADER + ldms_rows([0, 60]) + f"{T0 + 120},0,nid00001,1,0,0,5,1120\n" + f"{T0 + 120},0,nid00002,2,0,0,36000,2120\n"
    samples, _ = load_ldms_csv(write(tmp_path, "reset.csv", text), ["mem_used_mb"], 60)
    at_reset = samples[(samples["time_s"] == T0 + 120)].set_index("component_id")["rx_bytes"]
    assert np.isnan(at_reset[1]) and at_reset[2] == 300.0


def test_samples_are_averaged_onto_the_grid(tmp_path):
    samples, _ = load_ldms_csv(write(tmp_path, "fine.csv", HEADER + ldms_rows(range(0, 240, 20), nodes=(1,))), [], 60)
    assert sorted(samples["time_s"] - T0) == [60, 120, 180, 240]  # each grid time closes its interval
    assert np.allclose(samples["rx_bytes"], 100.0)


@pytest.mark.parametrize(("text", "line", "needle"), [
    ("Time,ProducerName,component_id,job_id,x\n1,a,1,0,2\n", 1, "not '#Time'"),
    ("#Time,ProducerName,job_id,x\n1,a,0,2\n", 1, "lacks ['component_id']"),
    (HEADER + ldms_rows([0, 60]) + f"{T0 + 120},0,nid00001,1,0,0,abc,1\n", 6, "column 'rx_bytes'"),
    (HEADER + ldms_rows([0]) + f"{T0 + 60},0,nid00001,1,0,0\n", 4, "value '' is not a number"),
    (HEADER + ldms_rows([0]) + f"{T0 + 60},0,nid00001,1,0,0,1,2,3\n", 4, "9 fields where the header has 8"),
    (HEADER + ldms_rows([0, 60]) + f"{T0 + 60}.000,0,nid00001,1,0,0,6000,1060\n", 6, "second sample of component 1"),
    (HEADER + f"{T0},0,nid1,1.5,0,0,1,1\n", 2, "column 'component_id'"),
    ("#Time,Time_usec,ProducerName,component_id,job_id,app_id\n1,0,a,1,0,0\n", 1, "no counter columns"),
    ("#Time,ProducerName,component_id,job_id,x\n", 2, "no rows"),
])  # fmt: skip
def test_bad_ldms_files_name_file_line_and_fix(tmp_path, text, line, needle):
    path = write(tmp_path, "bad.csv", text)
    with pytest.raises(LoaderError) as caught:
        load_ldms_csv(path, [], 60)
    message = str(caught.value)
    assert str(path) in message and f"line {line}" in message and needle in message and "Fix:" in message


def test_job_table_parses_nodes_and_iso_times(tmp_path):
    path = write(tmp_path, "jobs.csv", "job_id,app,nodes,start_time,end_time\n"
                 "7,AMG,1;3-4,2024-01-01T01:00:00Z,2024-01-01T01:10:00Z\n8,MILC,2,1704070800,1704071400\n")  # fmt: skip
    runs, placement = load_job_table(path)
    assert runs["run_time_s"].tolist() == [600.0, 600.0]
    assert runs["start_s"].tolist() == [T0 + 3600, T0 + 3600]
    assert placement[placement["job_id"] == 7]["component_id"].tolist() == [1, 3, 4]


@pytest.mark.parametrize(("row", "column", "needle"), [
    ("7,AMG,1;x,1704070800,1704071400", "nodes", "bad node token 'x'"),
    ("7,AMG,4-2,1704070800,1704071400", "nodes", "bad node token '4-2'"),
    ("7,AMG,1,yesterday,1704071400", "start_time", "neither seconds since the epoch nor ISO 8601"),
    ("7,AMG,1,1704071400,1704070800", "end_time", "not positive"),
    ("seven,AMG,1,1704070800,1704071400", "job_id", "not an integer"),
])  # fmt: skip
def test_bad_job_table_rows_name_line_and_column(tmp_path, row, column, needle):
    path = write(tmp_path, "jobs.csv", "job_id,app,nodes,start_time,end_time\n8,MILC,2,1704070800,1704071400\n" + row + "\n")
    with pytest.raises(LoaderError) as caught:
        load_job_table(path)
    assert caught.value.line == 3 and caught.value.column == column and needle in str(caught.value)


def test_run_table_missing_column_is_named(tmp_path):
    path = write(tmp_path, "runs.csv", "app,start_time,job_id\nAMG,1704070800,7\n")
    with pytest.raises(LoaderError, match=r"lacks \['run_time_s'\]"):
        load_run_table(path)


def test_parse_nodes():
    assert parse_nodes("5; 1-3 ;9") == [5, 1, 2, 3, 9]
    with pytest.raises(ValueError):
        parse_nodes(";")


def test_real_config_needs_exactly_one_run_source(tmp_path):
    csv = write(tmp_path, "a.csv", HEADER + ldms_rows([0, 60]))
    with pytest.raises(ValueError, match="exactly one of real.job_table"):
        load_real(RealDataConfig(ldms_csv=[str(csv)]))
    with pytest.raises(ValueError, match="source: runtimes"):
        load_real(RealDataConfig(run_table=str(csv)))  # no LDMS files: the error points at the run-time-only route
    with pytest.raises(ValueError, match="does not exist"):
        RealDataConfig(ldms_csv=[str(csv)], run_table=str(tmp_path / "missing.csv"))


def test_run_table_path_end_to_end(tmp_path):
    """LDMS samples carry the job ids, so a plain run table needs no node list; features follow."""
    times = range(0, 7200 + 1, 60)

    def job_of(t, n):  # job 7 runs on node 2 from t=3600 to 4200
        return 7 if (n == 2 and 3600 <= t <= 4200) else 0

    nodes = (1, 2, 3)
    csv = write(tmp_path, "rtr.csv", HEADER + ldms_rows(times, nodes=nodes, job_of=job_of))
    runs = write(tmp_path, "runs.csv", "app,start_time,job_id,run_time_s\nAMG,2024-01-01T01:00:00,7,600\n")
    topo = write(tmp_path, "topo.csv", "component_id,router_id,group_id\n1,0,0\n2,0,0\n3,1,1\n")
    cfg = RealDataConfig(ldms_csv=[str(csv)], run_table=str(runs), topology=str(topo), gauge_counters=["mem_used_mb"])
    samples, topology, run_frame, placement = load_real(cfg)
    check_tables(samples, topology, run_frame, placement)
    assert placement.to_dict("records") == [{"job_id": 7, "component_id": 2}]
    features, _ = build_features(samples, topology, run_frame, placement, FeatureConfig(windows_s=[600]))
    row = features.iloc[0]
    assert row["rx_bytes__job__600s"] == pytest.approx(300.0)  # node 2's rate
    assert row["rx_bytes__groups__600s"] == pytest.approx(200.0)  # nodes 1 and 2 (group 0)
    # Memory gauge on node 2 is 2000 + t: the window [3000, 3600) holds t = 3000..3540.
    assert row["mem_used_mb__job__600s"] == pytest.approx(2000 + np.mean(range(3000, 3600, 60)))


def test_unknown_app_filter_is_named(tmp_path):
    csv = write(tmp_path, "a.csv", HEADER + ldms_rows([0, 60]))
    jobs = write(tmp_path, "jobs.csv", "job_id,app,nodes,start_time,end_time\n7,AMG,1,1704067200,1704067260\n")
    with pytest.raises(LoaderError, match=r"apps \['UMT'\].*choose from \['AMG'\]"):
        load_real(RealDataConfig(ldms_csv=[str(csv)], job_table=str(jobs), apps=["UMT"]))
    frame = pd.DataFrame()  # keeps pandas imported for parity with the other tests' helpers
    assert frame.empty


# --- run tables as sites write them: column names, time formats, time zones ---------------------------
SITE_HEADER = "application,submitted,jobid,wall_s,n\n"
SITE_COLUMNS = {"app": "application", "start": "submitted", "job_id": "jobid", "run_time": "wall_s", "nodes": "n"}


def test_run_table_columns_are_mapped_by_role(tmp_path):
    path = write(tmp_path, "site.csv", SITE_HEADER + "AMG,1704070800,123_4,600,8\nMILC,1704074400,125,900,16\n")
    runs = load_run_table(path, SITE_COLUMNS, integer_job_ids=False)
    assert runs["job_id"].tolist() == ["123_4", "125"] and runs["app"].tolist() == ["AMG", "MILC"]
    assert runs["start_s"].tolist() == [T0 + 3600, T0 + 7200] and runs["end_s"].tolist() == [T0 + 4200, T0 + 8100]
    assert runs["n_nodes"].tolist() == [8, 16]


@pytest.mark.parametrize(("text", "time_format", "time_zone", "expected_s"), [
    ("2025-02-08_05-01-22", "%Y-%m-%d_%H-%M-%S", "UTC", 1_738_990_882),       # a machine's own format
    ("2025-02-08_05-01-22", "%Y-%m-%d_%H-%M-%S", "America/Chicago", 1_738_990_882 + 6 * 3600),  # CST = UTC-6
    ("2024-07-01 12:00:00", None, "Europe/Berlin", 1_719_835_200 - 2 * 3600),  # zone-less ISO in summer time
    ("2024-07-01T12:00:00+00:00", None, "Europe/Berlin", 1_719_835_200),        # a written zone wins
    ("1719835200", None, "Asia/Tokyo", 1_719_835_200),                          # epoch seconds have no zone
    ("08/02/2025 05:01:22 +0100", "%d/%m/%Y %H:%M:%S %z", "UTC", 1_738_990_882 - 3600),
])  # fmt: skip
def test_start_times_in_every_format_and_zone(tmp_path, text, time_format, time_zone, expected_s):
    path = write(tmp_path, "runs.csv", f"app,start_time,job_id,run_time_s\nAMG,{text},7,60\n")
    runs = load_run_table(path, time_format=time_format, time_zone=time_zone)
    assert runs["start_s"].tolist() == [expected_s]


def test_a_repeated_local_hour_is_read_with_a_warning(tmp_path, caplog):
    # 2024-11-03 01:30 happens twice in New York; the first (summer time, UTC-4) is taken.
    path = write(tmp_path, "runs.csv", "app,start_time,job_id,run_time_s\nAMG,2024-11-03 01:30:00,7,60\n")
    runs = load_run_table(path, time_zone="America/New_York")
    assert runs["start_s"].tolist() == [1_730_611_800]  # 05:30 UTC
    assert "line 2" in caplog.text and "clock change" in caplog.text


@pytest.mark.parametrize(("text", "time_format", "needle"), [
    ("2025-02-08 05:01:22", "%Y-%m-%d_%H-%M-%S", "does not match monitoring.real.time_format '%Y-%m-%d_%H-%M-%S'"),
    ("2025-02-08_05-01-22", None, "neither seconds since the epoch nor ISO 8601"),
])  # fmt: skip
def test_a_time_in_the_wrong_format_names_line_column_and_key(tmp_path, text, time_format, needle):
    good = "1704070800" if time_format is None else "2025-02-08_04-00-00"
    path = write(tmp_path, "runs.csv", f"app,start_time,job_id,run_time_s\nAMG,{good},6,60\nAMG,{text},7,60\n")
    with pytest.raises(LoaderError) as caught:
        load_run_table(path, time_format=time_format)
    assert caught.value.line == 3 and caught.value.column == "start_time" and needle in str(caught.value)
    assert "monitoring.real.time_format" in str(caught.value)


@pytest.mark.parametrize(("body", "line", "column", "needle"), [
    ("AMG,1704070800,7,60,8\nAMG,1704074400,7,60,8\n", 3, "jobid", "job id 7 already appears on line 2"),
    ("AMG,1704070800,7,60,0\n", 2, "n", "node count 0 is below 1"),
    ("AMG,1704070800,,60,8\n", 2, "jobid", "empty job id"),
    ("AMG,1704070800,7,-5,8\n", 2, "wall_s", "not positive"),
])  # fmt: skip
def test_bad_site_rows_name_line_and_column(tmp_path, body, line, column, needle):
    with pytest.raises(LoaderError) as caught:
        load_run_table(write(tmp_path, "site.csv", SITE_HEADER + body), SITE_COLUMNS, integer_job_ids=False)
    assert (caught.value.line, caught.value.column) == (line, column) and needle in str(caught.value)


def test_a_header_without_the_mapped_columns_says_where_to_name_them(tmp_path):
    path = write(tmp_path, "site.csv", SITE_HEADER + "AMG,1704070800,7,60,8\n")
    with pytest.raises(LoaderError, match=r"lacks \['app', 'start_time', 'job_id', 'run_time_s'\].*monitoring.real.columns"):
        load_run_table(path)


@pytest.mark.parametrize(("real", "needle"), [
    ({"columns": {"start_time": "submitted"}}, "real.columns: unknown key(s) ['start_time']"),
    ({"time_zone": "Mars/Olympus"}, "real.time_zone 'Mars/Olympus' is not an IANA time zone"),
])  # fmt: skip
def test_bad_real_config_names_the_key(real, needle):
    with pytest.raises(ValueError) as caught:
        RealDataConfig(**real)
    assert needle in str(caught.value)


def test_runtimes_route_reads_only_the_run_table(tmp_path):
    site = write(tmp_path, "site.csv", SITE_HEADER + "AMG,2025-02-08_05-01-22,9,600,8\nMILC,2025-02-08_04-00-00,8,900,8\n"
                 "UMT,2025-02-08_06-00-00,10,300,4\n")  # fmt: skip
    cfg = RealDataConfig(run_table=str(site), columns=SITE_COLUMNS, time_format="%Y-%m-%d_%H-%M-%S",
                         apps=["AMG", "MILC"])  # fmt: skip
    samples, topology, runs, placement = load_runtimes(cfg)
    check_tables(samples, topology, runs, placement, runtime_only=True)
    assert runs["app"].tolist() == ["MILC", "AMG"] and runs["job_id"].tolist() == ["8", "9"]  # by start time
    assert samples.empty and topology.empty and placement.empty
    features, meta = build_features(samples, topology, runs, placement, FeatureConfig())
    assert list(meta) == ["hour_of_day", "day_of_week", "n_nodes"]
    assert features["hour_of_day"].tolist() == [4.0, 5 + 1 / 60] and features["day_of_week"].tolist() == [5, 5]
    ldms = write(tmp_path, "a.csv", HEADER + ldms_rows([0, 60]))
    with pytest.raises(ValueError, match=r"source 'runtimes' reads only real.run_table.*\['real.ldms_csv'\]"):
        load_runtimes(RealDataConfig(run_table=str(site), ldms_csv=[str(ldms)]))
    with pytest.raises(ValueError, match="real.run_table: name the run-time table"):
        load_runtimes(RealDataConfig())
