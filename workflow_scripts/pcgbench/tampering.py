"""What a sample's object may define and call: the check, before a sample is run, that it can only compute.

A sample is linked into the driver's process (suite.link_argv), so an object file could put code where the
harness runs its own: a global constructor runs before main() (and could print a forged result line and exit),
a definition of clock_gettime, malloc, memmove or a harness function takes the place of the real one for the
whole executable (the linker prefers a definition in the executable to a shared library's, and a strong one to
the driver's inline copy), an indirect function's resolver runs while the program is loaded. The sample was
asked for one function; this module reads its object (and the executable's libraries) with binutils' readelf
and names what else it defines or calls:

    why = inspect_sample(problem, model, sample_obj, driver_obj, exe)
    why.verdict, why.detail     # sandbox.TAMPERING or sandbox.RESOURCE_OVERUSE, and the symbol; None if clean

Tampering (sandbox.TAMPERING):
- a constructor or destructor section (.init_array, .ctors, .fini_array, .dtors, .preinit_array), except the one
  <iostream> adds to every translation unit that includes it under GCC 12 (the standard headers do), recognised
  by what it calls (IOSTREAM_INIT);
- an indirect function (STT_GNU_IFUNC): its resolver runs before main;
- a definition (strong or weak) of a name the driver object defines (the baseline, the harness's helpers,
  their clock) or in its namespaces (pcg::, pcg_baseline::), or of a name the executable's shared libraries
  export (libc, libm, the C++ and OpenMP runtimes, MPI): clocks, allocators, copies, exits, MPI_Wtime,
  omp_get_wtime. Weak definitions in std:: are exempt: every translation unit that uses a template instantiates
  it, from the same headers, as the driver does;
- a strong definition in std::, __gnu_cxx:: or of operator new/delete (a replacement of the runtime's);
- a call of the harness (pcg::, pcg_baseline::: the baseline is not the sample's to call) or of what changes
  the process from inside (dlopen, dlsym, mprotect, ptrace, raw syscall, ...: FORBIDDEN_CALLS);
- an instruction that enters the kernel without libc (x86-64 `syscall`, `sysenter`, `int $0x80`) in the sample's
  own code: inline assembly (or its bytes, `.byte 0x0f, 0x05`) that would make the calls the rules above refuse
  by name (system_call_instructions).
Resource overuse (sandbox.RESOURCE_OVERUSE): a call that starts threads or processes of the sample's own, or
changes the thread count it was given (SPAWN_CALLS: pthread_create, std::thread, fork, omp_set_num_threads,
MPI_Comm_spawn, ...), and an OpenMP `num_threads(...)` clause (inspect_source; only `omp_get_max_threads()`,
the count given, is allowed): the model's runtime (OpenMP, MPI, Kokkos) makes the threads and ranks a run is
given, never the body. These are decided from the code, so they hold on a loaded machine, where the run's own
CPU-time check (run.resource_overuse) can only see what the scheduler let the extra threads do.
What is left (a body that reads or writes the process's memory through pointers) is bounded by the run's own
checks: a result line needs the run's nonce, reported times must fit in the wall time
measured outside, CPU time is read around every timed call (run.py).

GPU objects (nvcc, hipcc) register their kernels in constructors of their own: the constructor rule is not
applied to them (no GPU runs here to prove a narrower rule against).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import subprocess
import tempfile
from pathlib import Path

from workflow_scripts.common.c_scanner import pragmas
from workflow_scripts.pcgbench import sandbox, suite

CONSTRUCTOR_SECTIONS = (".init_array", ".ctors", ".fini_array", ".dtors", ".preinit_array")
# What the static constructor of a translation unit that includes <iostream> (GCC 12) refers to, and nothing else:
# std::ios_base::Init's constructor and destructor, __cxa_atexit with __dso_handle, its own static object.
IOSTREAM_INIT = {"_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev", "__cxa_atexit", "__dso_handle",
                 "_ZStL8__ioinit", ".bss"}  # fmt: skip
HARNESS_NAMESPACES = ("pcg::", "pcg_baseline::")
STD_NAMESPACES = ("std::", "__gnu_cxx::", "__cxxabiv1::")
# Never the sample's to define, not even as an inline copy: the allocator and the clocks.
PROTECTED_CXX = ("operator new", "operator delete", "std::chrono::")
# Calls that change the process from inside: load code, unprotect the harness's, trace or write another process.
FORBIDDEN_CALLS = {"dlopen", "dlmopen", "dlsym", "dlvsym", "mprotect", "pkey_mprotect", "ptrace", "process_vm_writev",
                   "process_vm_readv", "syscall", "prctl", "personality", "__libc_dlopen_mode", "__libc_dlsym",
                   "dl_iterate_phdr", "sched_setaffinity", "pthread_setaffinity_np", "setrlimit", "prlimit"}  # fmt: skip
# Calls that start threads or processes, or change the thread count the run gave.
SPAWN_CALLS = {"pthread_create", "fork", "vfork", "clone", "clone3", "execve", "execv", "execvp", "execvpe", "execl",
               "execlp", "execle", "fexecve", "posix_spawn", "posix_spawnp", "system", "popen", "omp_set_num_threads",
               "omp_set_dynamic", "omp_set_max_active_levels", "omp_set_nested", "MPI_Comm_spawn",
               "MPI_Comm_spawn_multiple"}  # fmt: skip
SPAWN_PREFIXES = ("_ZNSt6thread15_M_start_thread",)  # std::thread and std::async (libstdc++)


@dataclasses.dataclass(frozen=True)
class Finding:
    verdict: str  # sandbox.TAMPERING or sandbox.RESOURCE_OVERUSE
    detail: str  # what the object defines or calls, named


# An OpenMP clause that sets a team's size; `num_threads(omp_get_max_threads())` asks for the count given.
_NUM_THREADS = re.compile(r"\bnum_threads\s*\(")
_GIVEN_COUNT = re.compile(r"\bnum_threads\s*\(\s*omp_get_max_threads\s*\(\s*\)\s*\)")
# A teams construct on the host starts a league of teams, each a team of its own: threads beyond those given.
_TEAMS = re.compile(r"^omp\b.*\bteams\b")


def inspect_source(model: str, body: str) -> Finding | None:
    """An OpenMP directive of the body that sets its own thread count (RESOURCE_OVERUSE), or None. Only for the
    models compiled with OpenMP: elsewhere the pragma does nothing."""
    if model not in (*suite.OPENMP_MODELS, "kokkos"):
        return None
    for pragma in pragmas(body):
        if _NUM_THREADS.search(pragma.text) and not _GIVEN_COUNT.search(pragma.text):
            return Finding(sandbox.RESOURCE_OVERUSE, f"line {pragma.line} of the body: `#pragma {pragma.text[:160]}` "
                           "sets its own thread count (the run gives it its threads; omp_get_max_threads() is their number)")
        if _TEAMS.search(pragma.text):
            return Finding(sandbox.RESOURCE_OVERUSE, f"line {pragma.line} of the body: `#pragma {pragma.text[:160]}` "
                           "starts a league of teams, threads beyond the team the run gives it")
    return None


@dataclasses.dataclass(frozen=True)
class Symbol:
    name: str  # as in the object (mangled)
    kind: str  # readelf's Type: FUNC, OBJECT, IFUNC, NOTYPE, SECTION, ...
    bind: str  # LOCAL, GLOBAL, WEAK, UNIQUE
    section: str  # the section index, "UND" for a reference
    value: int
    size: int


def _readelf(*args: str) -> str:
    proc = subprocess.run(["readelf", "-W", *args], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"readelf {' '.join(args)} failed: {proc.stderr.strip()[:300]}")
    return proc.stdout


def _parse_symbols(text: str) -> list[Symbol]:
    found = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 8 or not parts[0].rstrip(":").isdigit():
            continue
        value, size = int(parts[1], 16), int(parts[2], 0) if parts[2].isdigit() else int(parts[2], 16)
        found.append(Symbol(name=parts[7].split("@")[0], kind=parts[3], bind=parts[4], section=parts[6], value=value,
                            size=size))  # fmt: skip
    return found


def _parse_relocations(text: str) -> dict[str, list[tuple[int, str, int]]]:
    table: dict[str, list[tuple[int, str, int]]] = {}
    current = None
    for line in text.splitlines():
        header = re.match(r"Relocation section '\.rela?(\S+)'", line)
        if header:
            current = table.setdefault(header.group(1), [])
            continue
        parts = line.split()
        if current is None or len(parts) < 5 or not re.fullmatch(r"[0-9a-f]+", parts[0]):
            continue
        addend = int(parts[6], 16) * (-1 if parts[5] == "-" else 1) if len(parts) >= 7 else 0
        current.append((int(parts[0], 16), parts[4].split("@")[0], addend))
    return table


@dataclasses.dataclass(frozen=True)
class ObjectFile:
    """What the checks read of an object file, from one readelf call."""

    sections: dict[str, str]  # section index -> name
    symbols: list[Symbol]
    relocations: dict[str, list[tuple[int, str, int]]]  # relocated section name -> (offset, target, addend)


def read_object(path: Path) -> ObjectFile:
    """An object file's sections, symbols and relocations (readelf -S -r -s, one process)."""
    text = _readelf("--sections", "--relocs", "--syms", str(path))
    at_relocs = text.find("\nRelocation section")
    at_symbols = text.find("\nSymbol table")
    head = text[: min(i for i in (at_relocs, at_symbols, len(text)) if i >= 0)]
    sections = {m.group(1): m.group(2) for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", head, re.MULTILINE)}
    relocs_text = text[at_relocs:at_symbols] if at_relocs >= 0 else ""
    symbols_text = text[at_symbols:] if at_symbols >= 0 else ""
    return ObjectFile(sections=sections, symbols=_parse_symbols(symbols_text),
                      relocations=_parse_relocations(relocs_text))  # fmt: skip


def symbols(path: Path, dynamic: bool = False) -> list[Symbol]:
    """The symbol table (or the dynamic one) of an ELF file, version suffixes dropped."""
    return _parse_symbols(_readelf("--dyn-syms" if dynamic else "--syms", str(path)))


@functools.lru_cache(maxsize=256)
def _defined_names(path: Path, mtime_ns: int) -> frozenset[str]:
    """The names an object defines for others (the driver's: read once per object and version)."""
    return frozenset(s.name for s in symbols(path) if s.section != "UND" and s.bind != "LOCAL")


def demangle(names: list[str]) -> dict[str, str]:
    """{mangled: demangled} through c++filt (one process for all)."""
    if not names:
        return {}
    proc = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True, timeout=60)
    return dict(zip(names, proc.stdout.splitlines(), strict=False))


def function_name(problem: suite.Problem, model: str) -> str:
    """The name of the function the prompt asks for (the identifier before the signature's parameter list)."""
    return re.search(r"(\w+)\s*\(", problem.signature(model)).group(1)


@functools.cache
def _ldconfig_paths() -> dict[str, str]:
    """{soname: path} of the dynamic linker's cache (64-bit x86 entries first)."""
    proc = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=60)
    paths: dict[str, str] = {}
    for match in re.finditer(r"^\s*(\S+) \(([^)]*)\) => (\S+)", proc.stdout, re.MULTILINE):
        if match.group(1) not in paths or "x86-64" in match.group(2):
            paths[match.group(1)] = match.group(3)
    return paths


@functools.cache
def _exported(library: str) -> frozenset[str]:
    """The names a shared library defines for others (its dynamic symbols, defined)."""
    return frozenset(s.name for s in symbols(Path(library), dynamic=True)
                     if s.section != "UND" and s.bind in ("GLOBAL", "WEAK", "UNIQUE"))  # fmt: skip


def library_exports(exe: Path) -> dict[str, str]:
    """{name: library} for every name the executable's needed shared libraries export (runpath first)."""
    dynamic = _readelf("--dynamic", str(exe))
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    runpath = [d for m in re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[([^\]]+)\]", dynamic)
               for d in m.split(":")]  # fmt: skip
    return _exports_of(tuple(needed), tuple(runpath))


@functools.cache
def _exports_of(needed: tuple[str, ...], runpath: tuple[str, ...]) -> dict[str, str]:
    """library_exports for one set of needed libraries (every sample of a model links the same ones)."""
    exports: dict[str, str] = {}
    for soname in needed:
        path = next((str(Path(d) / soname) for d in runpath if (Path(d) / soname).exists()),
                    _ldconfig_paths().get(soname))  # fmt: skip
        if path is None:
            continue  # the executable would not load either: the run says so
        for name in _exported(path):
            exports.setdefault(name, soname)
    return exports


def constructor_calls(elf: ObjectFile) -> dict[str, set[str]]:
    """{constructor/destructor section: what the functions it lists refer to} ("?" for an entry that names no
    function of the object)."""
    index, table, relocs = elf.sections, elf.symbols, elf.relocations
    found: dict[str, set[str]] = {}
    for section in (name for name in index.values() if name.startswith(CONSTRUCTOR_SECTIONS)):
        calls = found.setdefault(section, set())
        for _, target, addend in relocs.get(section, []):
            # The entry names a function, or its section with the function's offset as the addend.
            functions = [s for s in table if s.kind == "FUNC" and (s.name == target or (
                index.get(s.section) == target and s.value == addend))]  # fmt: skip
            if not functions:
                calls.add("?")
            for function in functions[:1]:
                where = index.get(function.section, "")
                calls |= {name for off, name, _ in relocs.get(where, [])
                          if function.value <= off < function.value + function.size}  # fmt: skip
    return found


@functools.cache
@functools.cache
def prelude(model: str) -> tuple[frozenset[str], frozenset[str]]:
    """(what the constructors of the headers' own static objects refer to, the names the headers alone define:
    their inline functions, vtables and data), read from a sample of `model` with an empty body compiled as samples
    are: what the standard and the model's headers alone put into an object (<iostream>'s and Kokkos's static
    objects, MPI's C++ bindings). Compiled once per model and process, only when a sample's object needs it to be
    judged, in a temporary folder of its own (two build workers may ask at once), removed once read."""
    with tempfile.TemporaryDirectory(prefix="pcgbench-prelude-") as folder:
        src = Path(folder) / f"{model.replace('+', '_')}{suite.sample_suffix(model)}"
        obj = src.with_suffix(".o")
        src.write_text(f'#include "{suite.STANDARD_HEADER_FILE}"\n' + "".join(f"#include <{h}>\n"
                       for h in suite.MODEL_INCLUDES[model]) + "int pcgbench_prelude_probe() { return 0; }\n")  # fmt: skip
        argv = suite.compile_sample_argv(None, model, src, obj)
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"the {model} prelude does not compile: {' '.join(argv)}\n{proc.stderr[-2000:]}")
        elf = read_object(obj)
    calls = frozenset().union(*constructor_calls(elf).values())
    defined = frozenset(s.name for s in elf.symbols if s.section != "UND" and s.bind != "LOCAL")
    return calls, defined


def _header_section(section: str, model: str) -> bool:
    """Whether a section holds one of the headers' own definitions (`.text.<name>`, `.data.rel.ro.<name>`, ...
    for a name the prelude defines): a reference from there is the headers', not the sample's."""
    name = re.sub(r"^\.(?:text|data\.rel\.ro\.local|data\.rel\.ro|data|rodata|bss)\.", "", section)
    return name != section and name in prelude(model)[1]


def _referrers(elf: ObjectFile, names: set[str]) -> dict[str, set[str]]:
    """{name: the sections whose relocations refer to it} for each of `names` the object refers to."""
    found: dict[str, set[str]] = {}
    for section, entries in elf.relocations.items():
        for _, target, _ in entries:
            if target in names:
                found.setdefault(target, set()).add(section)
    return found


def _constructor_findings(elf: ObjectFile, model: str, names: dict[str, str]) -> list[str]:
    """What the object's constructor/destructor sections run beyond what the headers' own static objects do."""
    calls = constructor_calls(elf)
    everything = set().union(*calls.values())
    if everything <= IOSTREAM_INIT:
        return []
    extra = everything - prelude(model)[0]
    if not extra:
        return []
    shown = ", ".join(sorted(names.get(c, c) for c in extra)[:4])
    return [f"a global constructor/destructor ({', '.join(calls)}) that runs outside the timed call, referring to "
            f"{shown}"]


# x86-64 instructions that enter the kernel: syscall (0f 05), sysenter (0f 34), int $0x80 (cd 80). Their bytes
# also occur inside other instructions and data, so a hit only sends the object to the disassembler.
SYSTEM_CALL_BYTES = (b"\x0f\x05", b"\x0f\x34", b"\xcd\x80")
_SYSTEM_CALL_INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\s+(syscall|sysenter|int\s+\$0x80)\b")


def system_call_instructions(obj: Path, model: str) -> list[str]:
    """Where the object's own code holds an instruction that enters the kernel ("syscall in <function>"), outside
    the headers' inline functions (_header_section). objdump runs only when the object's bytes hold one of the
    instructions' encodings (about 10 ms for a 100 kB object)."""
    data = obj.read_bytes()
    if not any(encoding in data for encoding in SYSTEM_CALL_BYTES):
        return []
    proc = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", str(obj)], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"objdump -d {obj} failed: {proc.stderr.strip()[:300]}")
    found, section, function = [], "", "?"
    for line in proc.stdout.splitlines():
        if line.startswith("Disassembly of section "):
            section = line.removeprefix("Disassembly of section ").rstrip(":")
        elif re.match(r"^[0-9a-f]+ <.*>:$", line):
            function = line.split("<", 1)[1].rsplit(">", 1)[0]
        elif (match := _SYSTEM_CALL_INSTRUCTION.match(line)) and not _header_section(section, model):
            found.append(f"{match.group(1)} in {function}")
    return list(dict.fromkeys(found))


def inspect_sample(problem: suite.Problem, model: str, sample_obj: Path, driver_obj: Path,
                   exe: Path) -> Finding | None:  # fmt: skip
    """The first thing the sample's object defines or calls beyond its function (module docstring), or None."""
    elf = read_object(sample_obj)
    table = elf.symbols
    driver_defined = _defined_names(driver_obj, driver_obj.stat().st_mtime_ns)
    exports = library_exports(exe)
    names = demangle(sorted({s.name for s in table if s.bind != "LOCAL" or s.kind == "FUNC"}))
    wanted = function_name(problem, model)
    tampering: list[str] = []
    spawning: list[str] = []
    if model not in ("cuda", "hip"):
        tampering += _constructor_findings(elf, model, names)
    tampering += [f"an instruction that enters the kernel itself ({where}), a system call no rule can see by name"
                  for where in system_call_instructions(sample_obj, model)]  # fmt: skip
    # Forbidden calls count where the sample's own code makes them, not where the headers' inline functions do
    # (MPI's C++ bindings refer to MPI_Comm_spawn in every translation unit that includes mpi.h).
    suspicious = {s.name for s in table if s.section == "UND" and (
        s.name in FORBIDDEN_CALLS or s.name in SPAWN_CALLS or s.name.startswith(SPAWN_PREFIXES))}  # fmt: skip
    own = {name for name, sites in _referrers(elf, suspicious).items()
           if not all(_header_section(site, model) for site in sites)}  # fmt: skip
    for s in table:
        pretty = names.get(s.name, s.name)
        if s.bind == "LOCAL" or s.kind in ("SECTION", "FILE"):
            continue
        if s.section == "UND":
            if pretty.startswith(HARNESS_NAMESPACES):
                tampering.append(f"a call of the harness's {pretty}")
            elif s.name in FORBIDDEN_CALLS and s.name in own:
                tampering.append(f"a call of {s.name}, which changes the process from inside")
            elif s.name in own:
                spawning.append(f"a call of {pretty}: threads, processes or a thread count of the sample's own "
                                "(the run gives it its threads and ranks)")
            continue
        if pretty.split("(")[0].split("<")[0] == wanted or s.name == wanted:
            continue  # the function asked for (any overload of its name)
        weak = s.bind in ("WEAK", "UNIQUE")
        if s.kind == "IFUNC":
            tampering.append(f"an indirect function {pretty}, resolved before main")
        elif pretty.startswith(HARNESS_NAMESPACES):
            tampering.append(f"a definition of the harness's {pretty}")
        elif pretty.startswith(PROTECTED_CXX):
            tampering.append(f"a definition of {pretty}, a replacement of the C++ runtime's")
        elif weak and (s.name.startswith("_Z") or s.name.startswith("DW.ref.")):
            continue  # an inline function or template instantiated from the headers, as in every unit that uses it
        elif s.name in driver_defined:
            tampering.append(f"a definition of {pretty}, which the driver defines")
        elif s.name in exports:
            tampering.append(f"a definition of {pretty}, which takes the place of {exports[s.name]}'s")
        elif pretty.startswith(STD_NAMESPACES):
            tampering.append(f"a definition of {pretty}, a replacement of the C++ runtime's")
    if tampering:
        return Finding(sandbox.TAMPERING, "the sample object holds " + "; ".join(dict.fromkeys(tampering))[:600])
    if spawning:
        return Finding(sandbox.RESOURCE_OVERUSE, "the sample object holds " + "; ".join(dict.fromkeys(spawning))[:600])
    return None
