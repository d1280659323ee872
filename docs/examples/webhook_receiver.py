#!/usr/bin/env python3
"""A FileBox webhook receiver: verifies each request's Standard Webhooks signature, prints
the event (one JSON line on stdout) and answers 204; a forged, stale or replayed request is
answered 401 and not printed. Python standard library only.

    python3 webhook_receiver.py --listen 127.0.0.1:9000 --secret whsec_... [--once]

Its first line on stdout is the URL it serves (`listening on http://HOST:PORT/hooks/`; port 0
takes any free port). With --once it exits after the first verified event (exit 1 when none
came within --give-up seconds).
"""

import argparse
import base64
import hashlib
import hmac
import http.server
import json
import sys
import threading
import time

# How far a request's webhook-timestamp may be from now (Standard Webhooks suggests 5 min).
TOLERANCE_SECS = 300


def key_of(secret):
    """The signing key: base64 after `whsec_`, as Standard Webhooks writes it, else the text."""
    if secret.startswith("whsec_"):
        return base64.b64decode(secret[len("whsec_"):])
    return secret.encode()


def verify(key, headers, body):
    """Why the request is refused, or None when it is signed with `key` and recent."""
    msg_id = headers.get("webhook-id")
    stamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not (msg_id and stamp and signatures):
        return "missing webhook-id, webhook-timestamp or webhook-signature"
    try:
        if abs(time.time() - int(stamp)) > TOLERANCE_SECS:
            return "stale timestamp"
    except ValueError:
        return "timestamp is not a number"
    expected = base64.b64encode(
        hmac.new(key, f"{msg_id}.{stamp}.".encode() + body, hashlib.sha256).digest()
    ).decode()
    # The header may carry several space-separated signatures (a key being rotated).
    for signature in signatures.split():
        version, _, value = signature.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return None
    return "no signature matches"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", default="127.0.0.1:9000", help="HOST:PORT")
    parser.add_argument("--secret", required=True, help="the config's hub.webhook_secret")
    parser.add_argument("--once", action="store_true", help="exit after the first event")
    parser.add_argument("--give-up", type=float, default=600, help="seconds, with --once")
    args = parser.parse_args()
    key = key_of(args.secret)
    seen = set()
    done = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            refused = verify(key, self.headers, body)
            msg_id = self.headers.get("webhook-id")
            if refused:
                print(f"refused: {refused}", file=sys.stderr, flush=True)
                self.send_response(401)
                self.end_headers()
                return
            self.send_response(204)
            self.end_headers()
            # A retry of a delivered event carries the same webhook-id: print it once.
            if msg_id in seen:
                return
            seen.add(msg_id)
            payload = json.loads(body)
            email = payload.get("params", {}).get("email", payload)  # an RPC callback wraps it
            last = (email.get("replies") or [{}])[-1]  # the reply that fired it
            event = {
                "webhook-id": msg_id,
                "subject": email.get("subject"),
                "status": email.get("status"),
                "reply_from": last.get("from"),
                "reply": last.get("body"),
            }
            print(json.dumps(event), flush=True)
            if args.once:
                done.set()

        def log_message(self, *_):
            pass  # one line per event on stdout is the whole output

    host, _, port = args.listen.rpartition(":")
    server = http.server.ThreadingHTTPServer((host, int(port)), Handler)
    print(f"listening on http://{host}:{server.server_port}/hooks/", flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    if args.once:
        came = done.wait(args.give_up)
        server.shutdown()
        sys.exit(0 if came else 1)
    done.wait()


if __name__ == "__main__":
    main()
