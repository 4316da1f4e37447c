"""A test LMS: an LTI 1.3 platform on loopback that launches people into a tool as Moodle does.

It has its own RSA key and serves its public half as a JSON Web Key Set (`/jwks`); a launch is
Moodle's OIDC third-party login: the browser is sent to the tool's login initiation URL with a
`login_hint`, the tool sends the browser back to the platform's authorization endpoint (`/auth`)
with a nonce and a state, and the platform answers with a form that posts a signed `id_token`
(RS256, the key's `kid` in the header) and the state to the tool's callback. The id_token holds
the claims Moodle 4 sends for a resource link, the person's LTI roles and the activity's custom
parameters (here `language`).
"""
import html
import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


class Platform:
    """The LMS: `start()`, then `initiation(person)` gives the login initiation's form fields;
    `/auth` signs the launch of the person the login_hint names. `stop()` closes it."""

    def __init__(self, client_id, deployment_id="1"):
        self.client_id, self.deployment_id = client_id, deployment_id
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = uuid.uuid4().hex
        self.people = {}  # login_hint -> (email, roles, custom)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def jwks(self):
        public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [dict(public, kid=self.kid, alg="RS256", use="sig")]}

    def initiation(self, tool_hub_url, email, roles, custom):
        """The fields Moodle's login initiation posts to the tool, for a new person."""
        hint = uuid.uuid4().hex
        self.people[hint] = (email, roles, custom)
        return {"iss": self.url, "target_link_uri": tool_hub_url, "login_hint": hint,
                "lti_message_hint": json.dumps({"cmid": 4, "launchid": hint}),
                "client_id": self.client_id, "lti_deployment_id": self.deployment_id}

    def id_token(self, hint, nonce, target_link_uri, key=None):
        """The signed launch of the person `hint` names (`key`: another key to sign with)."""
        email, roles, custom = self.people[hint]
        now = int(time.time())
        claims = {
            "iss": self.url, "aud": self.client_id, "sub": hint[:8], "exp": now + 60, "iat": now,
            "nonce": nonce, "email": email, "name": email.split("@")[0],
            LTI + "deployment_id": self.deployment_id,
            LTI + "message_type": "LtiResourceLinkRequest",
            LTI + "version": "1.3.0",
            LTI + "target_link_uri": target_link_uri,
            LTI + "resource_link": {"id": "4", "title": "Autograd by Hand"},
            LTI + "roles": roles,
            LTI + "context": {"id": "2", "label": "AGH", "title": "Autograd by Hand",
                              "type": ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"]},
            LTI + "tool_platform": {"product_family_code": "moodle", "version": "2024100700",
                                    "guid": "lms.example.org", "name": "Test LMS"},
            LTI + "launch_presentation": {"locale": "en", "document_target": "window"},
            LTI + "custom": custom,
        }
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": self.kid})

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
                self.answer(404, "text/plain", "not found")

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


def form_of(page):
    """(action, fields) of the auto-submitted form a platform's /auth answers with."""
    action = html.unescape(re.search(r'<form method="post" action="([^"]*)"', page).group(1))
    fields = {name: html.unescape(value)
              for name, value in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)"', page)}
    return action, fields

