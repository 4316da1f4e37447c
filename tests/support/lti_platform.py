"""A test LMS: an LTI 1.3 platform on loopback that launches people into a tool as Moodle does,
and takes grades back through LTI Assignment and Grade Services (AGS) as Moodle and Canvas do.

It has its own RSA key and serves its public half as a JSON Web Key Set (`/jwks`); a launch is
Moodle's OIDC third-party login: the browser is sent to the tool's login initiation URL with a
`login_hint`, the tool sends the browser back to the platform's authorization endpoint (`/auth`)
with a nonce and a state, and the platform answers with a form that posts a signed `id_token`
(RS256, the key's `kid` in the header) and the state to the tool's callback. The id_token holds
the claims Moodle 4 sends for a resource link: the person's user id (`sub`), LTI roles, the
course (context), the activity's custom parameters (here `language`) and the AGS endpoint.

Grades: the tool asks `/token` for an access token with OAuth 2 client credentials, a JWT it
signs with its own key (the public half given to the platform: `tool_key`), checked as the
IMS security framework says (issuer and subject the client id, audience the token URL, not
expired, each `jti` once); with the token it lists and creates line items (`/lineitems`) and
posts scores (`/lineitems/N/scores`), each checked for its scope, media type and shape.
`fail_scores` makes the next posts for a user fail (503), as a busy LMS does.
"""
import html
import json
import re
import threading
import time
import uuid
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
AGS_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
TEACHING_ASSISTANT = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
MENTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"
CONTENT_DEVELOPER = "http://purl.imsglobal.org/vocab/lis/v2/membership#ContentDeveloper"
ADMINISTRATOR = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
ACTIVITY_PROGRESS = {"Initialized", "Started", "InProgress", "Submitted", "Completed"}
GRADING_PROGRESS = {"FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"}


def launch_claims(issuer, client_id, person, deployment_id="1", nonce="n", target="", lineitems=None):
    """The claims of `person`'s launch (a dict: user_id, email, roles, custom, course), as
    Moodle 4 sends them for a resource link."""
    claims = {
        "iss": issuer, "aud": client_id, "sub": str(person["user_id"]), "nonce": nonce,
        "email": person["email"], "name": person["email"].split("@")[0],
        LTI + "deployment_id": deployment_id,
        LTI + "message_type": "LtiResourceLinkRequest",
        LTI + "version": "1.3.0",
        LTI + "target_link_uri": target,
        LTI + "resource_link": {"id": "4", "title": "Autograd by Hand"},
        LTI + "roles": person["roles"],
        LTI + "context": {"id": person.get("course", "2"), "label": "AGH", "title": "Autograd by Hand",
                          "type": ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"]},
        LTI + "tool_platform": {"product_family_code": "moodle", "version": "2024100700",
                                "guid": "lms.example.org", "name": "Test LMS"},
        LTI + "launch_presentation": {"locale": "en", "document_target": "window"},
        LTI + "custom": person.get("custom", {}),
    }
    if lineitems:
        claims[AGS_CLAIM] = {"lineitems": lineitems,
                             "scope": [AGS_SCOPE + "lineitem", AGS_SCOPE + "result.readonly", AGS_SCOPE + "score"]}
    return claims


class Platform:
    """The LMS: `start()`, then `initiation(hub_url, person)` gives the login initiation's form
    fields; `/auth` signs the launch of the person the login_hint names. `stop()` closes it."""

    def __init__(self, client_id, deployment_id="1", tool_key=None, clock_offset=0):
        self.client_id, self.deployment_id = client_id, deployment_id
        self.tool_key = tool_key  # the tool's public key, registered with the platform
        self.clock_offset = clock_offset  # seconds the platform's clock is ahead of the tool's
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = uuid.uuid4().hex
        self.people = {}  # login_hint -> person
        self.tokens = {}  # access token -> its scopes
        self.used_jti = set()
        self.lineitems = {}  # id -> line item
        self.scores = []  # (line item id, score) in the order they came
        self.failures = {}  # user id -> how many of their next score posts fail
        self.refusals = []  # (path, why): each request the platform refused
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def token_url(self):
        return self.url + "/token"

    @property
    def lineitems_url(self):
        return self.url + "/lineitems"

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def jwks(self):
        public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [dict(public, kid=self.kid, alg="RS256", use="sig")]}

    def initiation(self, tool_hub_url, person):
        """The fields Moodle's login initiation posts to the tool, for `person`."""
        hint = uuid.uuid4().hex
        self.people[hint] = person
        return {"iss": self.url, "target_link_uri": tool_hub_url, "login_hint": hint,
                "lti_message_hint": json.dumps({"cmid": 4, "launchid": hint}),
                "client_id": self.client_id, "lti_deployment_id": self.deployment_id}

    def id_token(self, hint, nonce, target_link_uri, key=None):
        """The signed launch of the person `hint` names (`key`: another key to sign with)."""
        now = int(time.time()) + self.clock_offset
        claims = launch_claims(self.url, self.client_id, self.people[hint], self.deployment_id, nonce,
                               target_link_uri, self.lineitems_url)
        claims.update(exp=now + 60, iat=now)
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": self.kid})

    def fail_scores(self, user_id, times):
        self.failures[str(user_id)] = times

    # --- Assignment and Grade Services ---

    def grant(self, form):
        """An access token for a valid client-credentials request, or (status, why)."""
        if form.get("grant_type") != "client_credentials" or form.get("client_assertion_type") != \
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
            return 400, "unsupported_grant_type"
        try:
            claims = jwt.decode(form.get("client_assertion", ""), self.tool_key, algorithms=["RS256"],
                                audience=self.token_url, options={"require": ["exp", "iat", "jti", "iss", "sub"]})
        except jwt.PyJWTError as error:
            return 401, f"invalid_client: {error}"
        if claims["iss"] != self.client_id or claims["sub"] != self.client_id:
            return 401, "invalid_client: issuer and subject must be the client id"
        if claims["jti"] in self.used_jti:
            return 401, "invalid_client: this assertion was used before"
        self.used_jti.add(claims["jti"])
        asked = set(form.get("scope", "").split())
        scopes = asked & {AGS_SCOPE + "lineitem", AGS_SCOPE + "lineitem.readonly", AGS_SCOPE + "score",
                          AGS_SCOPE + "result.readonly"}
        if not scopes:
            return 400, "invalid_scope"
        token = uuid.uuid4().hex
        self.tokens[token] = scopes
        return 200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": " ".join(sorted(scopes))}

    def lineitem(self, number):
        item = dict(self.lineitems[number])
        item["id"] = f"{self.lineitems_url}/{number}"
        return item

    def _handler(self):
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                url = urlparse(self.path)
                if url.path == "/jwks":
                    return self.answer(200, "application/json", json.dumps(platform.jwks()))
                if url.path == "/auth":
                    return self.authorize({k: v[0] for k, v in parse_qs(url.query).items()})
                if url.path == "/lineitems":
                    if not self.allowed({"lineitem", "lineitem.readonly"}):
                        return
                    query = {k: v[0] for k, v in parse_qs(url.query).items()}
                    items = [platform.lineitem(n) for n in platform.lineitems
                             if "resource_id" not in query or platform.lineitems[n].get("resourceId") == query["resource_id"]]
                    return self.answer(200, LINEITEMS_TYPE, json.dumps(items))
                self.answer(404, "text/plain", "not found")

            def do_POST(self):
                url = urlparse(self.path)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                if url.path == "/token":
                    status, answer = platform.grant({k: v[0] for k, v in parse_qs(body).items()})
                    if status != 200:
                        platform.refusals.append((url.path, answer))
                        return self.answer(status, "application/json", json.dumps({"error": answer}))
                    return self.answer(200, "application/json", json.dumps(answer))
                if url.path == "/lineitems":
                    return self.create_lineitem(body)
                found = re.fullmatch(r"/lineitems/(\d+)/scores", url.path)
                if found and int(found.group(1)) in platform.lineitems:
                    return self.score(int(found.group(1)), body)
                self.answer(404, "text/plain", "not found")

            def allowed(self, scopes):
                header = self.headers.get("Authorization", "")
                token = header[len("Bearer "):] if header.startswith("Bearer ") else None
                if token not in platform.tokens:
                    platform.refusals.append((self.path, "no valid access token"))
                    self.answer(401, "text/plain", "no valid access token")
                    return False
                if not {AGS_SCOPE + s for s in scopes} & platform.tokens[token]:
                    platform.refusals.append((self.path, "token without the scope"))
                    self.answer(403, "text/plain", "token without the scope")
                    return False
                return True

            def create_lineitem(self, body):
                if not self.allowed({"lineitem"}):
                    return
                if self.headers.get("Content-Type") != LINEITEM_TYPE:
                    return self.refuse(415, "a line item's media type")
                item = json.loads(body)
                if not isinstance(item.get("scoreMaximum"), (int, float)) or item["scoreMaximum"] <= 0 \
                        or not item.get("label"):
                    return self.refuse(400, "a line item needs a label and a positive scoreMaximum")
                number = len(platform.lineitems) + 1
                platform.lineitems[number] = item
                self.answer(201, LINEITEM_TYPE, json.dumps(platform.lineitem(number)))

            def score(self, number, body):
                if not self.allowed({"score"}):
                    return
                if self.headers.get("Content-Type") != SCORE_TYPE:
                    return self.refuse(415, "a score's media type")
                score = json.loads(body)
                why = score_problem(score, platform.lineitems[number])
                if why:
                    return self.refuse(400, why)
                user = str(score["userId"])
                if platform.failures.get(user):
                    platform.failures[user] -= 1
                    return self.answer(503, "text/plain", "busy")
                platform.scores.append((number, score))
                self.answer(204, "text/plain", "")

            def refuse(self, status, why):
                platform.refusals.append((self.path, why))
                self.answer(status, "text/plain", why)

            def authorize(self, request):
                if (request.get("client_id") != platform.client_id
                        or request.get("login_hint") not in platform.people
                        or request.get("response_type") != "id_token"):
                    return self.answer(400, "text/plain", "bad authentication request")
                token = platform.id_token(request["login_hint"], request["nonce"], request["redirect_uri"])
                fields = {"id_token": token, "state": request["state"]}
                inputs = "".join(f'<input type="hidden" name="{name}" value="{html.escape(value)}">'
                                 for name, value in fields.items())
                self.answer(200, "text/html", f'<form method="post" action="{html.escape(request["redirect_uri"])}">'
                            f"{inputs}</form><script>document.forms[0].submit()</script>")

            def answer(self, status, kind, text):
                body = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler


def score_problem(score, lineitem):
    """What is wrong with a score posted to `lineitem` (AGS 2.0, "Score publish service"), or None."""
    if not isinstance(score.get("userId"), str) or not score["userId"]:
        return "userId: the LTI user id, a string"
    if score.get("activityProgress") not in ACTIVITY_PROGRESS:
        return f"activityProgress: one of {sorted(ACTIVITY_PROGRESS)}"
    if score.get("gradingProgress") not in GRADING_PROGRESS:
        return f"gradingProgress: one of {sorted(GRADING_PROGRESS)}"
    try:
        stamp = datetime.fromisoformat(score.get("timestamp", ""))
    except (TypeError, ValueError):
        return "timestamp: ISO 8601 with its time zone"
    if stamp.tzinfo is None:
        return "timestamp: ISO 8601 with its time zone"
    if "scoreGiven" in score:
        given, maximum = score["scoreGiven"], score.get("scoreMaximum")
        if not isinstance(given, (int, float)) or not isinstance(maximum, (int, float)) or maximum <= 0 or given < 0:
            return "scoreGiven and scoreMaximum: numbers, scoreMaximum positive"
    elif score["gradingProgress"] == "FullyGraded":
        return "a FullyGraded score without scoreGiven"
    return None


def form_of(page):
    """(action, fields) of the auto-submitted form a platform's /auth answers with."""
    action = html.unescape(re.search(r'<form method="post" action="([^"]*)"', page).group(1))
    fields = {name: html.unescape(value)
              for name, value in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)"', page)}
    return action, fields
