"""Grades back to the LMS by themselves, through LTI Assignment and Grade Services (AGS 2.0).

    python -m grader export --lti [--lti-config FILE] [--uncapped] [--out FOLDER]

After grading (and hand grading), each student's grade of each unit goes to the LMS's gradebook
of the course the instructor launched from: one line item per unit (made the first time, found
again later by its resourceId, the unit's name), one score per student. The grade is the
export's (grader/reports/export.py: the later language's submission, the late penalty, capped
at the maximum). A submission with hand-graded points still to give goes as gradingProgress
PendingManual, which the LMS keeps as not final; the rest as FullyGraded. A submission handed
in but not graded is not posted (named, as in the export).

Where to, from the LTI_AGS environment variable the hub gives the instructor's server
(deploy/helm-values.yaml), or the same JSON in --lti-config FILE:
  endpoint   the launch's AGS claim (its `lineitems` URL and `scope`s)
  token_url  the LMS's OAuth 2 token URL
  client_id  the tool's client id in the LMS
  key_file   the tool's private key (PEM), whose public half the LMS was given; key_id its id
The LMS gives an access token for a JWT signed with that key (OAuth 2 client credentials, as the
IMS Security Framework says). A student is their nbgrader id, on the cluster their LMS user id.

Each request is tried 3 times (a connection error, 429 or 5xx waits and tries again; an expired
token is asked for again once). Each student's outcome is printed and written to
exports/lti.csv; the exit status is 1 when any score could not be posted.
"""
import csv
import json
import os
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import jwt
import requests

from grader.plugins.inert import for_spreadsheet, for_terminal

SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
TAG = "autograd-by-hand"
PAUSES = (0.5, 1.0)  # seconds before the second and the third try
TIMEOUT = 30


class ServiceError(Exception):
    pass


def settings(config_file=None):
    """The grade service's settings: --lti-config's file, else the LTI_AGS environment variable."""
    text = Path(config_file).read_text(encoding="utf-8") if config_file else os.environ.get("LTI_AGS")
    if not text:
        raise SystemExit("no LTI grade service: the instructor's server on the cluster has LTI_AGS "
                         "(deploy/helm-values.yaml); elsewhere give --lti-config FILE")
    found = json.loads(text)
    missing = [k for k in ("token_url", "client_id", "key_file") if not found.get(k)]
    if not (found.get("endpoint") or {}).get("lineitems"):
        missing.append("endpoint.lineitems (the launch had no AGS claim: enable the LMS's grade service)")
    if missing:
        raise SystemExit(f"the LTI grade service's settings lack: {', '.join(missing)}")
    return found


class GradeService:
    """An LMS's AGS endpoint, with the access token it gives the tool."""

    def __init__(self, config):
        self.config, self.session, self.token = config, requests.Session(), None

    def access_token(self):
        now = int(time.time())
        assertion = jwt.encode(
            {"iss": self.config["client_id"], "sub": self.config["client_id"], "aud": self.config["token_url"],
             "iat": now, "exp": now + 300, "jti": uuid.uuid4().hex},
            Path(self.config["key_file"]).read_bytes(), algorithm="RS256",
            headers={"kid": self.config["key_id"]} if self.config.get("key_id") else None)
        answer = self.request("POST", self.config["token_url"], authorized=False, data={
            "grant_type": "client_credentials",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": assertion, "scope": f"{SCOPE}lineitem {SCOPE}score"})
        return answer.json()["access_token"]

    def request(self, method, url, authorized=True, **kwargs):
        """The LMS's answer to a request, tried again on what may pass (see the module's doc)."""
        renewed, last = False, None
        asked = kwargs.pop("headers", {})
        for attempt in range(len(PAUSES) + 1):
            if attempt:
                time.sleep(PAUSES[attempt - 1])
            headers = dict(asked)
            if authorized:
                self.token = self.token or self.access_token()
                headers["Authorization"] = f"Bearer {self.token}"
            try:
                answer = self.session.request(method, url, headers=headers, timeout=TIMEOUT, **kwargs)
            except requests.RequestException as error:
                last = f"{type(error).__name__}: {error}"
                continue
            if answer.status_code == 401 and authorized and not renewed:
                self.token, renewed = None, True
                continue
            if answer.status_code == 429 or answer.status_code >= 500:
                last = f"HTTP {answer.status_code}"
                continue
            if answer.status_code >= 400:
                raise ServiceError(f"HTTP {answer.status_code}: {answer.text[:200]}")
            return answer
        raise ServiceError(f"{last} after {len(PAUSES) + 1} tries")

    def lineitem(self, unit, maximum):
        """The URL of the unit's line item, made if the LMS has none yet."""
        url = self.config["endpoint"]["lineitems"]
        params = {"resource_id": unit}
        while url:
            answer = self.request("GET", url, params=params, headers={"Accept": LINEITEMS_TYPE})
            for item in answer.json():
                if item.get("resourceId") == unit:
                    return item["id"]
            url, params = answer.links.get("next", {}).get("url"), None
        made = self.request("POST", self.config["endpoint"]["lineitems"], headers={"Content-Type": LINEITEM_TYPE},
                            data=json.dumps({"label": unit, "scoreMaximum": maximum, "resourceId": unit, "tag": TAG}))
        return made.json()["id"]

    def post_score(self, lineitem, score):
        scores = lineitem.split("?")[0].rstrip("/") + "/scores"
        self.request("POST", scores, headers={"Content-Type": SCORE_TYPE}, data=json.dumps(score))


def score_of(student, grade, pending):
    """The AGS score of `student`'s UnitGrade: final only when nothing is left to grade by hand."""
    score = {"userId": student, "scoreGiven": round(grade.grade, 4), "scoreMaximum": grade.maximum,
             "activityProgress": "Completed",
             "gradingProgress": "PendingManual" if pending else "FullyGraded",
             "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds")}
    if pending:
        score["comment"] = f"{pending:g} point(s) still to be graded by hand"
    return score


def post_grades(root, unit_grades, config_file=None, options=(), out=None):
    """Post every student's grades, `unit_grades` as grader/reports/export.py's function of that
    name gives them; the exit status (1: some could not be posted)."""
    service = GradeService(settings(config_file))
    maxima, grades, _people, problems = unit_grades
    rows, failed = [], 0
    lineitems = {}
    for unit, maximum in maxima.items():
        try:
            lineitems[unit] = service.lineitem(unit, maximum)
        except ServiceError as error:
            print(for_terminal(f"FAILED {unit}: its line item: {error}"), file=sys.stderr)
    for student in sorted(grades):
        for unit, grade in sorted(grades[student].items()):
            pending = grade.pending  # hand-graded points still to give (grader/reports/report.py's `pending`)
            score = score_of(student, grade, pending)
            outcome = f"{grade.grade:g}/{grade.maximum:g} {score['gradingProgress']}"
            try:
                if unit not in lineitems:
                    raise ServiceError("no line item")
                service.post_score(lineitems[unit], score)
                line = f"posted {student} {unit}: {outcome}" + (f" ({score['comment']})" if pending else "")
            except ServiceError as error:
                failed += 1
                outcome = f"FAILED: {error}"
                line = f"FAILED {student} {unit} ({grade.grade:g}/{grade.maximum:g}): {error}"
            print(for_terminal(line), file=sys.stderr if line.startswith("FAILED") else sys.stdout)
            rows.append([student, unit, grade.assignment, f"{grade.grade:g}", f"{grade.maximum:g}",
                         score["gradingProgress"], outcome])
    for student, unit, why in problems:
        print(for_terminal(f"NOT POSTED {student} ({unit}): {why}"), file=sys.stderr)
        rows.append([student, unit, "", "", "", "", f"not posted: {why}"])
    folder = Path(out or Path(root) / "exports")
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "lti.csv", "w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(["student", "unit", "assignment", "grade", "maximum", "grading_progress", "outcome"])
        writer.writerows([[for_spreadsheet(v) for v in row] for row in rows])
    posted = len([r for r in rows if not r[-1].startswith(("FAILED", "not posted"))])
    print(f"posted {posted} grades to {service.config['endpoint']['lineitems']}; {failed} failed; "
          f"{len(problems)} not posted; each in {folder / 'lti.csv'}")
    return 1 if failed else 0
