"""Corpus sources: local folders and git repositories by path, failures reported by name, the private apt config."""

import subprocess

import pytest

from workflow_scripts.common import read_json
from workflow_scripts.corpus import sources
from workflow_scripts.corpus.sources import FetchConfig, FetchError, SourceSpec

MIT_TEXT = "Permission is hereby granted, free of charge, to any person obtaining a copy of this software"


def _local_tree(root, files):
    for relpath, text in files.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(text)
    return root


def _git_repo(root):
    _local_tree(root, {"src/kernel.cpp": "#pragma omp parallel for\nfor (int i = 0; i < n; ++i) y[i] = x[i];\n",
                       "LICENSE": MIT_TEXT})  # fmt: skip
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": "/usr/bin:/bin"}  # fmt: skip
    for command in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-q", "-m", "kernel"]):
        subprocess.run(command, cwd=root, check=True, env=env)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def test_local_and_git_sources_are_recorded_and_a_failed_one_is_named_while_the_others_go_on(tmp_path, caplog):
    local = _local_tree(tmp_path / "local", {"a.c": "int main(void) { return 0; }\n", "sub/b.cu": "__global__ void k() {}\n"})
    commit = _git_repo(tmp_path / "upstream")
    section = {
        "cache_dir": str(tmp_path / "cache"),
        "min_sources": 2,
        "sources": [
            {"name": "mine", "kind": "local", "path": str(local), "license": "BSD-3-Clause"},
            {"name": "missing", "kind": "git", "url": str(tmp_path / "no-such-repo")},
            {"name": "cloned", "kind": "git", "url": str(tmp_path / "upstream"), "include": ["src"]},
        ],
    }
    manifest_path = tmp_path / "sources.json"
    records = sources.main(manifest_path, section, seed=1)
    by_name = {r["name"]: r for r in records}
    assert by_name["missing"]["status"] == sources.STATUS_FAILED
    assert "source 'missing'" in by_name["missing"]["error"] and "git" in by_name["missing"]["error"]
    assert any("missing" in message and "could not be fetched" in message for message in caplog.messages)
    assert by_name["mine"]["status"] == "ok" and by_name["mine"]["license"] == "BSD-3-Clause"
    assert by_name["mine"]["file_count"] == 2 and len(by_name["mine"]["tree_sha256"]) == 64
    cloned = by_name["cloned"]
    assert cloned["version"] == commit and cloned["license"] == "MIT" and cloned["file_count"] == 1
    manifest = read_json(manifest_path)
    assert manifest["ok"] == ["mine", "cloned"] and manifest["failed"] == ["missing"]
    # Fetched once: a second run reuses the cache entry (same checksum, no new clone).
    (tmp_path / "upstream" / "src" / "kernel.cpp").write_text("changed upstream")
    again = {r["name"]: r for r in sources.fetch_all(FetchConfig.from_config(section))}
    assert again["cloned"]["tree_sha256"] == cloned["tree_sha256"]


def test_too_few_sources_is_an_error_that_names_each_failure(tmp_path):
    local = _local_tree(tmp_path / "local", {"a.c": "int x;\n"})
    section = {"cache_dir": str(tmp_path / "cache"), "min_sources": 2, "sources": [
        {"name": "ok_one", "kind": "local", "path": str(local)},
        {"name": "nowhere", "kind": "local", "path": str(tmp_path / "nowhere")},
    ]}  # fmt: skip
    with pytest.raises(FetchError, match=r"only 1 of 2 corpus sources.*nowhere: source 'nowhere': local path .* is not a directory"):
        sources.main(tmp_path / "sources.json", section, seed=1)
    assert not (tmp_path / "sources.json").exists()


@pytest.mark.parametrize(
    ("spec", "message"),
    [({"name": "x", "kind": "svn"}, "kind: 'svn'"), ({"name": "x", "kind": "pypi", "package": "POT"}, "needs 'version'"),
     ({"name": "bad name", "kind": "local", "path": "."}, "name 'bad name'"),
     ({"name": "x", "kind": "local", "path": ".", "include": ["../etc"]}, "relative path inside")],
)  # fmt: skip
def test_bad_source_specs_name_the_field(spec, message):
    with pytest.raises(ValueError, match=message):
        SourceSpec(**spec)


def test_private_apt_config_copies_deb_entries_as_deb_src_without_touching_the_system(tmp_path):
    system = tmp_path / "etc-apt"
    (system / "sources.list.d").mkdir(parents=True)
    (system / "sources.list").write_text("deb http://mirror.example/debian bookworm main\n# deb http://old example\n")
    (system / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n\n"
        "Types: deb\nURIs: http://disabled.example\nSuites: x\nComponents: main\nEnabled: no\n"
    )
    (system / "sources.list.d" / "third.list.disabled").write_text("deb http://ignored.example x main\n")
    before = {p: p.read_text() for p in system.rglob("*") if p.is_file()}
    conf = sources.private_apt_config(tmp_path / "apt", system_sources=(system / "sources.list", system / "sources.list.d"))
    assert {p: p.read_text() for p in system.rglob("*") if p.is_file()} == before
    parts = tmp_path / "apt" / "sources.list.d"
    assert (parts / "src.list").read_text().strip() == "deb-src http://mirror.example/debian bookworm main"
    deb822 = (parts / "src.sources").read_text()
    assert "Types: deb-src" in deb822 and "disabled.example" not in deb822 and "Types: deb\n" not in deb822
    text = conf.read_text()
    assert f'Dir::Etc::SourceParts "{parts.resolve()}"' in text and f'Dir::State::Lists "{(tmp_path / "apt" / "lists").resolve()}"' in text


def test_debian_copyright_gives_each_file_the_last_matching_stanza():
    text = ("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: p4est\n\n"
            "Files: *\nCopyright: someone\nLicense: GPL-2.0+\n\nFiles: sc/*\nCopyright: someone\nLicense: LGPL-2.1+\n\n"
            "Files:\n sc/src/sc_builtin/*\n sc/src/sc_getopt*\nCopyright: FSF\nLicense: LGPL-2.1+ or later\n")  # fmt: skip
    rules = sources.parse_debian_copyright(text)
    assert rules[0] == (["*"], "GPL-2.0+")
    assert sources.license_for("src/p4est.c", rules, "unknown") == "GPL-2.0+"
    assert sources.license_for("sc/src/sc.c", rules, "unknown") == "LGPL-2.1+"
    assert sources.license_for("sc/src/sc_getopt1.c", rules, "unknown") == "LGPL-2.1+ or later"
    assert sources.detect_license_text(MIT_TEXT) == "MIT"
