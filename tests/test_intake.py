"""Where submissions come in (grader/plugins/intake.py), run as instructors run it, without a
kernel: stock `nbgrader collect` from a JupyterHub exchange whose inbound folder holds
links, a FIFO, a sparse file and unsafe student ids; the course's cohort command and stock
`nbgrader autograde` refusing unsafe ids before anything is written; the Dask task's
archive."""
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest
from nbgrader.api import Gradebook
from support.course import Course, course_folder

from grader.plugins.intake import vet
from grader.plugins.worker import pack

ASSIGNMENT = "theory03-en"
UNSAFE = ["<img src=x onerror=alert(7)>", "forged\nhonest  12 of 12"]


def hostile_folder(folder, secret):
    """A submission's folder: a notebook and notes, beside a link to `secret`, a link to
    /dev/zero, a FIFO, a 3 GiB sparse file, and a folder holding another link."""
    folder.mkdir(parents=True)
    (folder / "theory03.ipynb").write_text("{}")
    (folder / "notes.txt").write_text("mine")
    (folder / "key.ipynb").symlink_to(secret)
    (folder / "zeros").symlink_to("/dev/zero")
    os.mkfifo(folder / "fifo")
    with open(folder / "sparse.bin", "wb") as stream:
        stream.truncate(3 * 1024 ** 3)
    (folder / "data").mkdir()
    (folder / "data" / "shadow").symlink_to("/etc/shadow")
    return folder


def test_vet_takes_only_regular_files_within_the_cap(tmp_path):
    accepted, refused = vet(hostile_folder(tmp_path / "sub", tmp_path / "secret"))
    assert accepted == ["notes.txt", "theory03.ipynb"]
    assert dict(refused) == {"key.ipynb": "refused_link", "zeros": "refused_link", "fifo": "refused_fifo",
                             "sparse.bin": "refused_too_big", "data/shadow": "refused_link"}


def test_the_dask_archive_holds_only_regular_files(tmp_path):
    folder = hostile_folder(tmp_path / "sub", tmp_path / "secret")
    with tarfile.open(fileobj=io.BytesIO(pack(folder))) as tar:
        assert sorted((m.name, m.isfile()) for m in tar.getmembers()) == [
            ("notes.txt", True), ("theory03.ipynb", True)]


@pytest.fixture(scope="module")
def course(grader):
    copy = Course(course_folder(), grader, generated=(ASSIGNMENT,))
    yield copy
    shutil.rmtree(copy.root, ignore_errors=True)


def test_nbgrader_collect_takes_in_only_regular_files_of_safe_ids(course, grader):
    exchange = Path(tempfile.mkdtemp(prefix="course-exchange-"))
    try:
        exchange.chmod(0o755)
        inbound = exchange / "autograd-by-hand" / "inbound"
        stamp = "2026-01-01 10:00:00.000000 UTC"
        secret = course.root / "source" / ASSIGNMENT / "theory03.ipynb"
        hostile_folder(inbound / f"alice+{ASSIGNMENT}+{stamp}", secret)
        for student in UNSAFE:
            (inbound / f"{student}+{ASSIGNMENT}+{stamp}").mkdir(parents=True)
            (inbound / f"{student}+{ASSIGNMENT}+{stamp}" / "theory03.ipynb").write_text("{}")
        grader.own(exchange)
        # the folders are the grader's, not the students' they name: owners are not the point here
        # (tests/test_exchange_isolation.py), so nbgrader's own switch turns that check off
        result = course.nbgrader("collect", ASSIGNMENT, f"--Exchange.root={exchange}",
                                 "--CollectApp.check_owner=False", check=False)
        assert result.returncode == 0, result.stderr[-2000:]
        taken = course.root / "submitted"
        assert sorted(p.name for p in taken.iterdir()) == ["alice"], result.stderr[-2000:]
        files = sorted(p.relative_to(taken).as_posix() for p in taken.rglob("*") if not p.is_dir())
        assert files == [f"alice/{ASSIGNMENT}/notes.txt", f"alice/{ASSIGNMENT}/theory03.ipynb",
                         f"alice/{ASSIGNMENT}/timestamp.txt"] or \
            files == [f"alice/{ASSIGNMENT}/notes.txt", f"alice/{ASSIGNMENT}/theory03.ipynb"], files
        assert not any(p.is_symlink() for p in taken.rglob("*"))
        for words in ("refused 'key.ipynb'", "refused 'sparse.bin'", "refused 'fifo'", "refused a submission"):
            assert words in result.stderr, result.stderr[-3000:]
    finally:
        shutil.rmtree(exchange, ignore_errors=True)
        shutil.rmtree(course.root / "submitted", ignore_errors=True)


def test_unsafe_ids_are_refused_before_anything_is_written(course, grader):
    """The cohort command names each and grades nothing of them; stock autograde stops
    before creating the student (formgrader would render the id)."""
    try:
        for student in UNSAFE:
            course.submit(student, ASSIGNMENT, course.release(ASSIGNMENT))
        result = subprocess.run([sys.executable, "-m", "grader", "grade", ASSIGNMENT, "--workers=1",
                                 "--no-progress", *grader.arguments()], cwd=course.root,
                                capture_output=True, text=True, check=False, **grader.options())
        assert result.returncode == 1, result.stderr[-2000:]
        lines = [line for line in result.stderr.splitlines() if line.startswith("NOT GRADED")]
        assert len(lines) == 2 and all("refused" in line for line in lines), result.stderr[-2000:]
        assert not any(line.startswith("honest  12 of 12") for line in result.stderr.splitlines())
        stock = course.nbgrader("autograde", ASSIGNMENT, check=False)
        assert stock.returncode != 0 and "plain id" in stock.stderr + stock.stdout
        with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}") as gb:
            assert [s.id for s in gb.students] == []
        assert not (course.root / "autograded").exists() or not any((course.root / "autograded").iterdir())
    finally:
        shutil.rmtree(course.root / "submitted", ignore_errors=True)


def test_nbgrader_zip_collect_takes_in_only_ordinary_files_of_safe_ids(course):
    """An LMS export: a notebook, a link to the answer key, archives (one fine, one with a
    link in it, one declaring a member over the cap) and an unsafe id, through stock
    `nbgrader zip_collect`."""
    import zipfile
    download = course.root / "downloaded" / ASSIGNMENT / "archive"
    download.mkdir(parents=True)
    notebook = (course.root / "release" / ASSIGNMENT / "theory03.ipynb").read_text()
    (download / "alice_theory03.ipynb").write_text(notebook)
    (download / "bob_theory03.ipynb").symlink_to(course.root / "source" / ASSIGNMENT / "theory03.ipynb")
    (download / f"{UNSAFE[0]}_theory03.ipynb").write_text(notebook)
    with zipfile.ZipFile(download / "carol.zip", "w") as archive:
        archive.writestr("carol_theory03.ipynb", notebook)
    with tarfile.open(download / "dave.tar.gz", "w:gz") as archive:
        data = notebook.encode()
        member = tarfile.TarInfo("dave_theory03.ipynb")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
        link = tarfile.TarInfo("dave_key.ipynb")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/shadow"
        archive.addfile(link)
    with zipfile.ZipFile(download / "eve.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("eve_theory03.ipynb", b"\0" * (101 * 1024 ** 2))
    course.grader.own(course.root / "downloaded")
    try:
        result = course.nbgrader("zip_collect", ASSIGNMENT,
                                 r"--FileNameCollectorPlugin.named_regexp=.*/(?P<student_id>[^/_]+)_(?P<file_id>[^/]+)",
                                 check=False)
        assert result.returncode == 0, result.stderr[-3000:]
        taken = course.root / "submitted"
        assert sorted(p.name for p in taken.iterdir()) == ["alice", "carol"], result.stderr[-3000:]
        assert not any(p.is_symlink() for p in taken.rglob("*"))
        for words in ("refused '" + str(download / "bob_theory03.ipynb"), "dave.tar.gz", "eve.zip",
                      "student id '<img"):
            assert words in result.stderr, (words, result.stderr[-3000:])
    finally:
        shutil.rmtree(course.root / "downloaded", ignore_errors=True)
        shutil.rmtree(course.root / "submitted", ignore_errors=True)


def test_archive_kind_names_each_format_by_its_first_bytes(tmp_path):
    import zipfile

    from grader.plugins.archives import archive_kind
    with zipfile.ZipFile(tmp_path / "a.zip", "w") as archive:
        archive.writestr("theory03.ipynb", "{}")
    for mode, name in (("w", "a.tar"), ("w:gz", "a.tgz"), ("w:bz2", "a.tbz"), ("w:xz", "a.txz")):
        with tarfile.open(tmp_path / name, mode) as archive:
            archive.add(tmp_path / "a.zip", "inner.zip")
    found = {name: archive_kind((tmp_path / name).read_bytes()[:262])
             for name in ("a.zip", "a.tar", "a.tgz", "a.tbz", "a.txz")}
    assert found == {"a.zip": "zip", "a.tar": "tar", "a.tgz": "gzip", "a.tbz": "bzip2", "a.txz": "xz"}
    assert archive_kind(b'{"cells": []}') is None and archive_kind(b"") is None


def nested_archive(path):
    """A student's upload that is itself an archive, hostile inside: a notebook, a member
    leading out of the folder, a link to /etc/shadow and a 1 GiB member of zeros (a zip
    bomb: a few MiB compressed). None of it may ever be extracted."""
    import zipfile
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("theory03-en.ipynb", "{}")
        archive.writestr("../../escaped-from-the-archive.txt", "out")
        link = zipfile.ZipInfo("shadow-link")
        link.external_attr = (0o120777 << 16)
        archive.writestr(link, "/etc/shadow")
        with archive.open("bomb.bin", "w", force_zip64=True) as member:
            for _ in range(64):
                member.write(b"\0" * (16 << 20))
    return path


def test_archives_inside_an_lms_export_are_not_opened(course, tmp_path):
    """A Moodle export (the documented `nbgrader zip_collect` with the course's config)
    where one student uploaded a zip instead of the notebook, one a notebook and a zip
    beside it, one (named as Canvas names) a zip, and, in an export the instructor unzipped
    into the archive folder, one a .tar.gz: no student archive is opened; the notebook is collected; each archive-only
    student gets the archive itself as their notebook (graded 0 with the reason: the
    hostile corpus's `archive_notebook`), and the instructor is told."""
    import zipfile
    download = course.root / "downloaded" / ASSIGNMENT / "archive"
    download.mkdir(parents=True)
    notebook = (course.root / "release" / ASSIGNMENT / "theory03.ipynb").read_text()
    bomb = nested_archive(tmp_path / "work.zip")
    with zipfile.ZipFile(download / "moodle-export.zip", "w") as export:
        export.writestr("Ana Pérez_101_assignsubmission_file_/theory03-en.ipynb", notebook)
        export.write(bomb, "Ana Pérez_101_assignsubmission_file_/extra.zip")
        export.write(bomb, "Bea Ruiz_102_assignsubmission_file_/work.zip")
        export.write(bomb, "ruizdan_104_555_work.zip")  # Canvas's flat name
    unzipped = download / "unzipped-export" / "Cy Gil_103_assignsubmission_file_"
    unzipped.mkdir(parents=True)
    with tarfile.open(unzipped / "work.tar.gz", "w:gz") as archive:
        archive.add(bomb, "inner/work.zip")
    course.grader.own(course.root / "downloaded")
    try:
        result = course.nbgrader("zip_collect", ASSIGNMENT, check=False)
        assert result.returncode == 0, result.stderr[-3000:]
        taken = course.root / "submitted"
        assert sorted(p.name for p in taken.iterdir()) == ["101", "102", "103", "104"], result.stderr[-3000:]
        assert (taken / "101" / ASSIGNMENT / "theory03.ipynb").read_text() == notebook
        assert (taken / "102" / ASSIGNMENT / "theory03.ipynb").read_bytes() == bomb.read_bytes()
        assert (taken / "104" / ASSIGNMENT / "theory03.ipynb").read_bytes() == bomb.read_bytes()
        assert (taken / "103" / ASSIGNMENT / "theory03.ipynb").read_bytes() == \
            (unzipped / "work.tar.gz").read_bytes()
        for student in ("101", "102", "103", "104"):
            assert [p.name for p in (taken / student / ASSIGNMENT).iterdir()] == ["theory03.ipynb"]
        # nothing of any student's archive came out, anywhere in the course
        for name in ("escaped-from-the-archive.txt", "shadow-link", "bomb.bin", "inner"):
            assert not list(course.root.rglob(name)) and not list(course.root.parent.glob(name)), name
        log = " ".join(result.stderr.split())
        assert "Student 102 uploaded an archive, not the notebook theory03.ipynb" in log, log[-3000:]
        assert "Student 103 uploaded an archive" in log, log[-3000:]
        assert "Skipped (an archive: archives are not opened; student 101's notebook is collected)" in log
    finally:
        shutil.rmtree(course.root / "downloaded", ignore_errors=True)
        shutil.rmtree(course.root / "submitted", ignore_errors=True)
