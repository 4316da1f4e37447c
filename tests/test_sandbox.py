"""The sandbox's own promises, beyond what the hostile corpus shows."""
import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from support.course import Course, Grader, course_folder, graded_cells, verdict_text

from grader.plugins.execute import GradingExecute
from grader.sandbox.kernel import (
    SandboxedKernelManager,
    SandboxRefused,
    sandbox_available,
)

ASSIGNMENT = "theory03-en"


def test_kernel_environment_is_an_allowlist():
    manager = SandboxedKernelManager()
    manager.grading_seed = 7
    env = manager.kernel_environment({"COURSE_GRADING_SEED": "8", "JUPYTERHUB_API_TOKEN": "secret",
                                      "AWS_SECRET_ACCESS_KEY": "x", "PATH": "/home/me/bin"})
    assert env["COURSE_GRADING_SEED"] == "7"  # the grading's own seed, never one from outside
    assert "JUPYTERHUB_API_TOKEN" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert env["PATH"] == "/usr/local/bin:/usr/bin:/bin" and env["HOME"] == "/tmp"


def test_grading_refuses_any_folder_but_the_submissions(tmp_path, monkeypatch):
    step = GradingExecute()
    coursedir = SimpleNamespace(root=str(tmp_path), autograded_directory="autograded")
    monkeypatch.setattr("grader.plugins.execute._coursedir", lambda _: coursedir)
    inside = tmp_path / "autograded" / "ana" / ASSIGNMENT
    inside.mkdir(parents=True)
    assert step.submission_folder({"metadata": {"path": str(inside)}}) == str(inside.resolve())
    for path in (str(tmp_path), "", None, str(tmp_path / "source"), "/"):
        with pytest.raises(SandboxRefused):
            step.submission_folder({"metadata": {"path": path}})


@pytest.mark.skipif(os.geteuid() != 0 or not sandbox_available(),
                    reason="grading as root needs root and bubblewrap")
def test_grading_as_root_drops_the_kernel_to_nobody():
    """The ordinary-user path is what every other grading test runs; this is root's."""
    as_root = Grader.__new__(Grader)
    as_root.user, as_root.cgroup_parent, as_root.delegated = None, "", []
    as_root.home = __import__("pathlib").Path(course_folder())
    course = Course(course_folder(), as_root, generated=(ASSIGNMENT,))
    try:
        nb = course.solved(ASSIGNMENT)
        nb.cells.insert(4, __import__("nbformat").v4.new_code_cell("import os\nprint('kernel uid', os.getuid())"))
        course.submit("ana", ASSIGNMENT, nb)
        result = course.autograde(ASSIGNMENT)
        assert result.returncode == 0, result.stderr[-2000:]
        assert course.score(ASSIGNMENT, "ana") == 14
        graded = course.autograded(ASSIGNMENT, "ana")
        assert "kernel uid 65534" in "".join(o.get("text", "") for o in graded.cells[4].outputs)
        assert "as nobody" in graded.metadata["course"]["grading"]["defences"]
        assert all(verdict_text(c).startswith("✔") for c in graded_cells(graded).values())
    finally:
        for folder in (course.root, as_root.home):
            shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
def test_without_a_cgroup_memfd_and_shared_memory_are_refused(grader):
    """Without a cgroup nothing counts a memfd's pages (3 GiB were held that way as an
    ordinary user): the sandbox's seccomp filter refuses the call, and the submission
    still gets its score. Stock autograde, by the tests' grading user."""

    from support.corpus import CASES
    from support.hostile import printed

    from grader.sandbox import seccomp
    if not seccomp.covers():
        pytest.skip("the seccomp filter does not know this architecture")
    course = Course(course_folder(), grader, generated=(ASSIGNMENT,))
    try:
        course.submit("memfd_hold", ASSIGNMENT, CASES["memfd_hold"].make(course, {}))
        result = course.nbgrader("autograde", ASSIGNMENT, "--SandboxedKernelManager.use_cgroup=False",
                                 check=False)
        assert result.returncode == 0, result.stderr[-2000:]
        text = printed(course, ASSIGNMENT, "memfd_hold")
        defences = course.autograded(ASSIGNMENT, "memfd_hold").metadata["course"]["grading"]["defences"]
        print("defences:", defences, "| the case printed:", text.strip()[-200:])
        assert "memfd held" not in text and "Operation not permitted" in text, text[-1000:]
        assert "memfd and System V shared memory refused" in defences
        assert course.score(ASSIGNMENT, "memfd_hold") == 14
    finally:
        shutil.rmtree(course.root, ignore_errors=True)


def processes_of(uid):
    """Processes (zombies included: they still count against a process limit) of user `uid`."""
    found = []
    for entry in os.scandir("/proc"):
        try:
            status = Path(entry.path, "status").read_text() if entry.name.isdigit() else ""
        except OSError:
            continue
        if any(line.split()[1:2] == [str(uid)] for line in status.splitlines() if line.startswith("Uid:")):
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(os.geteuid() != 0 or not sandbox_available(),
                    reason="a kernel user of its own needs root and bubblewrap")
def test_a_kernel_killed_at_once_leaves_nothing_for_the_next_one(tmp_path):
    """Without a cgroup the process limit is counted per user. A fork bomb's kernel killed
    at once must leave no process of its user behind when its release returns, else the
    next kernel of that user (the next submission's, or a dead kernel's replacement)
    cannot start threads or fork."""
    import asyncio

    from grader.demo import FORK_BOMB
    from grader.sandbox.uids import in_use, slot_uids

    uid = slot_uids(1)[0]  # an id no grading run holds, as a run as root takes one
    assert not in_use(uid)
    tmp_path.chmod(0o755)

    def run(code):
        return asyncio.run(in_a_kernel(tmp_path, code, use_cgroup=False, uid=uid, process_limit=64))

    print(run(FORK_BOMB).strip())
    left = processes_of(uid)
    print("processes of the kernel's user left after the release:", len(left))
    assert left == []
    text = run("import os\nfor _ in range(8):\n    if os.fork() == 0:\n        os._exit(0)\n"
               "    os.wait()\nprint('forked 8')")
    assert "forked 8" in text, text
    assert processes_of(uid) == []


async def in_a_kernel(folder, code, mypy_cache=False, extra_arguments=(), **traits):
    """What `code` prints in a sandboxed kernel working on `folder`."""
    manager = SandboxedKernelManager(**traits)
    manager.submission_folder, manager.mypy_cache = str(folder), mypy_cache
    await manager.start_kernel(cwd=str(folder), extra_arguments=list(extra_arguments))
    client = manager.client()
    client.start_channels()
    printed = []
    try:
        await client.wait_for_ready(timeout=60)
        manager.seal_private()
        await client.execute_interactive(code, timeout=120, output_hook=lambda msg: printed.append(
            msg["content"].get("text", "") or str(msg["content"].get("evalue", ""))))
    finally:
        client.stop_channels()
        await manager.shutdown_kernel(now=True)
        manager.release_sandbox()
    return "".join(printed)


CACHES_SEEN = """
import glob, os, sys
fonts = glob.glob('/tmp/fontlist-*.json')
before = [os.stat(path).st_mtime_ns for path in fonts]
import matplotlib.font_manager
print('font lists', len(fonts), 'rebuilt' if [os.stat(p).st_mtime_ns for p in fonts] != before else 'read')
start = os.environ.get('COURSE_MYPY_CACHE', '')
try:
    open(os.path.join(start, 'planted'), 'w').close()
    print('planted a file in the caches')
except OSError as error:
    print('caches not writable:', type(error).__name__)
from course import strict
print('own cache entries', len(os.listdir(strict.cache_folder())), 'mypy says', strict.check('', strict.cache_folder()))
"""


@pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
def test_kernels_start_from_caches_built_once_and_cannot_change_them(tmp_path):
    """matplotlib's font list and mypy's cache are built once per grading process
    (grader/sandbox/kernel_caches.py): each kernel reads them, read-only, and works on copies."""
    import asyncio

    from grader.sandbox import kernel_caches

    tmp_path.chmod(0o755)

    def run(code):
        return asyncio.run(in_a_kernel(tmp_path, code, mypy_cache=True))

    text = run(CACHES_SEEN)
    print(text)
    folder = kernel_caches.ready(mypy=True)
    assert folder is not None and folder.name.startswith(f"{kernel_caches.PREFIX}{os.getpid()}-")
    assert "font lists 1 read" in text  # matplotlib took the list it was given
    assert "caches not writable: OSError" in text and not (folder / "mypy" / "planted").exists()
    own = [int(n) for n in text.split("own cache entries ")[1].split()[:1]]
    assert own and own[0] > 0 and "mypy says []" in text
    again = run("import os\nprint(sorted(os.listdir('/tmp')))")
    assert "planted" not in again and "fontlist" in again, again  # a new kernel: fresh copies


def test_processes_a_grader_starts_read_its_kernel_caches():
    """The preflight's own process (and any the grader starts) reads the grader's caches rather
    than building its own; a folder not made by this user's grader is not taken."""
    import subprocess
    import sys

    from grader.sandbox import kernel_caches
    folder = kernel_caches.ready()
    assert folder is not None and os.environ[kernel_caches.CACHES_VARIABLE] == str(folder)
    ask = [sys.executable, "-c", "from grader.sandbox import kernel_caches; print(kernel_caches.ready())"]
    assert subprocess.run(ask, capture_output=True, text=True, check=True).stdout.strip() == str(folder)
    other = subprocess.run(ask, capture_output=True, text=True, check=True,
                           env={**os.environ, kernel_caches.CACHES_VARIABLE: "/tmp"}).stdout.strip()
    print("given /tmp, a process made", other)
    assert other not in ("/tmp", str(folder)) and Path(other).name.startswith(kernel_caches.PREFIX)


CONFINEMENT = """
import json, os, sys
status = dict(line.split(':', 1) for line in open('/proc/self/status').read().splitlines())
print(json.dumps({
    'warm': 'torch' in sys.modules,
    'status': {key: status[key].strip() for key in ('Uid', 'Gid', 'CapInh', 'CapPrm', 'CapEff', 'CapAmb',
                                                    'NoNewPrivs', 'Seccomp')},
    'descriptors': sorted(os.readlink('/proc/self/fd/' + fd).split(':')[0] for fd in os.listdir('/proc/self/fd')[3:]
                          if os.path.lexists('/proc/self/fd/' + fd) and 'journal' not in os.readlink('/proc/self/fd/' + fd)),
    'cwd': os.getcwd(), 'files': sorted(os.listdir('.')),
    'processes': len([p for p in os.listdir('/proc') if p.isdigit()]),
    'tmp': sorted('course-kernel-*' if p.startswith('course-kernel-') else p for p in os.listdir('/tmp')),
    'env': sorted(os.environ),
    'arguments': sys.argv[3:],
}))
"""


@pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
@pytest.mark.parametrize("cgroup", [True, False])
def test_a_warm_kernel_is_confined_as_a_cold_one(tmp_path, cgroup):
    """A kernel forked from the zygote (grader/sandbox/warm_start.py) into bubblewrap's sandbox has
    the cold kernel's user, capabilities (none), no_new_privs, seccomp filter, environment,
    arguments, working copy and descriptors (by kind: none of the zygote's), and sees no more processes
    than its placeholder besides."""
    import asyncio
    import json

    tmp_path.chmod(0o755)
    (tmp_path / "answer.txt").write_text("mine")
    nbclient_gives = ["--HistoryManager.hist_file=:memory:"]  # what nbclient adds to every kernel's
    seen = {warm: json.loads(asyncio.run(in_a_kernel(tmp_path, CONFINEMENT, warm_start=warm, use_cgroup=cgroup,
                                                     extra_arguments=nbclient_gives)).strip().splitlines()[-1])
            for warm in (True, False)}
    print(json.dumps(seen, indent=1))
    assert seen[True].pop("warm") and not seen[False].pop("warm")  # torch was there already, or not
    assert seen[True]["status"] == seen[False]["status"]
    assert seen[True]["arguments"] == seen[False]["arguments"] and nbclient_gives[0] in seen[True]["arguments"]
    assert seen[True]["status"]["CapEff"] == "0000000000000000" and seen[True]["status"]["NoNewPrivs"] == "1"
    assert seen[True]["processes"] == seen[False]["processes"] + 1  # the placeholder
    del seen[True]["processes"], seen[False]["processes"]
    # past stdin, stdout and stderr, the warm kernel holds what the cold one does, and the
    # pipe its placeholder reads (no socket or file of the zygote's)
    alive = [d for d in seen[True]["descriptors"] if d.endswith("/alive (deleted)")]
    assert len(alive) == 1
    seen[True]["descriptors"].remove(alive[0])
    assert seen[True] == seen[False]
    assert seen[True]["files"] == ["answer.txt"]


@pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
def test_a_warm_kernel_that_dies_ends_its_sandbox_at_once(tmp_path):
    """As a cold kernel's: its death ends the sandbox even when a child it forked lives on,
    so grading reads a dead kernel at once, not a cell's timeout later."""
    import asyncio
    import time

    tmp_path.chmod(0o755)

    async def dies():
        manager = SandboxedKernelManager()
        manager.submission_folder = str(tmp_path)
        await manager.start_kernel(cwd=str(tmp_path))
        client = manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
            manager.seal_private()
            client.execute("import os, time\nif os.fork() == 0:\n    time.sleep(120)\nos._exit(1)")
            started = time.monotonic()
            while await manager.is_alive() and time.monotonic() - started < 30:
                await asyncio.sleep(0.1)
            return await manager.is_alive(), time.monotonic() - started
        finally:
            client.stop_channels()
            await manager.shutdown_kernel(now=True)
            manager.release_sandbox()

    alive, seconds = asyncio.run(dies())
    print(f"the sandbox ended {seconds:.1f} s after the kernel's death")
    assert not alive and seconds < 10


PLANT = """
import sys
print('warm' if 'torch' in sys.modules else 'cold')
import builtins, random, numpy, torch
print('planted' if hasattr(builtins, 'planted') or torch.tensor is None else 'clean')
builtins.planted, torch.tensor = True, None  # what a student's code could change
open('/tmp/planted', 'w').close()
print(random.random(), numpy.random.random())
"""


@pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
def test_a_warm_kernel_carries_nothing_from_the_one_before(tmp_path):
    """Each warm kernel is a fresh fork of the zygote: what the kernel before it changed in
    its modules or its /tmp is not there, and its random numbers are drawn anew."""
    import asyncio

    tmp_path.chmod(0o755)
    seen = [asyncio.run(in_a_kernel(tmp_path, PLANT)).split() for _ in range(2)]
    print(seen)
    for warm, clean, *_ in seen:
        assert (warm, clean) == ("warm", "clean")
    assert seen[0][2:] != seen[1][2:]  # random, then numpy


def running(pid):
    """Whether process `pid` runs (a zombie has ended: only its parent has not read its end)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")
def test_a_failed_warm_start_starts_the_kernel_cold(tmp_path, monkeypatch):
    """When the zygote is gone, the kernel asked of it starts cold instead, and works: no
    submission gets a verdict for it."""
    import asyncio
    import signal

    from grader.sandbox import warm_start
    monkeypatch.setattr(warm_start, "_started", [])  # a zygote of this test's own
    monkeypatch.delenv(warm_start.ZYGOTE_VARIABLE, raising=False)
    tmp_path.chmod(0o755)
    code = "import sys\nprint('warm' if 'torch' in sys.modules else 'cold', 6 * 7)"
    assert asyncio.run(in_a_kernel(tmp_path, code)).split() == ["warm", "42"]
    pid = warm_start.zygote_pid(warm_start._started[0])
    os.kill(pid, signal.SIGKILL)
    print("killed the zygote", pid)
    assert asyncio.run(in_a_kernel(tmp_path, code)).split() == ["cold", "42"]
    assert warm_start._started == [None]  # and this process's next kernels start cold


ZYGOTE_FROM_A_THREAD = """
import threading, time
from grader.sandbox.kernel import SandboxedKernelManager
thread = threading.Thread(target=lambda: print(SandboxedKernelManager().start_zygote(), flush=True))
thread.start()
thread.join()
time.sleep(600)
"""


def test_the_zygote_lives_as_long_as_the_process_that_started_it():
    """Started from a thread that ends (a Dask worker's task), it lives on; when the
    process ends, even killed, so does the zygote."""
    import signal
    import subprocess
    import sys
    import time

    from grader.sandbox.warm_start import ZYGOTE_VARIABLE, zygote_pid
    alone = {name: value for name, value in os.environ.items() if name != ZYGOTE_VARIABLE}  # not this one's
    process = subprocess.Popen([sys.executable, "-c", ZYGOTE_FROM_A_THREAD], stdout=subprocess.PIPE, text=True,
                               env=alone)
    try:
        path = process.stdout.readline().strip()
        pid = zygote_pid(path)
        time.sleep(2)  # the thread has ended
        assert pid is not None and running(pid), (path, pid)
        process.send_signal(signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 10
        while running(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        print(f"the zygote {pid} ended {10 - (deadline - time.monotonic()):.1f} s after its grader")
        assert not running(pid)
    finally:
        process.kill()
        shutil.rmtree(Path(path).parent, ignore_errors=True)
