"""The students' environment: a Python of its own holding only what students receive.

The hub runs every student's server from it, never from the course's checkout, so no
student process imports or needs to read `grader/`, `authoring/`, `classroom/` or `source/`.
It is the handout (`python -m grader handout`: `course/`, `minigrad/`, the release notebooks)
installed beside the libraries a student's kernel and server use (copied, as hard links
where the file system allows, from the environment running this): a standalone Python
(interpreter and standard library copied too), owned by root and read-only to everyone else,
with the course's student settings in its own configuration (course/server_settings.py).
"""
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from course import server_settings
from course.exchange import SUBMIT
from course.names import DISTRIBUTION
from grader.handout import write_handout
from grader.sandbox.kernel import KERNEL_PACKAGES

VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"
RELEASE = server_settings.INSTALLED_COURSE / "release"  # where Validate finds the release


def python(env):
    return Path(env) / "bin" / VERSION


def environment(env):
    """Variables a process of the environment needs: its shared libpython is found here."""
    return {"LD_LIBRARY_PATH": str(Path(env) / "lib"), "PYTHONNOUSERSITE": "1"}


def copy_tree(source, target, leave_out=()):
    """Hard links when the file system allows (fast, no space), else a copy; the entries of
    `source` named in `leave_out` are not copied at all (cheaper than deleting them after)."""
    source, target = Path(source), Path(target)
    target.mkdir()
    entries = [str(entry) for entry in sorted(source.iterdir()) if entry.name not in leave_out]
    done = subprocess.run(["cp", "-al", *entries, str(target)], capture_output=True, check=False)
    if done.returncode:
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target, symlinks=True, ignore=lambda folder, names: [
            name for name in names if Path(folder) == source and name in leave_out])


def build(env):
    """Make the students' environment at `env` (a new folder); its python."""
    env = Path(env)
    if env.exists():
        raise FileExistsError(f"{env} exists")
    partial = Path(tempfile.mkdtemp(prefix=f".{env.name}-", dir=env.parent))
    base, here = Path(sys.base_prefix), Path(sys.prefix)
    (partial / "bin").mkdir()
    (partial / "lib").mkdir()
    shutil.copy2(Path(sys.base_prefix) / "bin" / VERSION, partial / "bin" / VERSION)
    for name in ("python3", "python"):
        (partial / "bin" / name).symlink_to(VERSION)
    for library in (base / "lib").glob("libpython*"):
        shutil.copy2(library, partial / "lib" / library.name, follow_symlinks=False)
    stdlib = partial / "lib" / VERSION
    # the base Python's own packages are not the course's
    copy_tree(base / "lib" / VERSION, stdlib, leave_out={"site-packages"})
    site = stdlib / "site-packages"
    copy_tree(Path(sysconfig.get_paths()["purelib"]), site)
    for path in site.glob(f"*{DISTRIBUTION}*"):  # this repository, installed editable: it points at the checkout
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    rewrite_scripts(here / "bin", partial / "bin", here / "bin", python(env))
    # Jupyter's data (JupyterLab's pages, the kernel spec) as links; its configuration (which
    # packages enable themselves with) copied, so that what is written below stays here
    copy_tree(here / "share", partial / "share")
    shutil.copytree(here / "etc", partial / "etc", symlinks=True)
    with tempfile.TemporaryDirectory() as folder:
        handout = Path(folder) / "handout"
        write_handout(handout)
        for name in KERNEL_PACKAGES:
            shutil.copytree(handout / name, site / name)
        shutil.copytree(handout / "release", partial / RELEASE)
    server_settings.write_sys_prefix(partial, exchange=True)
    # jupyter_core's one-time migration of old settings, marked done: it would try to write
    # this marker into the (read-only) configuration at every start
    (partial / "etc" / "jupyter" / "migrated").write_text("")
    for path in [partial, *partial.rglob("*")]:  # root's, readable, writable by nobody else
        if not path.is_symlink():
            mode = 0o755 if path.is_dir() or path.stat().st_mode & 0o100 else 0o644
            if path.stat().st_mode & 0o7777 != mode or path.stat().st_uid != 0:
                os.chown(path, 0, 0)
                path.chmod(mode)
    partial.rename(env)
    return python(env)


def rewrite_scripts(source, target, old_bin, new_python):
    """The environment's command-line scripts (jupyter, nbgrader...), each starting the
    environment's own python instead of the checkout's."""
    for script in source.iterdir():
        if script.name.startswith("python") or not script.is_file() or (target / script.name).exists():
            continue
        head = script.read_bytes()[:200]
        first = head.split(b"\n", 1)[0]
        if first.startswith(b"#!") and str(old_bin).encode() in first:
            text = script.read_bytes().split(b"\n", 1)
            (target / script.name).write_bytes(b"#!" + str(new_python).encode() + b"\n" + text[1])
            (target / script.name).chmod(0o755)


# a kernel of the class's spec, as a student's server starts it, imports the course
KERNEL_CHECK = """\
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name="python3", startup_timeout=120)
try:
    reply = kc.execute_interactive("import course.student, minigrad", timeout=120,
                                   output_hook=lambda message: None)
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
content = reply["content"]
if content["status"] != "ok":
    raise SystemExit(f"{content.get('ename')}: {content.get('evalue')}")
"""


def check(env, login=None):
    """What a student's server needs of the environment, tried as the hub's servers run it
    (as `login`, when given): `jupyterhub-singleuser`, a kernel of the class's spec importing
    the course, and `nbgrader`. [] when all run; else one line per failure."""
    import pwd

    from classroom.kernels import SPEC_FOLDER
    env, problems = Path(env), []
    with tempfile.TemporaryDirectory(prefix="student-env-check-") as home:
        user = {}
        if login is not None:
            account = pwd.getpwnam(login)
            os.chown(home, account.pw_uid, account.pw_gid)
            user = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
        variables = {**environment(env), "HOME": home, "LANG": "C.UTF-8", "JUPYTER_RUNTIME_DIR": home,
                     "JUPYTER_PATH": str(env / SPEC_FOLDER), "PATH": f"{env / 'bin'}:/usr/bin:/bin"}
        commands = {"jupyterhub-singleuser": [env / "bin" / "jupyterhub-singleuser", "--version"],
                    "a kernel": [python(env), "-c", KERNEL_CHECK],
                    "nbgrader": [env / "bin" / "nbgrader", "--version"]}
        running = {}
        for what, command in commands.items():  # side by side: a start waits for the slowest only
            if not Path(command[0]).is_file():
                problems.append(f"{what}: {command[0]} is missing")
                continue
            try:
                running[what] = subprocess.Popen(command, cwd=home, env=variables, stdout=subprocess.PIPE,
                                                 stderr=subprocess.PIPE, text=True, **user)
            except OSError as error:
                problems.append(f"{what}: {error}")
        for what, process in running.items():
            try:
                out, err = process.communicate(timeout=300)
            except subprocess.TimeoutExpired:
                process.kill()
                out, err = process.communicate()
                problems.append(f"{what}: no answer within 300 s")
                continue
            if process.returncode:
                last = (err.strip() or out.strip() or "no output").splitlines()[-1]
                problems.append(f"{what}: exited with status {process.returncode}: {last}")
    return problems


def write_nbgrader_config(env, exchange):
    """nbgrader's settings for every student (root's, in the environment): the class's
    exchange, the course of the student's language, which the hub gives each server as
    CLASSROOM_COURSE_ID, and a submit that leaves each submission private."""
    from grader.plugins.wiring import FromEnvironment, config_text
    path = Path(env) / "etc" / "jupyter" / "nbgrader_config.py"
    path.write_text(config_text({
        "Exchange.root": str(exchange), "CourseDirectory.course_id": FromEnvironment("CLASSROOM_COURSE_ID"),
        "ExchangeFactory.submit": SUBMIT},  # submissions private (course/exchange.py)
        about="The students' nbgrader settings (made by `python -m classroom start`)."), encoding="utf-8")
    path.chmod(0o644)
