"""The pods Zero to JupyterHub starts for the people the LMS launches, made by the pinned chart's
own code from the course's values: its jupyterhub_config.py and z2jh.py (deploy/z2jh/hub/), in a
real JupyterHub with its authenticator and KubeSpawner, at the chart's versions.

    python deploy/podspec.py LAUNCHES.json [--values deploy/helm-values.yaml]

LAUNCHES.json: [{"label": ..., "id_token": {claims}}, ...], launches as ltiauthenticator hands
them to the hub once their signature is checked. For each, the hub's own steps run: the
authenticator (the values' post_auth_hook included) names the person or refuses them, then the
user's spawn runs its hooks (the values' pre_spawn_hook) and KubeSpawner makes the pod. Printed
as JSON: {"hub": {its settings}, "launches": [{"label", "name", "pod"} or {"label", "refused"}]}.

The chart's files are laid out as its hub pod mounts them (config/: the resources' names,
secret/: the values merged with the chart's defaults, and the secrets it generates), in a folder
of their own whose path replaces /usr/local/etc/jupyterhub in them. No cluster is contacted:
KubeSpawner is given a kubeconfig for an address nothing answers, and the pod is recorded where
it would be sent. Needs deploy/z2jh/hub/packages.txt installed (the hub's image, or .venv-chart).
"""
import argparse
import asyncio
import contextlib
import copy
import json
import logging
import os
import secrets
import sys
import tempfile
from pathlib import Path

import yaml

DEPLOY = Path(__file__).resolve().parent
CHART = DEPLOY / "z2jh"
CHART_ETC = "/usr/local/etc/jupyterhub"
RELEASE = NAMESPACE = "classroom"
SERVICE_PORTS = {"HUB_SERVICE_PORT": "8081", "PROXY_API_SERVICE_PORT": "8001"}


def coalesce(defaults, values):
    """Helm's merge of a chart's defaults with the user's values: maps merge, the rest replaces,
    and a null leaves the key out (as Helm's values hold it)."""
    merged = copy.deepcopy(defaults)
    for key, value in values.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = coalesce(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return {key: coalesce(value, {}) if isinstance(value, dict) else value
            for key, value in merged.items() if value is not None}


def resource_names(release):
    """The chart's name templates (templates/_helpers-names.tpl) with fullnameOverride "", its
    default: what the hub's config map holds and get_name reads."""
    names = {short: short for short in (
        "hub", "proxy", "proxy-api", "proxy-http", "proxy-public", "singleuser", "image-pull-secret",
        "autohttps", "user-placeholder", "hook-image-awaiter", "hook-image-puller", "continuous-image-puller")}
    names.update({"fullname": "", "fullname-dash": "", "hub-pvc": "hub-db-dir",
                  "user-scheduler-deploy": "user-scheduler", "user-scheduler": f"{release}-user-scheduler",
                  "priority": f"{release}-default-priority",
                  "user-placeholder-priority": f"{release}-user-placeholder-priority",
                  "image-puller-priority": f"{release}-image-puller-priority"})
    return names


def lay_out_chart(folder, values):
    """What the chart mounts in its hub pod at /usr/local/etc/jupyterhub, in `folder`; the path
    of its jupyterhub_config.py there."""
    chart = yaml.safe_load((CHART / "chart.yaml").read_text())
    merged = coalesce(yaml.safe_load((CHART / "values.yaml").read_text()), values)
    merged["Chart"] = {"Name": chart["chart"], "Version": chart["version"], "AppVersion": chart["jupyterhub"]}
    merged["Release"] = {"Name": RELEASE, "Namespace": NAMESPACE, "Service": "Helm"}
    (folder / "config").mkdir(parents=True)
    for name, value in resource_names(RELEASE).items():
        (folder / "config" / name).write_text(value)
    (folder / "secret").mkdir()
    (folder / "secret" / "values.yaml").write_text(yaml.safe_dump(merged))
    for key in ("hub.config.JupyterHub.cookie_secret", "hub.config.CryptKeeper.keys",
                "hub.config.ConfigurableHTTPProxy.auth_token"):
        (folder / "secret" / key).write_text(secrets.token_hex(32))
    for name in ("jupyterhub_config.py", "z2jh.py"):
        text = (CHART / "hub" / name).read_text()
        assert CHART_ETC in text, f"{name} no longer reads {CHART_ETC}: check this layout against the chart"
        (folder / name).write_text(text.replace(CHART_ETC, str(folder)))
    (folder / "kubeconfig").write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "none",
        "clusters": [{"name": "none", "cluster": {"server": "https://127.0.0.1:9"}}],
        "contexts": [{"name": "none", "context": {"cluster": "none", "user": "none"}}],
        "users": [{"name": "none", "user": {"token": "none"}}]}))
    return folder / "jupyterhub_config.py"


class Recorded(Exception):
    """Raised where KubeSpawner would send the pod to the cluster: the spawn stops there."""


async def pods(config_file, launches):
    from jupyterhub import orm, roles
    from jupyterhub.app import JupyterHub
    from kubernetes_asyncio.client import ApiClient
    from kubespawner import KubeSpawner
    from tornado import web

    recorded = {}

    class RecordingSpawner(KubeSpawner):
        """KubeSpawner, up to the pod it would create (its `_start` does the same first)."""

        async def start(self):
            pod = await self.get_pod_manifest()
            if self.modify_pod_hook:
                pod = await self.modify_pod_hook(self, pod) if asyncio.iscoroutinefunction(
                    self.modify_pod_hook) else self.modify_pod_hook(self, pod)
            recorded[self.user.name] = pod
            raise Recorded()

        async def poll(self):
            return 0  # stopped: what the hub asks after a failed start

        async def stop(self, now=False):
            pass

    # the instance: what CryptKeeper (auth_state's encryption) reads its keys from
    app = JupyterHub.instance(config_file=str(config_file), log_level=logging.ERROR)
    await app.initialize([])
    app.log_level = logging.CRITICAL  # the recorded spawns' stop is logged as an error
    spawner_class = app.spawner_class
    assert issubclass(spawner_class, KubeSpawner), spawner_class
    app.tornado_settings["spawner_class"] = RecordingSpawner
    hub = {"spawner_class": f"{spawner_class.__module__}.{spawner_class.__name__}",
           "authenticator_class": f"{type(app.authenticator).__module__}.{type(app.authenticator).__name__}",
           "concurrent_spawn_limit": app.concurrent_spawn_limit,
           "time_leeway": app.config.LTI13LaunchValidator.get("time_leeway", 0)}
    serializer = ApiClient()
    results = []
    for launch in launches:
        result = {"label": launch["label"]}
        try:
            authenticated = await app.authenticator.get_authenticated_user(None, dict(launch["id_token"]))
        except web.HTTPError as error:
            authenticated, result["refused"] = None, error.log_message.replace("%%", "%")
        if authenticated is None:
            result.setdefault("refused", "not allowed")
            results.append(result)
            continue
        # as the hub's login handler makes a new user (BaseHandler.user_from_username)
        name = result["name"] = authenticated["name"]
        orm_user = orm.User(name=name)
        app.db.add(orm_user)
        roles.assign_default_roles(app.db, entity=orm_user)
        app.db.commit()
        user = app.users[orm_user]
        await user.save_auth_state(authenticated["auth_state"])
        try:
            await user.spawn()
        except Recorded:
            pass
        result["pod"] = serializer.sanitize_for_serialization(recorded[name])
        results.append(result)
    await serializer.close()
    return {"hub": hub, "launches": results}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("launches", help="a JSON file: [{label, id_token}]")
    parser.add_argument("--values", default=str(DEPLOY / "helm-values.yaml"), help="the chart's values")
    arguments = parser.parse_args(argv)
    launches = json.loads(Path(arguments.launches).read_text())
    values = yaml.safe_load(Path(arguments.values).read_text())
    with tempfile.TemporaryDirectory(prefix="z2jh-hub-") as folder:
        config_file = lay_out_chart(Path(folder) / "etc", values)
        secret = Path(folder) / "etc" / "secret"
        # the hub pod's environment (the chart's templates/hub/deployment.yaml)
        os.environ.update(SERVICE_PORTS, POD_NAMESPACE=NAMESPACE, HELM_RELEASE_NAME=RELEASE,
                          CONFIGPROXY_AUTH_TOKEN=(secret / "hub.config.ConfigurableHTTPProxy.auth_token").read_text(),
                          KUBECONFIG=str(Path(folder) / "etc" / "kubeconfig"))
        os.chdir(folder)  # the chart's sqlite-pvc database: jupyterhub.sqlite in the working folder
        with contextlib.redirect_stdout(sys.stderr):  # what the chart's config prints
            found = asyncio.run(pods(config_file, launches))
    json.dump(found, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
