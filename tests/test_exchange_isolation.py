"""Students sharing an nbgrader exchange cannot touch each other's submissions: real
system users (made and removed here), stock `nbgrader release_assignment`, `fetch_assignment`,
`submit` and `collect` with the class's configuration (classroom/course.py), as in nbgrader's
own demos of a shared exchange root.

Bob, one student, attacks Carol, a classmate: he forges a submission in her name dated 2099,
plants a symbolic link as a submission, hard-links a course file into his own, and tries
to read, overwrite, rename and delete her real submission. Collection refuses each forgery
by name (in `nbgrader collect`'s output and in the course's report), and Carol's real work
is what is graded. Then Bob rewrites and backdates his own submission after handing it in,
and Carol's is frozen as the class's hub freezes it. Each attack prints what it found."""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nbformat
import pytest
from nbgrader.utils import parse_utc
from support.course import cell_index

from classroom import accounts, course, student_env
from classroom.roster import Person

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="makes system users: run as root"),
]
PREFIX = f"s28b{os.getpid() % 100000}"  # unique to this run; lower case, short
ASSIGNMENT = "theory03-en"
COURSE_ID = course.course_id("en")
GRADIENTS_CELL = cell_index(ASSIGNMENT, "theory03-gradients-answer")
CAROL_ANSWER = ("# carol's own work\ndef gradients(a, b, c):\n    e = a * b + c\n    f = a - c\n"
                "    return f * b + e, f * a, f - e\n")
BOB_ANSWER = "# bob's forgery\ndef gradients(a, b, c):\n    return 0, 0, 0\n"
FORGED = f"{{carol}}+{ASSIGNMENT}+2099-01-01 00:00:00.000000 UTC+forged"


def run_as(login, folder, *command, check=True, env=None):
    done = subprocess.run([str(c) for c in command], cwd=folder, capture_output=True, text=True,
                          timeout=600, check=False, **course.as_user(login, env))
    assert not check or done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done


def try_as(login, code):
    """What `code` (Python, run as `login`) printed: its outcome, or the error it met."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          check=False, **course.as_user(login))
    return (done.stdout.strip() or done.stderr.strip().splitlines()[-1]) if done.stdout or done.stderr else ""


@pytest.fixture(scope="module")
def term():
    """An instructor, Carol and Bob (system users), the class's exchange and course folder,
    theory03-en released, fetched by both with the students' nbgrader settings the classroom
    writes (into the students' environment, as the hub gives them); removed at the end."""
    people = {role: f"{PREFIX}{role[0]}" for role in ("teacher", "carol", "bob")}
    shared = Path(tempfile.mkdtemp(prefix=f"{PREFIX}-exchange-"))
    shared.chmod(0o755)
    try:
        homes = {role: accounts.create(login) for role, login in people.items()}
        exchange = course.make_exchange(shared / "exchange")
        folder = course.set_up(people["teacher"], homes["teacher"], exchange)
        course.release(people["teacher"], folder, [ASSIGNMENT])
        settings = shared / "student-env"  # only its configuration: the rest is not used here
        (settings / "etc" / "jupyter").mkdir(parents=True)
        student_env.write_nbgrader_config(settings, exchange)
        students = {"JUPYTER_CONFIG_DIR": str(settings / "etc" / "jupyter"), "CLASSROOM_COURSE_ID": COURSE_ID}
        for role in ("carol", "bob"):
            person = Person(id=role, name=role, language="en", role="student", login=people[role])
            accounts.write_settings(person, homes[role], exchange, COURSE_ID)
            run_as(people[role], homes[role], "nbgrader", "fetch_assignment", ASSIGNMENT, env=students)
        yield {"people": people, "homes": homes, "exchange": exchange, "course": folder,
               "inbound": exchange / COURSE_ID / "inbound", "students": students}
    finally:
        for login in people.values():
            accounts.remove(login)
        shutil.rmtree(shared, ignore_errors=True)
        for login in people.values():
            assert not accounts.exists(login)


def answer(home, login, source):
    path = home / ASSIGNMENT / "theory03.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[GRADIENTS_CELL].source = source
    accounts.write_as(login, path, nbformat.writes(nb))


def test_a_student_cannot_replace_read_or_remove_a_classmates_submission(term):
    people, homes, inbound, folder = term["people"], term["homes"], term["inbound"], term["course"]
    carol, bob, teacher = people["carol"], people["bob"], people["teacher"]
    observed, problems = {}, []

    def expect(holds, what):
        if not holds:
            problems.append(what)

    print("inbound's mode:", oct(inbound.stat().st_mode & 0o7777))

    answer(homes["carol"], carol, CAROL_ANSWER)
    answer(homes["bob"], bob, BOB_ANSWER)
    for role in ("carol", "bob"):
        run_as(people[role], homes[role], "nbgrader", "submit", ASSIGNMENT, env=term["students"])
    real = {p.name.split("+")[0]: p for p in inbound.iterdir()}
    mine = real[carol]
    print("Carol's submission folder:", oct(mine.stat().st_mode & 0o7777))
    modes = inbound.stat().st_mode, mine.stat().st_mode

    # Bob, told the name of Carol's folder, tries every way of touching it
    observed["list inbound"] = try_as(bob, f"import os; print(os.listdir({str(inbound)!r}))")
    observed["read hers"] = try_as(bob, f"print(len(open({str(mine / 'theory03.ipynb')!r}).read()))")
    observed["write into hers"] = try_as(bob, f"open({str(mine / 'extra.py')!r}, 'w').write('x'); print('WROTE')")
    observed["overwrite hers"] = try_as(bob, f"open({str(mine / 'theory03.ipynb')!r}, 'w'); print('WROTE')")
    observed["delete a file of hers"] = try_as(bob, f"import os; os.remove({str(mine / 'timestamp.txt')!r}); "
                                                    "print('DELETED')")
    observed["rename hers"] = try_as(bob, f"import os; os.rename({str(mine)!r}, {str(mine) + '.old'!r}); "
                                          "print('RENAMED')")
    observed["delete hers"] = try_as(bob, f"import shutil; shutil.rmtree({str(mine)!r}); print('DELETED')")
    # the forgery of the issue, a link posing as a submission, and a hard link to a course file
    forged = inbound / FORGED.format(carol=carol)
    observed["forge hers"] = try_as(bob, (
        f"import os, shutil; os.mkdir({str(forged)!r}); "
        f"shutil.copy({str(homes['bob'] / ASSIGNMENT / 'theory03.ipynb')!r}, {str(forged)!r}); print('FORGED')"))
    future = inbound / f"{bob}+{ASSIGNMENT}+2099-01-01 00:00:00.000000 UTC+own"
    observed["date his own in 2099"] = try_as(bob, (
        f"import os, shutil; os.mkdir({str(future)!r}); "
        f"shutil.copy({str(homes['bob'] / ASSIGNMENT / 'theory03.ipynb')!r}, {str(future)!r}); print('MADE')"))
    link = inbound / f"{bob}+{ASSIGNMENT}+2030-01-01 00:00:00.000000 UTC+link"
    solutions = folder / "source" / ASSIGNMENT
    observed["link to the solutions"] = try_as(bob, f"import os; os.symlink({str(solutions)!r}, {str(link)!r}); "
                                                    "print('LINKED')")
    bobs = real[bob]
    observed["hard link as bob"] = try_as(bob, f"import os; os.link({str(solutions / 'theory03.ipynb')!r}, "
                                               f"{str(homes['bob'] / 'solutions.ipynb')!r}); print('LINKED')")
    # where hard links to others' files are allowed (fs.protected_hardlinks=0), Bob could do
    # this; the test does it as root
    os.link(solutions / "theory03.ipynb", bobs / "solutions.ipynb")
    for what, outcome in observed.items():
        print(f"Bob: {what}: {outcome}")
    expect(modes[0] & 0o1000, "inbound is not sticky")
    expect(not modes[1] & 0o007, "a submission folder is open to every account")
    for what in ("list inbound", "read hers", "write into hers", "overwrite hers", "delete a file of hers",
                 "rename hers", "delete hers", "hard link as bob"):
        expect("Error" in observed[what], (what, observed[what]))
    expect(mine.is_dir() and not (mine / "extra.py").exists(), "Carol's submission was changed")

    collected = run_as(teacher, folder, "nbgrader", "collect", ASSIGNMENT, f"--course={COURSE_ID}")
    log = collected.stdout + collected.stderr
    print("nbgrader collect:\n" + log)
    submitted = folder / "submitted"
    carols = (submitted / carol / ASSIGNMENT / "theory03.ipynb").read_text()
    bobs_taken = sorted(p.name for p in (submitted / bob / ASSIGNMENT).iterdir())
    print("submitted/carol holds Carol's own work:", "carol's own work" in carols,
          "| Bob's forgery:", "bob's forgery" in carols)
    print("submitted/bob holds:", bobs_taken)
    for words in (f"REFUSED {FORGED.format(carol=carol)!r}", f"made by {bob}", f"REFUSED {future.name!r}",
                  "dated in the future", f"REFUSED {link.name!r}", "a symbolic link",
                  "refused 'solutions.ipynb'", "a hard link"):
        expect(words in log, ("collect's output lacks", words))
    expect("carol's own work" in carols and "bob's forgery" not in carols, "Carol's work not collected")
    expect("theory03.ipynb" in bobs_taken and "solutions.ipynb" not in bobs_taken, ("Bob's", bobs_taken))
    expect("### BEGIN SOLUTION" not in (submitted / bob / ASSIGNMENT / "theory03.ipynb").read_text(),
           "the solutions were collected as Bob's")

    # the course's report names each refusal; grading gives Carol her own 3 points
    graded = run_as(teacher, folder, sys.executable, "-m", "grader", "grade", ASSIGNMENT)
    print(graded.stdout[-1500:], graded.stderr[-1500:])
    report = (folder / "reports" / f"{ASSIGNMENT}.html").read_text()
    printed = run_as(teacher, folder, sys.executable, "-m", "grader", "report", ASSIGNMENT).stdout
    print("python -m grader report:\n" + "\n".join(line for line in printed.splitlines() if "REFUSED" in line))
    for name in (FORGED.format(carol=carol), future.name, link.name):
        expect(name in report, ("the report does not name", name))
        expect(f"REFUSED at collection: {name!r}" in printed, ("`grader report` does not name", name))
    print("the report names each refused folder:", not [p for p in problems if "report" in p[0]])
    with open(folder / "reports" / f"{ASSIGNMENT}.csv", encoding="utf-8") as stream:
        rows = {row["student"]: row for row in csv.DictReader(stream)}
    print("report: Carol", rows[carol]["score"], "Bob", rows[bob]["score"])
    expect(float(rows[carol]["score"]) == 3.0 and float(rows[bob]["score"]) == 0.0, "wrong scores")
    assert not problems, problems


def test_a_submission_changed_after_it_was_handed_in_is_dated_by_the_change_or_frozen(term):
    """Bob hands in, then rewrites his submitted notebook and its timestamp.txt and renames
    the folder to 2026-01-01, as the issue's backdating did. Collection, on an exchange
    without the hub's hand-in service, takes it as it is, dated by the machine's time of its
    last change and marked CHANGED: no time Bob wrote reaches timestamp.txt (what autograde
    puts in the gradebook). With the service's freeze (classroom/hand_in.py, as the class's
    hub runs it), Carol's submission is root's: she can change nothing of it any more, and
    collection dates it by its hand-in record."""
    people, homes, inbound, folder = term["people"], term["homes"], term["inbound"], term["course"]
    bob, carol, teacher = people["bob"], people["carol"], people["teacher"]
    answer(homes["bob"], bob, "# bob's answer at hand-in\n" + BOB_ANSWER)
    started = datetime.now(UTC).replace(tzinfo=None)
    said = run_as(bob, homes["bob"], "nbgrader", "submit", ASSIGNMENT, env=term["students"])
    handed = Path(re.search(r"Destination: (.+)", said.stdout + said.stderr).group(1).strip())
    backdated = inbound / f"{bob}+{ASSIGNMENT}+2026-01-01 00:00:00.000000 UTC+{handed.name.rsplit('+', 1)[1]}"
    attack = try_as(bob, (
        f"import json, os\nfolder = {str(handed)!r}\n"
        "nb = json.load(open(os.path.join(folder, 'theory03.ipynb')))\n"
        "nb['cells'][0]['source'] = '# rewritten after hand-in'\n"
        "json.dump(nb, open(os.path.join(folder, 'theory03.ipynb'), 'w'))\n"
        "open(os.path.join(folder, 'timestamp.txt'), 'w').write('2026-01-01 00:00:00.000000 UTC')\n"
        f"os.rename(folder, {str(backdated)!r})\nprint('REWRITTEN')"))
    print("Bob, after handing in:", attack)
    collected = run_as(teacher, folder, "nbgrader", "collect", "--update", ASSIGNMENT, f"--course={COURSE_ID}")
    log = collected.stdout + collected.stderr
    print("nbgrader collect --update:\n" + log)
    taken = folder / "submitted" / bob / ASSIGNMENT
    stamp = (taken / "timestamp.txt").read_text()
    print("submitted/bob's timestamp.txt:", stamp)
    assert attack == "REWRITTEN"  # no hub: the exchange alone cannot stop him
    assert "2026-01-01" not in stamp and parse_utc(stamp) >= started - timedelta(seconds=2), stamp
    assert f"CHANGED {backdated.name!r}" in log and "changed after it was handed in" in log
    assert "# rewritten after hand-in" in (taken / "theory03.ipynb").read_text()  # as it is, dated so

    # the class's hub freezes each submission as it is handed in
    from classroom import hand_in
    from grader.plugins.exchange import handed_in_record
    answer(homes["carol"], carol, "# carol's answer at hand-in\n" + CAROL_ANSWER)
    said = run_as(carol, homes["carol"], "nbgrader", "submit", ASSIGNMENT, env=term["students"])
    hers = Path(re.search(r"Destination: (.+)", said.stdout + said.stderr).group(1).strip())
    hand_in.look(inbound, "en", {}, time.time() + hand_in.QUIET)
    record = handed_in_record(hers)
    print("Carol's hand-in record:", record and {k: record[k] for k in ("student", "handed_in")})
    tries = {what: try_as(carol, code) for what, code in {
        "rewrite the notebook": f"open({str(hers / 'theory03.ipynb')!r}, 'w').write('{{}}'); print('DONE')",
        "rewrite timestamp.txt": f"open({str(hers / 'timestamp.txt')!r}, 'w').write('2026-01-01'); print('DONE')",
        "add a file": f"open({str(hers / 'late.py')!r}, 'w').write('x'); print('DONE')",
        "rename it": f"import os; os.rename({str(hers)!r}, {str(hers) + 'x'!r}); print('DONE')"}.items()}
    print("Carol, after her submission was frozen:", tries)
    assert all("PermissionError" in outcome for outcome in tries.values()), tries
    run_as(teacher, folder, "nbgrader", "collect", "--update", ASSIGNMENT, f"--course={COURSE_ID}")
    carols = folder / "submitted" / carol / ASSIGNMENT
    assert (carols / "timestamp.txt").read_text() == record["handed_in"] and record["student"] == carol
    assert "# carol's answer at hand-in" in (carols / "theory03.ipynb").read_text()
    assert not (carols / ".handed-in.json").exists()
