"""What a sample's object may define and call: the check, before a sample is run, that it can only compute.

A sample is linked into the driver's process (toolchains.link_argv), so an object file could put code where the
harness runs its own: a global constructor runs before main() (and could print a forged result line and exit),
a definition of clock_gettime, malloc, memmove or a harness function takes the place of the real one for the
whole executable (the linker prefers a definition in the executable to a shared library's, and a strong one to
the driver's inline copy), an indirect function's resolver runs while the program is loaded. (Since protocol v6 the
clock, the baseline and the check of every CPU run are in another process, the judge's: drivers/judge.hpp. There
these checks are a second line and the source of a clear detail; for the GPU models they are the first.) The sample
was asked for one function; this module reads its object (and the executable's libraries) with binutils' readelf
and names what else it defines or calls:

    why = inspect_sample(problem, exec_model, sample_obj, driver_obj, exe)
    why.verdict, why.detail     # verdicts.TAMPERING or verdicts.RESOURCE_OVERUSE, and the symbol; None if clean

Tampering (verdicts.TAMPERING):
- a constructor or destructor section (.init_array, .ctors, .fini_array, .dtors, .preinit_array) whose code refers
  to anything beyond what the headers' own static objects refer to (<iostream>'s under GCC 12, IOSTREAM_INIT;
  Kokkos's registries; for CUDA and HIP, the registration of the object's kernels and their launch stubs,
  GPU_REGISTRATION). Its code is followed wherever it can go (constructor_reach): through direct calls within a
  section (which need no relocation), functions whose address is taken (an atexit handler) and data it refers to
  (a table of function pointers), so the name of a function decides nothing;
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
  by name (system_call_instructions);
- a reference to what is outside its arguments (OUTSIDE_CALLS): opening a file (/proc/self/mem writes through page
  protections) and reading the environment (where the race check's run differs from a timed one);
- in an OpenMP body's code, before it is built (inspect_source, build_probe): a test that could tell the race
  check's build (clang, ThreadSanitizer) from the timed one (GCC): their macros, feature tests, token pasting.
Resource overuse (verdicts.RESOURCE_OVERUSE): a call that starts threads or processes of the sample's own, or
changes the thread count it was given (SPAWN_CALLS: pthread_create, std::thread, fork, omp_set_num_threads,
MPI_Comm_spawn, ...), and an OpenMP `num_threads(...)` clause (inspect_source; only `omp_get_max_threads()`,
the count given, is allowed): the model's runtime (OpenMP, MPI, Kokkos) makes the threads and ranks a run is
given, never the body. These are decided from the code, so they hold on a loaded machine, where the run's own
CPU-time check (run.resource_overuse) can only see what the scheduler let the extra threads do.
A body that reads or writes the process's memory through pointers names nothing this module could refuse: what the
verdict rests on is in the judge's process (CPU runs) or in the driver's vault, out of the sample's reach while it runs
(GPU runs: drivers/main.hpp), and executables are linked with full RELRO (toolchains.FULL_RELRO). What is left for GPU
runs, code that calls libc through an address it computes (mprotect on the vault), is bounded by the run's own checks:
reported times must fit in the wall time measured outside, CPU time is read around every timed call, every timed
call's answer is checked (run.py).
CUDA objects are read as compiled by nvcc here (no GPU runs them); HIP's registration names are clang's, not read
here (no hipcc).
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import re
import subprocess
import tempfile
from pathlib import Path

from workflow_scripts.common.c_scanner import pragmas, strip_comments_and_strings
from workflow_scripts.measure import suite, toolchains, verdicts

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
                   "dl_iterate_phdr", "sched_setaffinity", "pthread_setaffinity_np", "setrlimit", "prlimit", "timer_create",
                   "setitimer", "alarm", "ualarm"}  # fmt: skip
# Calls that reach what is outside the sample's arguments: files (the process's own /proc/self/mem, whose writes pass
# page protections, is one) and the environment (it tells the race check's run from a timed one: TSAN_OPTIONS).
OUTSIDE_CALLS = {"open", "open64", "openat", "openat64", "__open_2", "__open64_2", "__openat_2", "__openat64_2",
                 "creat", "creat64", "fopen", "fopen64", "freopen", "freopen64", "name_to_handle_at",
                 "open_by_handle_at", "MPI_File_open", "getenv", "secure_getenv", "__secure_getenv", "environ",
                 "__environ", "_environ", "program_invocation_name", "program_invocation_short_name", "__progname",
                 "__progname_full", "getauxval", "__libc_argv", "__libc_argc"}  # fmt: skip
# The C++ streams on files (their constructors and open() are the runtime's, instantiated there: a reference).
OUTSIDE_PREFIXES = ("std::basic_ifstream", "std::basic_ofstream", "std::basic_fstream", "std::basic_filebuf")
# Calls that start threads or processes, or change the thread count the run gave.
SPAWN_CALLS = {"pthread_create", "fork", "vfork", "clone", "clone3", "execve", "execv", "execvp", "execvpe", "execl",
               "execlp", "execle", "fexecve", "posix_spawn", "posix_spawnp", "system", "popen", "omp_set_num_threads",
               "omp_set_dynamic", "omp_set_max_active_levels", "omp_set_nested", "MPI_Comm_spawn",
               "MPI_Comm_spawn_multiple", "thrd_create", "_Fork", "aio_read", "aio_write", "aio_fsync", "lio_listio",
               "aio_read64", "aio_write64", "aio_fsync64", "lio_listio64", "mq_notify",
               "getaddrinfo_a"}  # fmt: skip  (the aio_* and mq_notify calls can run a callback on a thread of their own)
SPAWN_PREFIXES = ("_ZNSt6thread15_M_start_thread",)  # std::thread and std::async (libstdc++)
# What the code that registers a CUDA or HIP object's kernels at load time reaches besides the prelude's: each
# kernel's host stub (registered by address) and what a stub calls to launch it (nvcc 12's names, read here from
# compiled objects; HIP's from clang's stubs, not read here: no hipcc).
GPU_REGISTRATION = {"__cudaRegisterFunction", "__cudaRegisterVar", "__cudaPopCallConfiguration", "__cudaLaunchKernel",
                    "cudaLaunchKernel", "__cudaGetKernel", "__cxa_guard_acquire", "__cxa_guard_release",
                    "__cxa_guard_abort", "_Unwind_Resume", "__hipRegisterFunction", "__hipRegisterVar",
                    "__hipPopCallConfiguration", "hipLaunchKernel"}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Finding:
    verdict: str  # verdicts.TAMPERING or verdicts.RESOURCE_OVERUSE
    detail: str  # what the object defines or calls, named


# An OpenMP clause that sets a team's size; `num_threads(omp_get_max_threads())` asks for the count given.
_NUM_THREADS = re.compile(r"\bnum_threads\s*\(")
_GIVEN_COUNT = re.compile(r"\bnum_threads\s*\(\s*omp_get_max_threads\s*\(\s*\)\s*\)")
# A teams construct on the host starts a league of teams, each a team of its own: threads beyond those given.
_TEAMS = re.compile(r"^omp\b.*\bteams\b")


# What tells the race check's build (clang, ThreadSanitizer: run.check_races) from the timed one (GCC) in a body's
# code: the sanitizer's and the compilers' own macros, feature tests whose answers differ between the two, an
# OpenMP version compared (GCC 12 and clang differ), and token pasting, which could build any of these names.
# Also what keeps code out of the race check's sight without asking which build it is: the sanitizer's attributes
# (no_sanitize("thread"), disable_sanitizer_instrumentation) and its annotation functions (AnnotateIgnoreWritesBegin,
# AnnotateBenignRace, ...: weak declarations that do nothing under GCC), and what reads the command line or the
# program's name, where the race check's run differs from a timed one (program_invocation_name, getauxval, argv).
_BUILD_PROBE = re.compile(r"\b(__SANITIZE_\w+__|__has_feature|__has_extension|__has_builtin|__has_attribute|"
                          r"__has_cpp_attribute|__has_declspec_attribute|__is_identifier|__clang\w*|__llvm__|"
                          r"__GNUC\w*|__GNUG__|__VERSION__|__tsan\w*|__sanitizer\w*|_*no_sanitize\w*|"
                          r"disable_sanitizer_instrumentation|Annotate\w+|Valgrind\w*|program_invocation\w*|"
                          r"__progname\w*|getauxval|__libc_argv|__libc_argc|_dl_argv)\b|\b_OPENMP\s*[<>=!]|##")
# What brings a file of the build machine into the object (and its text into the compiler's log, which the results
# keep): an #include of an absolute path, of a path that climbs out (..) or of a macro (a computed path), and the
# assembler's .incbin. The prompts' headers are the standard ones, named in angle brackets.
_FILE_PROBE = re.compile(r"^\s*(?:#|%:)\s*include\s*(?:[<\"]\s*(?:/|[^>\"]*\.\.)|[A-Za-z_])|\.incbin\b", re.MULTILINE)


def build_probe(body: str) -> str | None:
    """The first thing in an OpenMP body's code (comments and strings aside) that could tell its race-check build
    from its timed build (_BUILD_PROBE), with its line, or None: a body that takes another path under the race check
    hides a race from it."""
    code = strip_comments_and_strings(body)
    if (match := _BUILD_PROBE.search(code)) is None:
        return None
    line = code.count("\n", 0, match.start()) + 1
    return f"line {line} of the body: `{match.group(0).strip()}`"


def file_probe(body: str) -> Finding | None:
    """TAMPERING when a body's text (any model) would bring a file of the build machine into its build (_FILE_PROBE),
    decided before it is compiled: the detail names the line, never the file's contents."""
    spliced = re.sub(r"\\\r?\n", "", body)  # lines joined where a backslash ends one, as the compiler reads them
    if (match := _FILE_PROBE.search(spliced)) is None:
        return None
    line = spliced.count("\n", 0, match.start()) + 1
    return Finding(verdicts.TAMPERING, f"line {line} of the body brings a file of the build machine into its build "
                   "(an #include of an absolute path, a path with '..' or a macro, or .incbin); the prompt's headers "
                   "are the standard ones")


def inspect_source(exec_model: str, body: str) -> Finding | None:
    """What the code of a body compiled with OpenMP says before it is built, or None: a directive that sets its own
    thread count (RESOURCE_OVERUSE; elsewhere the pragma does nothing); for the models the race check runs, a test
    of which build it is in (TAMPERING: build_probe)."""
    if exec_model not in (*suite.OPENMP_EXEC_MODELS, "kokkos"):
        return None
    if exec_model in suite.OPENMP_EXEC_MODELS and (where := build_probe(body)) is not None:
        return Finding(verdicts.TAMPERING, f"{where} can tell the race check's build (clang, ThreadSanitizer) from "
                       "the timed one (GCC), so that the race check runs other code")
    for pragma in pragmas(body):
        if _NUM_THREADS.search(pragma.text) and not _GIVEN_COUNT.search(pragma.text):
            return Finding(verdicts.RESOURCE_OVERUSE, f"line {pragma.line} of the body: `#pragma {pragma.text[:160]}` "
                           "sets its own thread count (the run gives it its threads; omp_get_max_threads() is their number)")
        if _TEAMS.search(pragma.text):
            return Finding(verdicts.RESOURCE_OVERUSE, f"line {pragma.line} of the body: `#pragma {pragma.text[:160]}` "
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
    # A sample's symbol names are any bytes it chose (not UTF-8 where it likes): kept as they are, never a decode error.
    proc = subprocess.run(["readelf", "-W", *args], capture_output=True, text=True, errors="surrogateescape", timeout=60)
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


@functools.cache
def _demangler() -> tuple:
    """libstdc++'s __cxa_demangle and libc's free, through ctypes: the C++ runtime's own demangler, in process (a
    c++filt process per sample cost about 20 ms, on the path of the first runs)."""
    runtime, libc = ctypes.CDLL("libstdc++.so.6"), ctypes.CDLL(None)
    cxa_demangle = runtime.__cxa_demangle
    cxa_demangle.restype = ctypes.c_void_p
    cxa_demangle.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    libc.free.argtypes = [ctypes.c_void_p]
    return cxa_demangle, libc.free


def demangle(names: list[str]) -> dict[str, str]:
    """{mangled: demangled} for C++ names (`_Z...`); any other name is itself, as c++filt leaves it (a bare `i`
    is a C symbol, not the type int)."""
    cxa_demangle, free = _demangler()
    found = {}
    for name in names:
        found[name] = name
        if not name.startswith("_Z"):
            continue
        status = ctypes.c_int(0)
        text = cxa_demangle(name.encode(errors="surrogateescape"), None, None, ctypes.byref(status))
        if status.value == 0 and text:
            found[name] = ctypes.string_at(text).decode(errors="replace")
            free(text)
    return found


def function_name(problem: suite.Problem, exec_model: str) -> str:
    """The name of the function the prompt asks for (the identifier before the signature's parameter list)."""
    return re.search(r"(\w+)\s*\(", problem.signature(exec_model)).group(1)


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


@functools.cache
def _aliases(library: str) -> dict[str, str]:
    """{exported name: the listed name (FORBIDDEN_CALLS, OUTSIDE_CALLS, SPAWN_CALLS) exported at the same address}
    for a library's other names of a listed function: glibc exports __mprotect beside mprotect, __open beside open,
    __fork beside fork. A call is judged by what it reaches, not by what it is called."""
    listed = FORBIDDEN_CALLS | OUTSIDE_CALLS | SPAWN_CALLS
    functions = [s for s in symbols(Path(library), dynamic=True)
                 if s.section != "UND" and s.kind in ("FUNC", "IFUNC") and s.value]  # fmt: skip
    by_address: dict[int, str] = {}
    for s in sorted(functions, key=lambda s: s.name):
        if s.name in listed:
            by_address.setdefault(s.value, s.name)
    return {s.name: by_address[s.value] for s in functions if s.value in by_address and s.name not in listed}


def library_aliases(exe: Path) -> dict[str, str]:
    """_aliases over every shared library the executable needs."""
    aliases: dict[str, str] = {}
    for soname in set(library_exports(exe).values()):
        path = _ldconfig_paths().get(soname)
        if path is not None:
            aliases.update(_aliases(path))
    return aliases


@dataclasses.dataclass(frozen=True)
class Code:
    """One function of an object as the disassembler reads it."""

    section: str
    branches: frozenset[str]  # functions of the object it calls or jumps to directly (no relocation needed)
    references: tuple[tuple[str, int], ...]  # relocations in its code: (symbol or section, the offset meant)
    system_calls: tuple[str, ...]  # instructions that enter the kernel (SYSTEM_CALL_INSTRUCTION)


# x86-64 instructions that enter the kernel: syscall, sysenter, int $0x80.
_SYSTEM_CALL_INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\s+(syscall|sysenter|int\s+\$0x80)\b")
_BRANCH = re.compile(r"^\s*[0-9a-f]+:\s+(?:call|jmp|j[a-z]+)\w*\s+[0-9a-f]+ <([^>+]+)(?:\+0x[0-9a-f]+)?>")
_RELOCATION = re.compile(r"^\s*[0-9a-f]+: (R_X86_64_\w+)\s+(\S+?)(?:([+-])0x([0-9a-f]+))?$")


def disassemble(obj: Path) -> dict[str, Code]:
    """{function: Code} of every function in the object's code sections (objdump -d -r, one process, about 10 ms
    for a 100 kB object). A PC-relative relocation's addend counts from the end of its 4-byte field: the offset
    it means is the addend + 4."""
    proc = subprocess.run(["objdump", "-d", "-r", "--no-show-raw-insn", str(obj)], capture_output=True, text=True,
                          errors="surrogateescape",
                          timeout=60)  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"objdump -d {obj} failed: {proc.stderr.strip()[:300]}")
    functions: dict[str, Code] = {}
    section, name, branches, references, system_calls = "", None, [], [], []
    # Whether the line before was a branch: before linking, a branch to another object's code jumps to address 0
    # (objdump names whatever function lies there) and the relocation on the next line names the real target.
    branch_before = False

    def close():
        if name is not None:
            functions[name] = Code(section, frozenset(branches) - {name}, tuple(references), tuple(system_calls))

    for line in proc.stdout.splitlines():
        after_branch, branch_before = branch_before, False
        if line.startswith("Disassembly of section "):
            close()
            section, name = line.removeprefix("Disassembly of section ").rstrip(":"), None
        elif header := re.match(r"^[0-9a-f]+ <(.+)>:$", line):
            close()
            name, branches, references, system_calls = header.group(1), [], [], []
        elif name is None:
            continue
        elif reloc := _RELOCATION.match(line):
            kind, target, sign, addend = reloc.groups()
            offset = (int(addend, 16) if addend else 0) * (-1 if sign == "-" else 1)
            references.append((target, offset + 4 if "PC" in kind or "PLT" in kind else offset))
            if after_branch:  # not the address objdump showed
                branches.pop()
        elif branch := _BRANCH.match(line):
            branches.append(branch.group(1))
            branch_before = True
        elif call := _SYSTEM_CALL_INSTRUCTION.match(line):
            system_calls.append(call.group(1))
    close()
    return functions


def constructor_reach(elf: ObjectFile, code: dict[str, Code]) -> tuple[set[str], set[str]]:
    """(the object's functions that its constructor/destructor sections can run, the names outside the object they
    refer to), followed through every direct call and jump, every function whose address is taken, and every data
    section referred to (a table of function pointers): all the code a load or an exit runs before or after main,
    whatever its functions are called. An entry or reference that names no function of the object reaches "?"."""
    index, table = elf.sections, elf.symbols
    by_name = {s.name: s for s in table}
    code_sections = {c.section for c in code.values()}

    def function_at(section: str, offset: int) -> str:
        hits = [s.name for s in table if s.kind == "FUNC" and index.get(s.section) == section
                and s.value <= offset < s.value + max(s.size, 1)]  # fmt: skip
        return hits[0] if hits else "?"

    functions: set[str] = set()
    outside: set[str] = set()
    seen_sections: set[str] = set()
    pending = [("section", name) for name in index.values() if name.startswith(CONSTRUCTOR_SECTIONS)]
    while pending:
        kind, item = pending.pop()
        if kind == "function":
            if item in functions:
                continue
            functions.add(item)
            if item in code:
                pending += [("function", f) for f in code[item].branches]
                pending += [("target", ref) for ref in code[item].references]
            elif item != "?":
                outside.add(item)
        elif kind == "section":
            if item in seen_sections:
                continue
            seen_sections.add(item)
            # A data section's relocations hold absolute addresses: the addend is the offset meant.
            pending += [("target", (target, addend)) for _, target, addend in elf.relocations.get(item, [])]
        else:
            target, offset = item
            symbol = by_name.get(target)
            if target in code_sections or (symbol is None and target in index.values()):
                pending.append(("function", function_at(target, offset)) if target in code_sections
                               else ("section", target))  # fmt: skip
            elif symbol is None or symbol.section == "UND":
                outside.add(target)
            elif symbol.kind == "FUNC":
                pending.append(("function", target))
            else:  # an object of the sample's: whatever its section's relocations point at is reachable
                pending.append(("section", index.get(symbol.section, "?")))
    return functions - outside, outside


@functools.cache
def prelude(exec_model: str) -> tuple[frozenset[str], frozenset[str]]:
    """(what the constructors of the headers' own static objects can reach outside the object, the names the headers alone define:
    their inline functions, vtables and data), read from a sample of `exec_model` with an empty body compiled as samples
    are: what the standard and the model's headers alone put into an object (<iostream>'s and Kokkos's static
    objects, MPI's C++ bindings). Compiled once per model and process, only when a sample's object needs it to be
    judged, in a temporary folder of its own (two build workers may ask at once), removed once read."""
    with tempfile.TemporaryDirectory(prefix="pcgbench-prelude-") as folder:
        src = Path(folder) / f"{exec_model.replace('+', '_')}{suite.sample_suffix(exec_model)}"
        obj = src.with_suffix(".o")
        src.write_text(f'#include "{suite.STANDARD_HEADER_FILE}"\n' + "".join(f"#include <{h}>\n"
                       for h in suite.EXEC_MODEL_INCLUDES[exec_model]) + "int pcgbench_prelude_probe() { return 0; }\n")  # fmt: skip
        argv = toolchains.compile_sample_argv(None, exec_model, src, obj)
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"the {exec_model} prelude does not compile: {' '.join(argv)}\n{proc.stderr[-2000:]}")
        elf = read_object(obj)
        _, outside = constructor_reach(elf, disassemble(obj))
    defined = frozenset(s.name for s in elf.symbols if s.section != "UND" and s.bind != "LOCAL")
    return frozenset(outside), defined


def _header_section(section: str, exec_model: str) -> bool:
    """Whether a section holds one of the headers' own definitions (`.text.<name>`, `.data.rel.ro.<name>`, ...
    for a name the prelude defines): a reference from there is the headers', not the sample's."""
    name = re.sub(r"^\.(?:text|data\.rel\.ro\.local|data\.rel\.ro|data|rodata|bss)\.", "", section)
    return name != section and name in prelude(exec_model)[1]


def _referrers(elf: ObjectFile, names: set[str]) -> dict[str, set[str]]:
    """{name: the sections whose relocations refer to it} for each of `names` the object refers to."""
    found: dict[str, set[str]] = {}
    for section, entries in elf.relocations.items():
        for _, target, _ in entries:
            if target in names:
                found.setdefault(target, set()).add(section)
    return found


def constructor_findings(elf: ObjectFile, code: dict[str, Code], exec_model: str, names: dict[str, str]) -> list[str]:
    """What the object's constructor/destructor sections can run beyond what the headers' own static objects do
    (and, for CUDA and HIP, their kernels' registration and launch stubs): names outside the object that the
    code they reach refers to."""
    reached, outside = constructor_reach(elf, code)
    extra = outside - prelude(exec_model)[0] - IOSTREAM_INIT - (GPU_REGISTRATION if exec_model in ("cuda", "hip") else set())
    if "?" in reached:
        extra.add("an address that names no function of the object")
    if not extra:
        return []
    sections = sorted(name for name in elf.sections.values() if name.startswith(CONSTRUCTOR_SECTIONS))
    shown = ", ".join(sorted(names.get(c, c) for c in extra)[:4])
    return [f"a global constructor/destructor ({', '.join(sections)}) that runs outside the timed call, reaching "
            f"{shown}"]


def system_call_instructions(code: dict[str, Code], exec_model: str) -> list[str]:
    """Where the object's own code holds an instruction that enters the kernel ("syscall in <function>"), outside
    the headers' inline functions (_header_section)."""
    return [f"{instruction} in {function}" for function, c in code.items() if not _header_section(c.section, exec_model)
            for instruction in dict.fromkeys(c.system_calls)]  # fmt: skip


def inspect_sample(problem: suite.Problem, exec_model: str, sample_obj: Path, driver_obj: Path,
                   exe: Path) -> Finding | None:  # fmt: skip
    """The first thing the sample's object defines or calls beyond its function (module docstring), or None."""
    elf = read_object(sample_obj)
    table = elf.symbols
    driver_defined = _defined_names(driver_obj, driver_obj.stat().st_mtime_ns)
    exports = library_exports(exe)
    names = demangle(sorted({s.name for s in table if s.bind != "LOCAL" or s.kind == "FUNC"}))
    wanted = function_name(problem, exec_model)
    tampering: list[str] = []
    spawning: list[str] = []
    code = disassemble(sample_obj)
    tampering += constructor_findings(elf, code, exec_model, names)
    tampering += [f"an instruction that enters the kernel itself ({where}), a system call no rule can see by name"
                  for where in system_call_instructions(code, exec_model)]  # fmt: skip
    # Forbidden calls count where the sample's own code makes them, not where the headers' inline functions do
    # (MPI's C++ bindings refer to MPI_Comm_spawn in every translation unit that includes mpi.h).
    # A library's other name of a listed call is that call (library_aliases: __mprotect is mprotect).
    aliases = library_aliases(exe)
    called = {s.name: aliases.get(s.name, s.name) for s in table if s.section == "UND"}
    suspicious = {s.name for s in table if s.section == "UND" and (
        called[s.name] in FORBIDDEN_CALLS or called[s.name] in OUTSIDE_CALLS or called[s.name] in SPAWN_CALLS
        or s.name.startswith(SPAWN_PREFIXES) or names.get(s.name, s.name).startswith(OUTSIDE_PREFIXES))}  # fmt: skip
    own = {name for name, sites in _referrers(elf, suspicious).items()
           if not all(_header_section(site, exec_model) for site in sites)}  # fmt: skip
    for s in table:
        pretty = names.get(s.name, s.name)
        if s.bind == "LOCAL" or s.kind in ("SECTION", "FILE"):
            continue
        if s.section == "UND":
            call = called[s.name]
            alias = f" ({call} under another name)" if call != s.name else ""
            if pretty.startswith(HARNESS_NAMESPACES):
                tampering.append(f"a call of the harness's {pretty}")
            elif call in FORBIDDEN_CALLS and s.name in own:
                tampering.append(f"a call of {pretty}{alias}, which changes the process from inside")
            elif (call in OUTSIDE_CALLS or pretty.startswith(OUTSIDE_PREFIXES)) and s.name in own:
                tampering.append(f"a reference to {pretty.split('(')[0]}{alias}, which reaches files (the process's "
                                 "own memory in /proc/self/mem) or the environment")
            elif s.name in own:
                spawning.append(f"a call of {pretty}{alias}: threads, processes or a thread count of the sample's "
                                "own (the run gives it its threads and ranks)")
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
        return Finding(verdicts.TAMPERING, "the sample object holds " + "; ".join(dict.fromkeys(tampering))[:600])
    if spawning:
        return Finding(verdicts.RESOURCE_OVERUSE, "the sample object holds " + "; ".join(dict.fromkeys(spawning))[:600])
    return None
