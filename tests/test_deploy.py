"""deploy/: the Zero to JupyterHub values and the LMS launch they configure.

- the values pass the pinned chart's own values schema (deploy/z2jh/), and the versions agree;
- the exchange volume's set-up gives the modes the one-machine classroom gives, and its courses
  to the instructors before any student arrives;
- the pinned chart's own jupyterhub_config.py, in its JupyterHub (5.5.0) with its KubeSpawner
  (7.0.0) and the course's values, makes the pod of a student, an instructor and each LMS role
  (deploy/podspec.py): volumes, mounts, uid and gid, environment, image, resources; it refuses
  launches from elsewhere, in the launch's language;
- a real hub of that JupyterHub runs the chart's config against a test LMS
  (tests/support/lti_platform.py), KubeSpawner's pods run as local processes
  (tests/support/pod_stand_in.py): launches land each person in their course, language and role;
  a tampered launch, another course's and one from an LMS whose clock is far ahead are refused.
The chart's packages come from .venv-chart (.ci/run makes it), else the package index; the images
themselves are built and a class played in their containers by deploy/play-class.
"""
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from shutil import which

import jsonschema
import pytest
import requests
import yaml
from support.lti_platform import (
    ADMINISTRATOR,
    CONTENT_DEVELOPER,
    INSTRUCTOR,
    LEARNER,
    LTI,
    MENTOR,
    TEACHING_ASSISTANT,
    Platform,
    form_of,
    launch_claims,
)
from support.servers import extension_states, free_port

from course.exchange import SUBMIT

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
CHART = yaml.safe_load((DEPLOY / "z2jh" / "chart.yaml").read_text())


def course_values():
    return yaml.safe_load((DEPLOY / "helm-values.yaml").read_text())


def load_podspec():
    """deploy/podspec.py, whose layout of the chart's files the hub here uses too."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("podspec", DEPLOY / "podspec.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def schema_errors(values):
    defaults = yaml.safe_load((DEPLOY / "z2jh" / "values.yaml").read_text())
    schema = json.loads((DEPLOY / "z2jh" / "values.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(load_podspec().coalesce(defaults, values))]


def test_values_pass_the_charts_schema():
    assert schema_errors(course_values()) == []


def test_the_schema_check_catches_a_misplaced_setting():
    # a typo the chart would reject at `helm upgrade`, caught here first
    values = course_values()
    values["singleuser"]["memroy"] = values["singleuser"].pop("memory")
    values["hub"]["config"]["ltiAuthenticator"] = {}
    errors = schema_errors(values)
    print(errors)
    assert any("memroy" in e for e in errors)


def pins(text):
    return dict(re.findall(r"([A-Za-z0-9_.\[\]-]+)==([^\s\\]+)", text))


def test_versions_agree():
    """The student image's JupyterHub is the chart's (hub and single-user servers must agree);
    requirements.txt's ltiauthenticator is the one the chart's hub runs, whose requirements
    (vendored) pin what chart.yaml says; the guides install the chart version the values are
    checked against."""
    for image in ("Dockerfile", "instructor.Dockerfile"):
        assert pins((DEPLOY / image).read_text())["jupyterhub"] == CHART["jupyterhub"], image
    hub = pins((DEPLOY / "z2jh" / "hub" / "requirements.txt").read_text())
    for package in ("jupyterhub", "jupyterhub-kubespawner", "jupyterhub-ltiauthenticator"):
        assert hub[package] == CHART[package], package
    assert pins((ROOT / "requirements.txt").read_text())["jupyterhub-ltiauthenticator"] \
        == CHART["jupyterhub-ltiauthenticator"]
    for guide in ("docs/en/deploy.md", "docs/es/deploy.md", "deploy/helm-values.yaml"):
        versions = set(re.findall(r"--version (\S+)", (ROOT / guide).read_text()))
        assert versions == {CHART["version"]}, guide


@pytest.mark.skipif(os.geteuid() != 0, reason="the job gives folders the instructors' uid: run as root")
def test_exchange_volume_is_shared_and_gets_the_classrooms_modes(tmp_path):
    """The job's own command, on a folder here: the exchange as the one-machine classroom makes
    it, and each language's course folder there before anyone launches, the instructors' (no
    student can make it first and keep the release out: deploy/play-class tries)."""
    from classroom.course import make_exchange
    documents = list(yaml.safe_load_all((DEPLOY / "exchange.yaml").read_text()))
    claims = {d["metadata"]["name"]: d for d in documents if d["kind"] == "PersistentVolumeClaim"}
    assert claims["nbgrader-exchange"]["spec"]["accessModes"] == ["ReadWriteMany"]
    volumes = {v["name"]: v["persistentVolumeClaim"]["claimName"]
               for v in course_values()["singleuser"]["storage"]["extraVolumes"]}
    assert set(volumes.values()) <= set(claims)
    job = next(d for d in documents if d["kind"] == "Job")
    container = job["spec"]["template"]["spec"]["containers"][0]
    mount = container["volumeMounts"][0]["mountPath"]
    # the job's own command, run on a folder here in place of the volume
    here = tmp_path / "volume"
    here.mkdir()
    script = container["command"][-1].replace(mount, str(here))
    subprocess.run(["sh", "-c", script], check=True)
    reference = make_exchange(tmp_path / "classroom")
    assert oct(here.stat().st_mode & 0o7777) == oct(reference.stat().st_mode & 0o7777) == "0o1777"
    instructor = course_values()["custom"]["uids"]["instructor"]
    for language in ("en", "es"):
        course = here / f"autograd-by-hand-{language}"
        print(course.name, oct(course.stat().st_mode & 0o7777), course.stat().st_uid, course.stat().st_gid)
        assert (course.stat().st_uid, course.stat().st_gid, oct(course.stat().st_mode & 0o7777)) \
            == (instructor, instructor, "0o755")


# --- the chart's own code: the pods it makes for each launch ----------------------------------

CHART_ENV = ROOT / ".venv-chart"  # .ci/run makes it: deploy/z2jh/hub/packages.txt
HUB_PACKAGES = DEPLOY / "z2jh" / "hub"
VALUES_LTI = course_values()["hub"]["config"]["LTI13Authenticator"]
STUDENT_UID_BASE = course_values()["custom"]["uids"]["studentBase"]
INSTRUCTOR_UID = course_values()["custom"]["uids"]["instructor"]


def person(user_id, role, language="en", course="2"):
    return {"user_id": user_id, "email": f"p{user_id}@example.org", "roles": [role],
            "custom": {"language": language}, "course": course}


@pytest.fixture(scope="module")
def chart_python(tmp_path_factory):
    """A Python with the chart hub's packages at its versions: .venv-chart (made by .ci/run, or
    by the guide's command), else one made here from the package index (skipped without it)."""
    if (CHART_ENV / "bin" / "python").exists():
        return CHART_ENV / "bin" / "python"
    folder = tmp_path_factory.mktemp("chart-env")
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    done = subprocess.run([str(folder / "bin" / "pip"), "install", "-q", "-r", str(HUB_PACKAGES / "packages.txt"),
                           "-c", str(HUB_PACKAGES / "requirements.txt")], capture_output=True, text=True,
                          timeout=900, check=False)
    if done.returncode:
        pytest.skip("the chart hub's packages could not be installed (no package index here?): "
                    + done.stderr.strip()[-300:])
    return folder / "bin" / "python"


# who the LMS launches: each LTI role the guide names, and launches that must be refused
LAUNCHES = {
    "ana": person(7, LEARNER, "es"), "ben": person(8, LEARNER, "en"),
    "ines": person(3, INSTRUCTOR, "es"), "tom": person(4, TEACHING_ASSISTANT, "en"),
    "mentor": person(5, MENTOR), "designer": person(6, CONTENT_DEVELOPER),
    "administrator": person(12, ADMINISTRATOR),
    "teacher of another course": person(20, INSTRUCTOR, "es", course="99"),
}
REFUSED_CLAIMS = {  # changed claims of a launch of Ana's
    "another deployment": {LTI + "deployment_id": "2"},
    "an opaque user id": {"sub": "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"},
}


@pytest.fixture(scope="module")
def pods(chart_python, tmp_path_factory):
    """{label: {name, pod} or {refused}} and the hub's settings, from deploy/podspec.py."""
    folder = tmp_path_factory.mktemp("pods")
    issuer, client_id = VALUES_LTI["issuer"], VALUES_LTI["client_id"][0]
    deployment = course_values()["custom"]["lti"]["deploymentIds"][0]
    launches = [{"label": label, "id_token": launch_claims(issuer, client_id, who, deployment, lineitems=
                                                           "https://lms.example.org/lineitems")}
                for label, who in LAUNCHES.items()]
    for label, changes in REFUSED_CLAIMS.items():
        launches.append({"label": label, "id_token": {**launches[0]["id_token"], **changes}})
    (folder / "launches.json").write_text(json.dumps(launches))
    started = time.monotonic()
    done = subprocess.run([str(chart_python), str(DEPLOY / "podspec.py"), str(folder / "launches.json")],
                          capture_output=True, text=True, timeout=300, check=False)
    print(f"deploy/podspec.py: {time.monotonic() - started:.1f} s")
    assert done.returncode == 0, done.stderr[-4000:]
    found = json.loads(done.stdout)
    return found["hub"], {result["label"]: result for result in found["launches"]}


def container(pod):
    return pod["spec"]["containers"][0]


def security(pod):
    return {**pod["spec"].get("securityContext", {}), **container(pod).get("securityContext", {})}


def environment(pod):
    return {variable["name"]: variable.get("value") for variable in container(pod)["env"]}


def mounts(pod):
    """{mount path: (volume, its source)} of the pod's container."""
    volumes = {volume["name"]: volume for volume in pod["spec"]["volumes"]}
    found = {}
    for mount in container(pod)["volumeMounts"]:
        volume = volumes[mount["name"]]
        source = (volume.get("persistentVolumeClaim", {}).get("claimName")
                  or volume.get("secret", {}).get("secretName"))
        found[mount["mountPath"]] = (mount["name"], source)
    return found


@pytest.mark.slow
def test_the_chart_makes_each_students_pod_apart(pods):
    """The chart's jupyterhub_config.py and KubeSpawner 7, with the course's values, for students
    (Learner, and the roles that are not the instructor's): the students' image, a uid and a
    group of their own made from their LMS user id, the exchange and their home, nothing of the
    instructor's, and the measured limits."""
    _hub, found = pods
    values = course_values()["singleuser"]
    for label in ("ana", "ben", "mentor", "designer", "administrator"):
        pod, user_id = found[label]["pod"], LAUNCHES[label]["user_id"]
        print(label, security(pod), container(pod)["resources"], mounts(pod))
        assert found[label]["name"] == str(user_id)  # the LMS's id: no database numbers it
        uid = STUDENT_UID_BASE + user_id
        assert (security(pod)["runAsUser"], security(pod)["runAsGroup"], security(pod)["fsGroup"]) == (uid, uid, uid)
        assert security(pod)["allowPrivilegeEscalation"] is False
        assert container(pod)["image"] == f"{values['image']['name']}:{values['image']['tag']}"
        assert mounts(pod) == {
            "/srv/nbgrader/exchange": ("exchange", "nbgrader-exchange"),
            "/etc/jupyter/nbgrader_config.py": ("files", "singleuser"),
            "/home/jovyan": (mounts(pod)["/home/jovyan"][0], f"claim-{mounts(pod)['/home/jovyan'][0][len('volume-'):]}"),
        }
        env = environment(pod)
        assert env["JUPYTERHUB_USER"] == str(user_id) and "NBGRADER_ROLE" not in env and "LTI_AGS" not in env
        assert "autograd-by-hand/role" not in pod["metadata"]["labels"]  # no way to the grading cluster
        limits, requests_ = container(pod)["resources"]["limits"], container(pod)["resources"]["requests"]
        # KubeSpawner reads M and G as 2**20 and 2**30 (JupyterHub's byte sizes)
        assert (limits["memory"], requests_["memory"]) == (1536 * 2**20, 512 * 2**20)
    assert environment(found["ana"]["pod"])["NBGRADER_COURSE"] == "autograd-by-hand-es"
    assert environment(found["ana"]["pod"])["COURSE_LOCALE"] == "es_ES"
    assert environment(found["ben"]["pod"])["NBGRADER_COURSE"] == "autograd-by-hand-en"
    uids = [security(found[label]["pod"])["runAsUser"] for label in ("ana", "ben", "mentor", "designer")]
    assert len(set(uids)) == len(uids)


@pytest.mark.slow
def test_the_chart_gives_instructors_the_instructors_pod(pods):
    """Instructor and TeachingAssistant: the instructor's image, the course staff's uid and group,
    the course folder and the tool's key, what grade export needs, the label of the grading
    cluster's network policy."""
    _hub, found = pods
    hook = lms_hook_constants()
    for label, language in (("ines", "es"), ("tom", "en")):
        pod = found[label]["pod"]
        print(label, security(pod), mounts(pod))
        assert (security(pod)["runAsUser"], security(pod)["runAsGroup"], security(pod)["fsGroup"]) \
            == (INSTRUCTOR_UID,) * 3
        assert container(pod)["image"] == hook["INSTRUCTOR_IMAGE"]
        assert mounts(pod)["/srv/nbgrader/course"] == ("course", "nbgrader-course")
        assert mounts(pod)["/etc/lti-tool"] == ("lti-tool-key", "lti-tool-key")
        assert mounts(pod)["/srv/nbgrader/exchange"] == ("exchange", "nbgrader-exchange")
        env = environment(pod)
        assert env["NBGRADER_ROLE"] == "instructor" and env["NBGRADER_COURSE"] == f"autograd-by-hand-{language}"
        assert int(env["COURSE_STUDENT_UID_BASE"]) == STUDENT_UID_BASE
        grades = json.loads(env["LTI_AGS"])  # KubeSpawner's templates left the JSON whole
        assert grades["endpoint"]["lineitems"] == "https://lms.example.org/lineitems"
        assert grades["token_url"] == course_values()["custom"]["lti"]["tokenUrl"]
        assert grades["client_id"] == VALUES_LTI["client_id"][0] and grades["key_file"] == "/etc/lti-tool/private.pem"
        assert container(pod)["resources"]["limits"]["memory"] == 4 * 2**30
        assert pod["metadata"]["labels"]["autograd-by-hand/role"] == "instructor"


@pytest.mark.slow
def test_the_chart_refuses_launches_from_elsewhere_in_the_launchs_language(pods):
    _hub, found = pods
    for label in ("teacher of another course", *REFUSED_CLAIMS):
        print(label, "->", found[label].get("refused"))
        assert "pod" not in found[label]
    assert "otro curso" in found["teacher of another course"]["refused"]  # a Spanish launch
    assert "despliegue" in found["another deployment"]["refused"]
    assert "número de usuario" in found["an opaque user id"]["refused"]


@pytest.mark.slow
def test_each_pods_nbgrader_settings(pods):
    """The nbgrader configuration the values mount in every pod, run in each pod's environment:
    the exchange, the course of the person's language, the course's private submit; for the
    instructor the course folder and the students' uids for collection's owner check."""
    _hub, found = pods
    source = course_values()["singleuser"]["extraFiles"]["nbgrader-config"]["stringData"]
    student = run_config(source, environment(found["ana"]["pod"]))
    assert student.Exchange.root == "/srv/nbgrader/exchange"
    assert student.CourseDirectory.course_id == "autograd-by-hand-es"
    assert student.ExchangeFactory.submit == SUBMIT
    assert "root" not in student.CourseDirectory and "CheckedCollect" not in student
    instructor = run_config(source, environment(found["ines"]["pod"]))
    assert instructor.CourseDirectory.root == "/srv/nbgrader/course"
    assert instructor.CheckedCollect.student_uid_base == STUDENT_UID_BASE


@pytest.mark.slow
def test_the_hub_sizes_are_the_guides(pods):
    """The spawn limit the chart really sets, the hub's and the proxy's resources, the students'
    limits: the figures docs/*/scaling.md gives."""
    hub, _found = pods
    values = course_values()
    print(hub)
    assert hub["concurrent_spawn_limit"] == values["hub"]["concurrentSpawnLimit"] == 64
    assert hub["time_leeway"] == values["hub"]["config"]["LTI13LaunchValidator"]["time_leeway"]
    for language in ("en", "es"):
        guide = (ROOT / "docs" / language / "scaling.md").read_text()
        assert "concurrentSpawnLimit" in guide and "64" in guide and "100)" not in guide, language
        for figure in ("1536M", values["hub"]["resources"]["limits"]["memory"],
                       values["proxy"]["chp"]["resources"]["limits"]["memory"]):
            assert figure in guide, (language, figure)


# --- the LMS launch, in a real JupyterHub: the chart's, with the chart's config ------------

SERVER = '''
import json, os
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlparse
json.dump(dict(os.environ), open(os.path.join(os.environ["HOME"], "environment.json"), "w"))
class Answer(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"server of " + os.environ["JUPYTERHUB_USER"].encode())
    def log_message(self, *args):
        pass
HTTPServer(("127.0.0.1", urlparse(os.environ["JUPYTERHUB_SERVICE_URL"]).port), Answer).serve_forever()
'''

# the chart's jupyterhub_config.py, then what this machine has instead of a cluster
HUB_CONFIG = '''
import sys
c = get_config()  # noqa: F821
load_subconfig({chart_config!r})  # noqa: F821
sys.path.insert(0, {support!r})
c.JupyterHub.spawner_class = "pod_stand_in.PodStandIn"
c.PodStandIn.homes = {homes!r}
c.PodStandIn.server_script = {server!r}
c.LTI13Authenticator.issuer = {lms!r}
c.LTI13Authenticator.authorize_url = {lms!r} + "/auth"
c.LTI13Authenticator.jwks_endpoint = {lms!r} + "/jwks"
c.ConfigurableHTTPProxy.should_start = True
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.JupyterHub.hub_connect_url = "http://127.0.0.1:{hub_port}"
c.JupyterHub.pid_file = "{folder}/jupyterhub.pid"
c.JupyterHub.cleanup_servers = True
# the test's service instead of the idle culler (the chart's hub image runs it)
c.JupyterHub.services = [{{"name": "deploy-test", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": "deploy-test", "services": ["deploy-test"],
                            "scopes": ["admin:users", "admin:servers", "admin:auth_state"]}}]
'''


class Hub:
    def __init__(self, url, token, homes, lms):
        self.url, self.token, self.homes, self.lms = url, token, homes, lms

    def api(self, method, path, **kwargs):
        return requests.request(method, f"{self.url}/hub/api{path}", timeout=30,
                                headers={"Authorization": f"token {self.token}"}, **kwargs)

    def launch(self, who, tamper=None):
        """`who`'s launch from the LMS, through a browser's steps; the callback's response."""
        browser = requests.Session()
        fields = self.lms.initiation(f"{self.url}/hub", who)
        to_lms = browser.post(f"{self.url}/hub/lti13/oauth_login", data=fields, allow_redirects=False, timeout=30)
        assert to_lms.status_code == 302, to_lms.text
        assert to_lms.headers["Location"].startswith(self.lms.url + "/auth?")
        action, form = form_of(browser.get(to_lms.headers["Location"], timeout=30).text)
        assert action == f"{self.url}/hub/lti13/oauth_callback"
        if tamper:
            form["id_token"] = tamper(form["id_token"])
        return browser, browser.post(action, data=form, allow_redirects=False, timeout=30)

    def start_server(self, browser, name):
        """What the person's browser does next: their server starts; its home folder."""
        browser.get(f"{self.url}/hub/spawn", timeout=60)
        for _ in range(120):
            if self.api("GET", f"/users/{name}").json()["servers"].get("", {}).get("ready"):
                return self.homes / name
            time.sleep(0.5)
        raise AssertionError(f"the server of {name} did not start")


@pytest.fixture(scope="module")
def hub(chart_python, tmp_path_factory):
    if which("configurable-http-proxy") is None:
        pytest.skip("configurable-http-proxy is missing (npm install -g configurable-http-proxy)")
    podspec = load_podspec()
    folder = tmp_path_factory.mktemp("hub")
    homes = folder / "homes"
    lms = Platform(client_id=VALUES_LTI["client_id"][0]).start()
    chart_config = podspec.lay_out_chart(folder / "etc", course_values())
    (folder / "server.py").write_text(SERVER)
    port, token = free_port(), secrets.token_hex(16)
    config = folder / "jupyterhub_config.py"
    config.write_text(HUB_CONFIG.format(
        chart_config=str(chart_config), support=str(Path(__file__).parent / "support"), homes=str(homes),
        server=str(folder / "server.py"), lms=lms.url, port=port, hub_port=free_port(),
        proxy_api_port=free_port(), folder=folder, token=token))
    secret = folder / "etc" / "secret"
    env = dict(os.environ, **podspec.SERVICE_PORTS, POD_NAMESPACE=podspec.NAMESPACE,
               CONFIGPROXY_AUTH_TOKEN=(secret / "hub.config.ConfigurableHTTPProxy.auth_token").read_text(),
               KUBECONFIG=str(folder / "etc" / "kubeconfig"))
    with open(folder / "hub.log", "w") as log:
        process = subprocess.Popen([str(chart_python), "-m", "jupyterhub", "-f", str(config)], cwd=folder,
                                   env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                if requests.get(f"{url}/hub/api", timeout=2).ok:
                    break
            except requests.ConnectionError:
                pass
            if process.poll() is not None:
                break
            time.sleep(0.5)
        else:
            raise AssertionError("the hub did not start")
        assert process.poll() is None, (folder / "hub.log").read_text()[-3000:]
        yield Hub(url, token, homes, lms)
    finally:
        if process.poll() is None:  # a figure for docs/*/scaling.md: the hub with this module's users
            rss = re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{process.pid}/status").read_text()).group(1)
            print(f"the hub's memory after the launches: {int(rss) // 1024} MB (RSS)")
        # the hub's process group: the hub, its proxy (the servers have groups of their own,
        # which the hub stops at its exit: cleanup_servers)
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        lms.stop()
        print((folder / "hub.log").read_text()[-2000:])


def launched(hub, who):
    browser, answer = hub.launch(who)
    assert answer.status_code == 302, answer.text
    name = str(who["user_id"])
    home = hub.start_server(browser, name)
    environment_ = json.loads((home / "environment.json").read_text())
    pod = json.loads((home / "pod.json").read_text())
    locale = home / ".jupyter/lab/user-settings/@jupyterlab/translation-extension/plugin.jupyterlab-settings"
    # the nbgrader configuration the values mount in every pod, read in this server's environment
    nbgrader = course_values()["singleuser"]["extraFiles"]["nbgrader-config"]["stringData"]
    return environment_, pod, json.loads(locale.read_text())["locale"], run_config(nbgrader, environment_)


def run_config(source, environment):
    from traitlets.config import Config
    config = Config()
    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(environment)
        exec(source, {"get_config": lambda: config})  # noqa: S102 (the values' file, under test)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return config


@pytest.mark.slow
def test_a_spanish_student_lands_in_the_spanish_course_in_spanish(hub):
    environment_, pod, locale, config = launched(hub, person(7, LEARNER, "es"))
    assert config.CourseDirectory.course_id == "autograd-by-hand-es"
    assert locale == "es_ES"
    assert "root" not in config.CourseDirectory and "NBGRADER_ROLE" not in environment_
    assert security(pod)["runAsUser"] == STUDENT_UID_BASE + 7
    # what the hub keeps: the verified launch, custom claim included, encrypted at rest
    state = hub.api("GET", "/users/7").json()["auth_state"]
    assert state[LTI + "custom"] == {"language": "es"}


@pytest.mark.slow
def test_an_english_student_lands_in_the_english_course_in_english(hub):
    _environment, _pod, locale, config = launched(hub, person(8, LEARNER, "en"))
    assert (config.CourseDirectory.course_id, locale) == ("autograd-by-hand-en", "en")


@pytest.mark.slow
def test_an_instructor_gets_the_instructors_setup(hub):
    environment_, pod, locale, config = launched(hub, person(3, INSTRUCTOR, "es"))
    assert environment_["NBGRADER_ROLE"] == "instructor"
    assert config.CourseDirectory.root == "/srv/nbgrader/course"
    assert container(pod)["image"].endswith("autograd-by-hand-instructor:2026.1")
    assert "/srv/nbgrader/course" in mounts(pod)
    assert json.loads(environment_["LTI_AGS"])["endpoint"]["lineitems"] == hub.lms.lineitems_url
    assert locale == "es_ES"


@pytest.mark.slow
def test_a_tampered_launch_is_refused(hub):
    import base64

    def as_someone_else(token):
        # the payload rewritten (another person, the instructor's role), the signature kept
        head, body, signature = token.split(".")
        claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        claims["sub"] = "3"
        claims[LTI + "roles"] = [INSTRUCTOR]
        forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
        return f"{head}.{forged}.{signature}"

    def signed_by_another_key(token):
        import jwt
        from cryptography.hazmat.primitives.asymmetric import rsa
        claims = jwt.decode(token, options={"verify_signature": False})
        claims["sub"] = "31"
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return jwt.encode(claims, other, algorithm="RS256", headers={"kid": hub.lms.kid})

    for tamper in (as_someone_else, signed_by_another_key):
        browser, answer = hub.launch(person(30, LEARNER, "es"), tamper=tamper)
        users = [u["name"] for u in hub.api("GET", "/users").json()]
        print(tamper.__name__, "->", answer.status_code, "; logged in:",
              "jupyterhub-session-id" in browser.cookies and answer.status_code == 302, "; users:", users)
        assert answer.status_code == 400
        assert not {"30", "31"} & set(users)
        assert browser.get(f"{hub.url}/hub/api/user", timeout=30).status_code == 403


@pytest.mark.slow
def test_a_launch_from_another_course_gets_a_page_that_says_why(hub):
    """A teacher of another course of the same LMS: not in, and told so in their language."""
    for language, words in (("es", "Este hub atiende otro curso"), ("en", "This hub serves another course")):
        browser, answer = hub.launch(person(40, INSTRUCTOR, language, course="99"))
        text = re.sub(r"\s+", " ", answer.text)
        print(language, answer.status_code, re.findall(r"(?:This|Este) hub[^<]*", text)[:1])
        assert answer.status_code == 403 and words in text
        assert "40" not in [u["name"] for u in hub.api("GET", "/users").json()]
        assert browser.get(f"{hub.url}/hub/api/user", timeout=30).status_code == 403


@pytest.mark.slow
def test_the_lms_clock_may_be_a_little_ahead(hub):
    """hub.config.LTI13LaunchValidator.time_leeway: a launch issued 30 s in the hub's future
    (the LMS's clock ahead) comes in; one 5 minutes ahead does not."""
    leeway = course_values()["hub"]["config"]["LTI13LaunchValidator"]["time_leeway"]
    outcomes = {}
    for ahead in (30, 300):
        hub.lms.clock_offset = ahead
        try:
            _browser, answer = hub.launch(person(50 + ahead, LEARNER))
        finally:
            hub.lms.clock_offset = 0
        outcomes[ahead] = answer.status_code
    print(f"time_leeway {leeway} s; a launch from an LMS ahead by 30 s -> {outcomes[30]}, by 300 s -> {outcomes[300]}")
    assert outcomes == {30: 302, 300: 400}


@pytest.mark.slow
def test_the_tool_urls_the_guide_gives_the_lms(hub):
    """docs/*/deploy.md: login initiation and redirection URLs, Canvas's JSON configuration; the
    hub's pages cannot be shown in the LMS's frame (the guide says "New window")."""
    config = requests.get(f"{hub.url}/hub/lti13/config", timeout=30).json()
    assert config["oidc_initiation_url"] == f"{hub.url}/hub/lti13/oauth_login"
    assert requests.get(f"{hub.url}/hub/lti13/oauth_callback", timeout=30).status_code == 405  # POST only
    policy = requests.get(f"{hub.url}/hub/login", timeout=30).headers.get("Content-Security-Policy", "")
    print("the hub's pages:", policy)
    assert "frame-ancestors 'self'" in policy or "frame-ancestors 'none'" in policy
    for language, words in (("en", "Default launch container: New window"), ("es", "lanzamiento predeterminado: Nueva ventana")):
        assert words in (ROOT / "docs" / language / "deploy.md").read_text(), language


# --- the student image, without Docker --------------------------------------------------------

def dockerfile_steps(text):
    """[(instruction, argument)] of a Dockerfile, continuation lines joined, comments left out."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    return [tuple(line.split(None, 1)) for line in joined.splitlines() if line.strip()]


def test_the_images_libraries_are_the_courses():
    """Every library the image downloads has requirements.txt's pin, JupyterHub's excepted
    (the chart's: test_versions_agree)."""
    run = [argument for instruction, argument in dockerfile_steps((DEPLOY / "Dockerfile").read_text())
           if instruction == "RUN" and "torch-2.13.0" in argument]
    assert len(run) == 1
    image, course = pins(run[0]), pins((ROOT / "requirements.txt").read_text())
    assert {name: pin for name, pin in image.items() if name != "jupyterhub"} \
        == {name: course[name] for name in image if name != "jupyterhub"}
    # torch: requirements.txt's version, from its CPU wheel (in both images and the build script)
    for path in (DEPLOY / "Dockerfile", DEPLOY / "instructor.Dockerfile", DEPLOY / "build-images"):
        assert set(re.findall(r"torch-([0-9.]+)\+cpu", path.read_text())) == {course["torch"]}, path


def dockerignore_excludes(patterns, path):
    """Whether Docker's build context leaves `path` out under .dockerignore `patterns` (the
    last matching pattern decides; `!` keeps; `**` any folders; a folder takes what is in it)."""
    left_out = False
    for pattern in patterns:
        keep = pattern.startswith("!")
        regex = re.escape(pattern.lstrip("!").strip("/")).replace(r"\*\*/", "(.*/)?").replace(r"\*", "[^/]*")
        if re.fullmatch(regex + "(/.*)?", path):
            left_out = not keep
    return left_out


def test_the_root_dockerignore_keeps_a_classs_data_and_history_out_of_the_instructors_image():
    """The instructor's image is built at the repository root, by the classic builder too (which
    reads only the root's .dockerignore): history, environments and a class's data stay out."""
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    out = [".git/HEAD", ".venv/bin/python", ".venv-chart/bin/python", "gradebook.db", "submitted/7/theory03-en/a.ipynb",
           "autograded/7/theory03-en/a.ipynb", "feedback/7/x.html", "exports/moodle.csv", "reports/x.csv",
           "grader/__pycache__/x.pyc", "deploy/handout/course/__init__.py", "classroom-state/state.json"]
    kept = ["README.md", "autograded/README.md", "grader/__init__.py", "source/theory03-en/theory03.ipynb",
            "deploy/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl", "requirements.txt"]
    wrong = [p for p in out if not dockerignore_excludes(patterns, p)] + \
        [p for p in kept if dockerignore_excludes(patterns, p)]
    assert not wrong, wrong
    assert dockerignore_excludes(["*.db"], "gradebook.db") and not dockerignore_excludes(["x", "!x"], "x")


def test_the_built_images_are_the_ones_the_pods_run():
    """deploy/build-images's default names are the images the values, the hook and the grading
    cluster name."""
    script = (DEPLOY / "build-images").read_text()
    registry, tag = re.search(r"^registry=(\S+) tag=(\S+)", script, re.MULTILINE).groups()
    values = course_values()["singleuser"]["image"]
    cluster = next(d for d in yaml.safe_load_all((DEPLOY / "dask-cluster.yaml").read_text()) if d["kind"] == "DaskCluster")
    assert f"{values['name']}:{values['tag']}" == f"{registry}/autograd-by-hand-student:{tag}"
    assert lms_hook_constants()["INSTRUCTOR_IMAGE"] == f"{registry}/autograd-by-hand-instructor:{tag}" \
        == cluster["spec"]["worker"]["spec"]["containers"][0]["image"]


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="runs the image's steps as root and as a student user")
def test_the_student_image_builds_from_a_read_only_handout():
    """The Dockerfile's course steps, each as the user it names (root, or a non-root user for
    1000), with its variables pointing here: COURSE_HANDOUT at a read-only, root-owned handout
    from `python -m grader handout`, VENV at a fresh environment owned by the student user, as
    the image's system stage makes it. Not run: the system stage (packages, users) and the
    libraries' download: the fresh
    environment reuses this one's libraries, pip and setuptools included, through a .pth file (a
    path line: this environment's
    own .pth files, the repository's editable install among them, are not run), and nbgrader's
    file enabling its server extensions is copied in, as its install writes it."""
    from support.course import ordinary_user
    student = ordinary_user()
    folder = Path(tempfile.mkdtemp(prefix="course-image-"))
    try:
        folder.chmod(0o755)
        handout, prefix, home = folder / "handout", folder / "conda", folder / "home"
        subprocess.run([sys.executable, "-m", "grader", "handout", str(handout)], check=True, cwd=ROOT,
                       capture_output=True)
        subprocess.run(["chmod", "-R", "a-w", str(handout)], check=True)
        before = sorted(str(p.relative_to(handout)) for p in handout.rglob("*"))
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(prefix)], check=True)
        site = next(prefix.glob("lib/python3*/site-packages"))
        import site as this_site
        (site / "reuse-course-libraries.pth").write_text(this_site.getsitepackages()[0] + "\n")
        # pip (and setuptools) are this environment's, reached through the .pth
        (prefix / "bin/pip").write_text('#!/bin/sh\nexec "$(dirname "$0")/python" -m pip "$@"\n')
        (prefix / "bin/pip").chmod(0o755)
        enabling = Path(sys.prefix) / "etc/jupyter/jupyter_server_config.d"
        shutil.copytree(enabling, prefix / "etc/jupyter/jupyter_server_config.d")
        home.mkdir()
        subprocess.run(["chown", "-R", f"{student.pw_uid}:{student.pw_gid}", str(prefix), str(home)], check=True)

        env = {"PATH": f"{prefix}/bin:/usr/bin:/bin", "VENV": str(prefix), "HOME": str(home),
               "COURSE_HANDOUT": str(handout), "PIP_NO_INDEX": "1", "LC_ALL": "C.UTF-8"}
        as_student = {"user": student.pw_uid, "group": student.pw_gid, "extra_groups": []}
        user, stage, ran = "root", None, []
        for instruction, argument in dockerfile_steps((DEPLOY / "Dockerfile").read_text()):
            if instruction == "FROM":
                user, stage = "root", argument.split()[-1] if " AS " in argument else "image"
            elif instruction == "USER":
                user = argument
            elif instruction == "RUN" and stage != "system" and "torch-2.13.0" not in argument:
                done = subprocess.run(["sh", "-c", argument], env=env, cwd=home, capture_output=True,
                                      text=True, check=False, **({} if user == "root" else as_student))
                ran.append((user, argument[:60], done.returncode))
                assert done.returncode == 0, f"as {user}: {argument}\n{done.stdout}\n{done.stderr}"
        print(*ran, sep="\n")
        assert [u for u, _, _ in ran] == ["root", "1000", "root"]

        def student_python(code, **extra):
            return subprocess.run([str(prefix / "bin/python"), "-c", code], env={**env, **extra}, cwd=home,
                                  capture_output=True, text=True, check=True, **as_student).stdout
        where = student_python("import course, minigrad; print(course.__file__); print(minigrad.__file__)")
        assert all(line.startswith(str(site)) for line in where.split()), where
        assert sorted(str(p.relative_to(handout)) for p in handout.rglob("*")) == before

        config = prefix / "etc/jupyter"
        for path in [config / "jupyter_server_config.json", config / "labconfig/page_config.json"]:
            assert path.stat().st_uid == 0 and not path.stat().st_mode & 0o022, path
        listing = subprocess.run([str(prefix / "bin/python"), "-m", "jupyter_server", "extension", "list"],
                                 env={**env, "JUPYTER_CONFIG_DIR": str(config)}, cwd=home, capture_output=True,
                                 text=True, check=True, **as_student)
        state = extension_states(listing.stdout + listing.stderr, config)
        assert state["course.validate"] == "enabled"
        assert state["nbgrader.server_extensions.validate_assignment"] == "disabled"
        assert state["nbgrader.server_extensions.formgrader"] == "disabled"
        assert state["nbgrader.server_extensions.assignment_list"] == "enabled"
        from course.server_settings import hidden_plugins
        page = json.loads((config / "labconfig/page_config.json").read_text())
        assert set(page["disabledExtensions"]) == set(hidden_plugins(exchange=True))
        assert "@jupyter/nbgrader:formgrader" in page["disabledExtensions"]
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(folder)], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def lms_hook_constants():
    """The names extraConfig.lms defines, run with the values as the chart's z2jh.get_config
    reads them (the whole hook runs in the chart's code: test_the_chart_gives_...)."""
    from traitlets.config import Config

    def get_config(key, default=None):
        value = course_values()
        for level in key.split("."):
            value = value.get(level, default) if isinstance(value, dict) else default
        return value
    names = {"c": Config(), "get_config": get_config}
    exec(course_values()["hub"]["extraConfig"]["lms"], names)  # noqa: S102 (the values' hook, under test)
    return names


def test_only_the_instructors_pod_reaches_the_grading_cluster():
    hook = lms_hook_constants()
    documents = list(yaml.safe_load_all((DEPLOY / "dask-cluster.yaml").read_text()))
    cluster = next(d for d in documents if d["kind"] == "DaskCluster")
    worker = cluster["spec"]["worker"]["spec"]["containers"][0]
    assert worker["image"] == hook["INSTRUCTOR_IMAGE"]
    assert worker["args"][worker["args"].index("--nthreads") + 1] == "1"
    policies = {d["metadata"]["name"]: d["spec"] for d in documents if d["kind"] == "NetworkPolicy"}
    assert policies["instructor-to-grading"]["podSelector"]["matchLabels"] == hook["INSTRUCTOR_LABEL"]
    allowed = [rule["podSelector"]["matchLabels"] for rule in policies["grading-ingress"]["ingress"][0]["from"]]
    assert allowed == [{"dask.org/cluster-name": cluster["metadata"]["name"]}, hook["INSTRUCTOR_LABEL"]]
    # a student's pod carries no label (test_a_spanish_student_...), so no rule admits it


def test_the_language_is_written_where_the_images_jupyterlab_reads_it():
    """postStart writes the locale under $HOME; the image points JupyterLab's settings there."""
    values = course_values()
    home = values["singleuser"]["storage"].get("homeMountPath") or yaml.safe_load(
        (DEPLOY / "z2jh" / "values.yaml").read_text())["singleuser"]["storage"]["homeMountPath"]
    post_start = values["singleuser"]["lifecycleHooks"]["postStart"]["exec"]["command"][-1]
    written = re.search(r'f="\$HOME/([^"]+)"', post_start).group(1)
    env = dict(re.findall(r"(JUPYTERLAB_SETTINGS_DIR)=(\S+)", (DEPLOY / "Dockerfile").read_text()))
    settings = env["JUPYTERLAB_SETTINGS_DIR"].replace("${NB_USER}", "jovyan")  # the base image's user
    assert f"{home}/{written}" == \
        f"{settings}/@jupyterlab/translation-extension/plugin.jupyterlab-settings"
