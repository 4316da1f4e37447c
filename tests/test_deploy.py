"""deploy/: the Zero to JupyterHub values and the LMS launch they configure.

- the values pass the pinned chart's own values schema (deploy/z2jh/), and the versions agree;
- the exchange volume's set-up gives the modes the one-machine classroom gives;
- a real JupyterHub runs the values' hub.config and hub.extraConfig as the chart's
  jupyterhub_config.py does (the values file is the code under test), against a test LMS
  (tests/support/lti_platform.py): launches land each person in their course, language and role; a
  tampered launch is refused.
"""
import copy
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
from support.lti_platform import INSTRUCTOR, LEARNER, Platform, form_of
from support.servers import extension_states, free_port

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
CHART = yaml.safe_load((DEPLOY / "z2jh" / "chart.yaml").read_text())


def course_values():
    return yaml.safe_load((DEPLOY / "helm-values.yaml").read_text())


def coalesce(defaults, values):
    """Helm's merge of a chart's defaults with the user's values: maps merge, the rest replaces."""
    merged = copy.deepcopy(defaults)
    for key, value in values.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = coalesce(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def schema_errors(values):
    defaults = yaml.safe_load((DEPLOY / "z2jh" / "values.yaml").read_text())
    schema = json.loads((DEPLOY / "z2jh" / "values.schema.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(coalesce(defaults, values))]


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
    requirements.txt's ltiauthenticator is the one the chart's hub runs; the guides install
    the chart version the values are checked against."""
    for image in ("Dockerfile", "instructor.Dockerfile"):
        assert pins((DEPLOY / image).read_text())["jupyterhub"] == CHART["jupyterhub"], image
    assert pins((ROOT / "requirements.txt").read_text())["jupyterhub-ltiauthenticator"] \
        == CHART["jupyterhub-ltiauthenticator"]
    for guide in ("docs/en/deploy.md", "docs/es/deploy.md", "deploy/helm-values.yaml"):
        versions = set(re.findall(r"--version (\S+)", (ROOT / guide).read_text()))
        assert versions == {CHART["version"]}, guide


def test_exchange_volume_is_shared_and_gets_the_classrooms_modes(tmp_path):
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


# --- the LMS launch, in a real JupyterHub --------------------------------------------------

# what the cluster gives the hub that one machine does not: the person's pod. This stand-in
# runs the values' postStart command in the person's environment, as Kubernetes does, then
# answers as their server; what the hook set on KubeSpawner's traits is written beside it.
HUB_CONFIG = '''
import json, sys
from jupyterhub.spawner import SimpleLocalProcessSpawner
from traitlets import Dict, List, Unicode

c = get_config()  # noqa: F821
values = json.loads({values!r})

# as the chart's jupyterhub_config.py: hub.config section by section, then hub.extraConfig
for section, cfg in values["hub"]["config"].items():
    c[section].update(cfg)
for key, config_py in sorted(values["hub"]["extraConfig"].items()):
    exec(config_py)

# the test LMS instead of the university's
c.LTI13Authenticator.issuer = {lms!r}
c.LTI13Authenticator.authorize_url = {lms!r} + "/auth"
c.LTI13Authenticator.jwks_endpoint = {lms!r} + "/jwks"


class PodStandIn(SimpleLocalProcessSpawner):
    image = Unicode(values["singleuser"]["image"]["name"])
    volumes = List(values["singleuser"]["storage"]["extraVolumes"])
    volume_mounts = List(values["singleuser"]["storage"]["extraVolumeMounts"])
    extra_labels = Dict()

    async def start(self):
        self.cmd = ["sh", "-c", {post_start!r} + ' && exec "$0" "$1"', sys.executable, {server!r}]
        Path = __import__("pathlib").Path
        Path(self.home_dir).mkdir(parents=True, exist_ok=True)
        Path(self.home_dir, "pod.json").write_text(json.dumps(dict(
            image=self.image, volumes=self.volumes, volume_mounts=self.volume_mounts,
            labels=self.extra_labels, mem_limit=self.mem_limit)))
        return await super().start()


c.JupyterHub.spawner_class = PodStandIn
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.JupyterHub.db_url = "sqlite:///{folder}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{folder}/cookie_secret"
c.JupyterHub.pid_file = "{folder}/jupyterhub.pid"
c.JupyterHub.cleanup_servers = True
c.JupyterHub.services = [{{"name": "deploy-test", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": "deploy-test", "services": ["deploy-test"],
                            "scopes": ["admin:users", "admin:servers", "admin:auth_state"]}}]
'''

# the person's "server": records its environment in its home and answers every request
SERVER = '''
import json, os
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlparse
json.dump(dict(os.environ), open(os.path.join(os.environ["HOME"], "environment.json"), "w"))
class Answer(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"server of " + os.environ["USER"].encode())
    def log_message(self, *args):
        pass
HTTPServer(("127.0.0.1", urlparse(os.environ["JUPYTERHUB_SERVICE_URL"]).port), Answer).serve_forever()
'''


class Hub:
    def __init__(self, url, token, homes, lms):
        self.url, self.token, self.homes, self.lms = url, token, homes, lms

    def api(self, method, path, **kwargs):
        return requests.request(method, f"{self.url}/hub/api{path}", timeout=30,
                                headers={"Authorization": f"token {self.token}"}, **kwargs)

    def launch(self, email, roles, custom, tamper=None):
        """A person's launch from the LMS, through a browser's steps; the callback's response."""
        browser = requests.Session()
        fields = self.lms.initiation(f"{self.url}/hub", email, roles, custom)
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
def hub(tmp_path_factory):
    if which("configurable-http-proxy") is None:
        pytest.skip("configurable-http-proxy is missing (npm install -g configurable-http-proxy)")
    folder = tmp_path_factory.mktemp("hub")
    homes = folder / "homes"
    values = course_values()
    lms = Platform(client_id=values["hub"]["config"]["LTI13Authenticator"]["client_id"][0]).start()
    server = folder / "server.py"
    server.write_text(SERVER)
    port, token = free_port(), secrets.token_hex(16)
    post_start = values["singleuser"]["lifecycleHooks"]["postStart"]["exec"]["command"][-1]
    config = folder / "jupyterhub_config.py"
    config.write_text(HUB_CONFIG.format(
        values=json.dumps(values), lms=lms.url, post_start=post_start, server=str(server),
        homes=str(homes), port=port, hub_port=free_port(), proxy_api_port=free_port(),
        folder=folder, token=token))
    env = dict(os.environ, JUPYTERHUB_CRYPT_KEY=secrets.token_hex(32))
    with open(folder / "hub.log", "w") as log:
        process = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=folder,
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
        # the hub's process group: the hub, its proxy and the servers it started
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        lms.stop()
        print((folder / "hub.log").read_text()[-2000:])


def launched(hub, email, roles, language):
    browser, answer = hub.launch(email, roles, {"language": language})
    assert answer.status_code == 302, answer.text
    home = hub.start_server(browser, email)
    environment = json.loads((home / "environment.json").read_text())
    pod = json.loads((home / "pod.json").read_text())
    locale = home / ".jupyter/lab/user-settings/@jupyterlab/translation-extension/plugin.jupyterlab-settings"
    # the nbgrader configuration the values mount in every pod, read in this server's environment
    nbgrader = course_values()["singleuser"]["extraFiles"]["nbgrader-config"]["stringData"]
    config = run_config(nbgrader, environment)
    return environment, pod, json.loads(locale.read_text())["locale"], config


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
    environment, pod, locale, config = launched(hub, "ana@example.org", [LEARNER], "es")
    assert config.CourseDirectory.course_id == "autograd-by-hand-es"
    assert locale == "es_ES"
    assert "root" not in config.CourseDirectory and "NBGRADER_ROLE" not in environment
    assert pod["image"] == course_values()["singleuser"]["image"]["name"]
    assert [v["name"] for v in pod["volumes"]] == ["exchange"]
    assert pod["labels"] == {}  # nothing lets this pod reach the grading cluster
    # what the hub keeps: the verified launch, custom claim included, encrypted at rest
    state = hub.api("GET", "/users/ana@example.org").json()["auth_state"]
    assert state["https://purl.imsglobal.org/spec/lti/claim/custom"] == {"language": "es"}


@pytest.mark.slow
def test_an_english_student_lands_in_the_english_course_in_english(hub):
    _environment, _pod, locale, config = launched(hub, "ben@example.org", [LEARNER], "en")
    assert (config.CourseDirectory.course_id, locale) == ("autograd-by-hand-en", "en")


@pytest.mark.slow
def test_an_instructor_gets_the_instructors_setup(hub):
    environment, pod, locale, config = launched(hub, "ines@example.org", [INSTRUCTOR], "es")
    assert environment["NBGRADER_ROLE"] == "instructor"
    assert config.CourseDirectory.root == "/srv/nbgrader/course"
    assert pod["image"].endswith("autograd-by-hand-instructor:2026.1")
    assert {v["name"] for v in pod["volumes"]} == {"exchange", "course"}
    assert {m["mountPath"] for m in pod["volume_mounts"]} == {"/srv/nbgrader/exchange", "/srv/nbgrader/course"}
    assert locale == "es_ES"
    assert pod["labels"] == {"autograd-by-hand/role": "instructor"}


@pytest.mark.slow
def test_a_tampered_launch_is_refused(hub):
    import base64

    def as_someone_else(token):
        # the payload rewritten (another person, the instructor's role), the signature kept
        head, body, signature = token.split(".")
        claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        claims["email"] = "ines@example.org"
        claims["https://purl.imsglobal.org/spec/lti/claim/roles"] = [INSTRUCTOR]
        forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
        return f"{head}.{forged}.{signature}"

    def signed_by_another_key(token):
        import jwt
        from cryptography.hazmat.primitives.asymmetric import rsa
        claims = jwt.decode(token, options={"verify_signature": False})
        claims["email"] = "mallory-admin@example.org"
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return jwt.encode(claims, other, algorithm="RS256", headers={"kid": hub.lms.kid})

    for tamper in (as_someone_else, signed_by_another_key):
        browser, answer = hub.launch("mallory@example.org", [LEARNER], {"language": "es"}, tamper=tamper)
        users = [u["name"] for u in hub.api("GET", "/users").json()]
        print(tamper.__name__, "->", answer.status_code, "; logged in:",
              "jupyterhub-session-id" in browser.cookies and answer.status_code == 302, "; users:", users)
        assert answer.status_code == 400
        assert not {"mallory@example.org", "mallory-admin@example.org"} & set(users)
        assert browser.get(f"{hub.url}/hub/api/user", timeout=30).status_code == 403


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
           if instruction == "RUN" and "torch==" in argument]
    assert len(run) == 1
    image, course = pins(run[0]), pins((ROOT / "requirements.txt").read_text())
    assert {name: pin for name, pin in image.items() if name != "jupyterhub"} \
        == {name: course[name] for name in image if name != "jupyterhub"}


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="runs the image's steps as root and as a student user")
def test_the_student_image_builds_from_a_read_only_handout():
    """The Dockerfile's RUN steps, each as the user it names (root, or a non-root user for
    NB_UID), with its variables pointing here: COURSE_HANDOUT at a read-only, root-owned handout
    from `python -m grader handout`, CONDA_DIR at a fresh environment owned by the student
    user, as the base image's is. The libraries' download is the one step not run: the fresh
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

        env = {"PATH": f"{prefix}/bin:/usr/bin:/bin", "CONDA_DIR": str(prefix), "HOME": str(home),
               "COURSE_HANDOUT": str(handout), "PIP_NO_INDEX": "1", "LC_ALL": "C.UTF-8"}
        as_student = {"user": student.pw_uid, "group": student.pw_gid, "extra_groups": []}
        user, ran = "root", []
        for instruction, argument in dockerfile_steps((DEPLOY / "Dockerfile").read_text()):
            if instruction == "USER":
                user = argument
            elif instruction == "RUN" and "torch==" not in argument:
                done = subprocess.run(["sh", "-c", argument], env=env, cwd=home, capture_output=True,
                                      text=True, check=False, **({} if user == "root" else as_student))
                ran.append((user, argument[:60], done.returncode))
                assert done.returncode == 0, f"as {user}: {argument}\n{done.stdout}\n{done.stderr}"
        print(*ran, sep="\n")
        assert [u for u, _, _ in ran] == ["root", "${NB_UID}", "root"]

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
    """The names extraConfig.lms defines, run as the chart runs it."""
    from traitlets.config import Config
    names = {"c": Config()}
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


@pytest.mark.slow
def test_the_tool_urls_the_guide_gives_the_lms(hub):
    """docs/*/deploy.md: login initiation and redirection URLs, Canvas's JSON configuration; the
    tool serves no key set (it signs nothing), which the guide says."""
    config = requests.get(f"{hub.url}/hub/lti13/config", timeout=30).json()
    assert config["oidc_initiation_url"] == f"{hub.url}/hub/lti13/oauth_login"
    assert requests.get(f"{hub.url}/hub/lti13/oauth_callback", timeout=30).status_code == 405  # POST only
    assert requests.get(f"{hub.url}/hub/lti13/jwks", timeout=30).status_code == 404


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
