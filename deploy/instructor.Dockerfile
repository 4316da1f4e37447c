# The instructor's single-user image, also the image of the Dask workers that grade: the whole
# course (grader/, source/ with the solutions), so it goes to a PRIVATE registry. deploy/build-images
# builds it at the repository root (docs/en/deploy.md), after putting torch's CPU wheel in
# deploy/wheels; the root's .dockerignore keeps out .git, environments and a class's data:
#
#   docker build --build-arg BASE=IMAGE -f deploy/instructor.Dockerfile \
#     -t registry.example.org/autograd-by-hand-instructor:2026.1 .
#
# The hub gives it to whoever the LMS launches as Instructor from the class's course
# (helm-values.yaml, extraConfig.lms), with the course folder's volume at /srv/nbgrader/course;
# formgrader and nbgrader's instructor tools are on, as in stock nbgrader. BASE as in Dockerfile.
ARG BASE=debian:bookworm-slim

# --- the system: Python, bubblewrap and the tools the grader's sandbox uses (prlimit, setpriv),
# git (the course folder is a clone), the pod's user known by name (pod-user) ---
FROM ${BASE} AS system
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 LC_ALL=C.UTF-8
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates tini libnss-extrausers \
      bubblewrap util-linux git \
 && rm -rf /var/lib/apt/lists/*
COPY deploy/pod-user /usr/local/bin/pod-user
ENV VENV=/opt/venv HOME=/home/jovyan NB_USER=jovyan
ENV PATH=${VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
RUN pod-user --install \
 && useradd --create-home --uid 1000 --gid 100 --shell /bin/bash jovyan \
 && python3 -m venv "$VENV" && chown -R 1000:100 "$VENV" \
 && mkdir /opt/autograd-by-hand && chown 1000:100 /opt/autograd-by-hand

# --- the libraries, in a stage of their own: torch's wheel stays out of the image ---
FROM system AS libraries
COPY --chown=1000:100 requirements.txt deploy/wheels/ /tmp/course/
USER 1000
# requirements.txt as on an instructor's machine, the course's own package aside (below): torch
# from its CPU wheel, which pip then takes for requirements.txt's torch==2.13.0; then JupyterHub
# at the chart's version (deploy/z2jh/chart.yaml): the hub and the single-user servers must agree.
# Only a change of requirements.txt downloads them again
RUN pip install --no-cache-dir --cert /etc/ssl/certs/ca-certificates.crt /tmp/course/torch-2.13.0+cpu-*.whl \
 && grep -v '^-e ' /tmp/course/requirements.txt > /tmp/course/libraries.txt \
 && pip install --no-cache-dir --cert /etc/ssl/certs/ca-certificates.crt -r /tmp/course/libraries.txt \
 && pip install --no-cache-dir --cert /etc/ssl/certs/ca-certificates.crt jupyterhub==5.5.0
COPY --chown=1000:100 . /opt/autograd-by-hand
WORKDIR /opt/autograd-by-hand
# the course itself, as requirements.txt's `-e .` installs it; the wheel does not stay
RUN pip install --no-cache-dir --no-deps --no-build-isolation -e . && rm -rf deploy/wheels

# --- the image: the course and its libraries root's, nobody's to change ---
FROM system
COPY --from=libraries --chown=root:root ${VENV} ${VENV}
COPY --from=libraries --chown=root:root /opt/autograd-by-hand /opt/autograd-by-hand
# JupyterHub's servers forbid every frame unless told otherwise, and JupyterLab shows formgrader
# in a frame of the same server (as the one-machine classroom allows)
RUN chown root:root "$VENV" && mkdir -p "$VENV/etc/jupyter/jupyter_server_config.d" \
 && printf '{"ServerApp": {"tornado_settings": {"headers": {"Content-Security-Policy": "frame-ancestors '"'self'"'"}}}}\n' \
      > "$VENV/etc/jupyter/jupyter_server_config.d/formgrader-frame.json"
USER 1000
WORKDIR /home/jovyan
ENTRYPOINT ["tini", "-g", "--", "pod-user"]
CMD ["jupyterhub-singleuser"]
